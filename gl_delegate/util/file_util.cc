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
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gld {

namespace {
std::string Named(const std::string& path, const std::string& kind) {
  return (kind.empty() ? "" : kind + " ") + "'" + path + "'";
}

std::string OctalMode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// 16 hex digits no other process can guess (the kernel's random bytes; a
// clock-and-counter mix only where getrandom is refused).
std::string RandomSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t v = 0;
  if (::getrandom(&v, sizeof(v), GRND_NONBLOCK) != static_cast<ssize_t>(sizeof(v))) {
    struct timespec ts {};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    v = (static_cast<uint64_t>(ts.tv_nsec) << 20) ^ static_cast<uint64_t>(ts.tv_sec) ^
        (static_cast<uint64_t>(::getpid()) << 40) ^ (counter++ * 0x9e3779b97f4a7c15ull);
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Writes all of `size` bytes to fd; an errno value, 0 on success.
int WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  size_t done = 0;
  while (done < size) {
    const ssize_t put = ::write(fd, p + done, size - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return put < 0 ? errno : EIO;
    done += static_cast<size_t>(put);
  }
  return 0;
}

// A fresh temporary file beside `path`, created exclusively; its name in *tmp.
int CreateTemporaryBeside(const std::string& path, FileTrust trust, std::string* tmp) {
  const mode_t mode = trust == FileTrust::kOwner ? 0600 : 0666;
  for (int attempt = 0; attempt < 16; ++attempt) {
    *tmp = path + ".tmp." + RandomSuffix();
    const int fd = ::open(tmp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}
}  // namespace

Status CheckOwnedByUser(const struct stat& st, const std::string& named) {
  const uid_t me = ::geteuid();
  if (st.st_uid != me && st.st_uid != 0) {
    return FailedPreconditionError(named + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                                   std::to_string(me) + ") or root");
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return FailedPreconditionError(named + " is writable by its group or others (mode " + OctalMode(st.st_mode) + ")");
  }
  return OkStatus();
}

Status CheckTrustedFolder(const std::string& path, const std::string& kind) {
  const std::string named = Named(path, kind);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return NotFoundError("cannot stat " + named + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return InvalidArgumentError(named + " is not a folder");
  return CheckOwnedByUser(st, named);
}

ReadOnlyFile::~ReadOnlyFile() {
  if (fd_ >= 0) ::close(fd_);
}

StatusOr<ReadOnlyFile> OpenRegularFileForRead(const std::string& path, uint64_t max_bytes, const std::string& kind,
                                              FileTrust trust) {
  const std::string named = Named(path, kind);
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int follow = trust == FileTrust::kOwner ? O_NOFOLLOW : 0;
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | follow);
  if (fd < 0) {
    if (errno == EISDIR) return InvalidArgumentError(named + " is a directory, not a file");
    if (errno == ELOOP && follow != 0) return FailedPreconditionError(named + " is a symbolic link (not followed)");
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
  if (trust == FileTrust::kOwner) GLD_RETURN_IF_ERROR(CheckOwnedByUser(st, named));
  // Read or mapped whole: a 32-bit process (2-3 GiB of user address
  // space) takes at most 2 GiB, and its size_t must not wrap.
  if constexpr (sizeof(size_t) < 8) {
    if (file.size() > uint64_t{1} << 31) {
      return InvalidArgumentError(named + " is " + std::to_string(file.size()) +
                                  " bytes, more than a 32-bit process can read or map (2 GiB)");
    }
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

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path, uint64_t max_bytes, const std::string& kind,
                                             FileTrust trust) {
  GLD_ASSIGN_OR_RETURN(ReadOnlyFile file, OpenRegularFileForRead(path, max_bytes, kind, trust));
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

Status WriteFileAtomic(const std::string& path, const void* data, size_t size, FileTrust trust) {
  std::string tmp;
  const int fd = CreateTemporaryBeside(path, trust, &tmp);
  if (fd < 0) return NotFoundError("cannot create '" + tmp + "': " + std::strerror(errno));
  // fchmod: the mode asked for, whatever the umask made of it.
  int err = trust == FileTrust::kOwner && ::fchmod(fd, 0600) != 0 ? errno : 0;
  // Closed here, checked: a full filesystem (ENOSPC) or a file-size limit
  // (EFBIG) fails the write, and only a complete file is renamed in place.
  if (err == 0) err = WriteAll(fd, data, size);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return DataLossError("cannot write " + std::to_string(size) + " bytes to '" + tmp + "': " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
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

Status CreateDirectories(const std::string& path, FileTrust trust) {
  if (trust == FileTrust::kAnyone) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec && !IsDirectory(path)) {
      return NotFoundError("cannot create directory '" + path + "': " + ec.message());
    }
    return OkStatus();
  }
  // Each missing folder from the top down, 0700 whatever the umask.
  const std::filesystem::path full(path);
  std::filesystem::path at;
  for (const auto& part : full) {
    at /= part;
    if (::mkdir(at.c_str(), 0700) == 0) {
      if (::chmod(at.c_str(), 0700) != 0) {
        return NotFoundError("cannot make directory '" + at.string() + "' private: " + std::strerror(errno));
      }
    } else if (errno != EEXIST) {
      return NotFoundError("cannot create directory '" + at.string() + "': " + std::strerror(errno));
    }
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return NotFoundError("cannot stat '" + path + "': " + std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return FailedPreconditionError("'" + path + "' is a symbolic link, not a folder");
  if (!S_ISDIR(st.st_mode)) return NotFoundError("cannot create directory '" + path + "': a file is in the way");
  return CheckOwnedByUser(st, "'" + path + "'");
}
}  // namespace gld
