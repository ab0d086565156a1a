#include "util/file_util.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gld {

namespace {
std::string Named(const std::string& path, const std::string& kind) {
  return (kind.empty() ? "" : kind + " ") + "'" + path + "'";
}
}  // namespace

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

StatusOr<ReadOnlyFile> OpenRegularFileForRead(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  const std::string named = Named(path, kind);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EISDIR) return InvalidArgumentError(named + " is a directory, not a file");
    return NotFoundError("cannot open " + named + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return DataLossError("cannot stat " + named + ": " + std::strerror(err));
  }
  ReadOnlyFile file(fd, static_cast<uint64_t>(st.st_size));
  if (S_ISDIR(st.st_mode)) return InvalidArgumentError(named + " is a directory, not a file");
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode)                            ? "a FIFO"
                       : S_ISSOCK(st.st_mode)                          ? "a socket"
                       : (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) ? "a device"
                                                                       : "not a regular file";
    return InvalidArgumentError(named + " is " + what + ", not a regular file");
  }
  if (file.size() > max_bytes) {
    return InvalidArgumentError(named + " is " + std::to_string(file.size()) + " bytes, more than the limit of " +
                                std::to_string(max_bytes));
  }
  // The caller reads with ordinary blocking reads (some filesystems, FUSE
  // among them, may answer EAGAIN to a non-blocking read of a regular file).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return file;
}

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  GLD_ASSIGN_OR_RETURN(ReadOnlyFile file, OpenRegularFileForRead(path, max_bytes, kind));
  const std::string named = Named(path, kind);
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(static_cast<size_t>(file.size()));
  } catch (const std::bad_alloc&) {
    return InternalError("cannot allocate " + std::to_string(file.size()) + " bytes to read " + named);
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(file.fd(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      return DataLossError("cannot read " + std::to_string(bytes.size()) + " bytes from " + named +
                           (got < 0 ? std::string(": ") + std::strerror(errno) : ": it ended early"));
    }
    done += static_cast<size_t>(got);
  }
  return bytes;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr && size_ > 0) ::munmap(const_cast<void*>(data_), size_);
}

StatusOr<MappedFile> MapFileForRead(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  GLD_ASSIGN_OR_RETURN(ReadOnlyFile file, OpenRegularFileForRead(path, max_bytes, kind));
  if (file.size() == 0) return MappedFile(nullptr, 0);
  const size_t size = static_cast<size_t>(file.size());
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, file.fd(), 0);
  if (data == MAP_FAILED) {
    return DataLossError("cannot map " + std::to_string(size) + " bytes of " + Named(path, kind) + ": " +
                         std::strerror(errno));
  }
  return MappedFile(data, size);
}

Status WriteFileAtomic(const std::string& path, const void* data, size_t size) {
  // pid + a per-process counter: unique among processes and among threads
  // writing the same path at once.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return NotFoundError("cannot create '" + tmp + "': " + std::strerror(errno));
    errno = 0;
    if (size > 0) out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    // Closed here, checked: a full filesystem (ENOSPC) or a file-size limit
    // (EFBIG) fails the write, and only a complete file is renamed in place.
    out.close();
    if (!out) {
      const std::string why = errno != 0 ? std::strerror(errno) : "write failed";
      std::remove(tmp.c_str());
      return DataLossError("cannot write " + std::to_string(size) + " bytes to '" + tmp + "': " + why);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return DataLossError("cannot rename '" + tmp + "' to '" + path + "': " + why);
  }
  return OkStatus();
}

bool PathExists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

Status CreateDirectories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec && !IsDirectory(path)) {
    return NotFoundError("cannot create directory '" + path + "': " + ec.message());
  }
  return OkStatus();
}

}  // namespace gld
