#include "util/file_util.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>

namespace gld {

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path, uint64_t max_bytes, const std::string& kind) {
  const std::string named = (kind.empty() ? "" : kind + " ") + "'" + path + "'";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InvalidArgumentError(named + " is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("cannot open " + named + ": " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff end = in.tellg();
  if (end < 0) return DataLossError("cannot determine the size of " + named);
  uint64_t size = static_cast<uint64_t>(end);
  if (size > max_bytes) {
    return InvalidArgumentError(named + " is " + std::to_string(size) + " bytes, more than the limit of " +
                                std::to_string(max_bytes));
  }
  in.seekg(0, std::ios::beg);
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    return DataLossError("cannot read " + std::to_string(size) + " bytes from " + named);
  }
  return bytes;
}

Status WriteFileAtomic(const std::string& path, const void* data, size_t size) {
  // pid + a per-process counter: unique among processes and among threads
  // writing the same path at once.
  static std::atomic<uint64_t> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return NotFoundError("cannot create '" + tmp + "': " + std::strerror(errno));
    if (size > 0) out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return DataLossError("cannot write " + std::to_string(size) + " bytes to '" + tmp + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return DataLossError("cannot rename '" + tmp + "' to '" + path + "': " + why);
  }
  return OkStatus();
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
