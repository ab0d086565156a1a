// Small file helpers with Status errors that name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"

namespace gld {

// A file descriptor opened for reading, closed on destruction.
class ReadOnlyFile {
 public:
  ReadOnlyFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ReadOnlyFile(ReadOnlyFile&& other) noexcept : fd_(other.fd_), size_(other.size_) { other.fd_ = -1; }
  ReadOnlyFile& operator=(ReadOnlyFile&&) = delete;
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ~ReadOnlyFile();
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }

 private:
  int fd_;
  uint64_t size_;
};

// Opens `path` for reading only if it is a regular file of at most max_bytes.
// A FIFO, device or socket is refused without blocking (the open does not
// wait for a writer), so no file a user names can hang a reader. NotFound
// when it cannot be opened; InvalidArgument when it is a directory, not a
// regular file, or too large. Messages name the file as `kind` 'path'
// ("model file '/x.tflite'"), or as 'path' when kind is empty.
StatusOr<ReadOnlyFile> OpenRegularFileForRead(const std::string& path, uint64_t max_bytes,
                                              const std::string& kind = "");

// Reads a whole regular file (opened by OpenRegularFileForRead).
// Internal ("cannot allocate N bytes to read 'path'") when its bytes cannot
// be allocated.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                             uint64_t max_bytes = uint64_t{1} << 32,
                                             const std::string& kind = "");

// A whole regular file mapped read-only (private, populated up front), unmapped
// on destruction. Reading a model this way copies nothing and faults in no
// fresh pages: the bytes are the page cache's.
class MappedFile {
 public:
  MappedFile(const void* data, size_t size) : data_(data), size_(size) {}
  MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) { other.data_ = nullptr; }
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();
  const uint8_t* data() const { return static_cast<const uint8_t*>(data_); }
  size_t size() const { return size_; }

 private:
  const void* data_;
  size_t size_;
};

// Maps a whole regular file (opened by OpenRegularFileForRead, so the same
// errors); an empty file maps to no bytes. DataLoss when mmap fails.
StatusOr<MappedFile> MapFileForRead(const std::string& path, uint64_t max_bytes = uint64_t{1} << 32,
                                    const std::string& kind = "");

// Writes `size` bytes to `path` through a temporary file in the same folder
// and a rename, so readers never see a half-written file.
Status WriteFileAtomic(const std::string& path, const void* data, size_t size);

// True when something (of any kind) exists at path; nothing is opened.
bool PathExists(const std::string& path);

// True when path names an existing directory.
bool IsDirectory(const std::string& path);

// Creates a directory and its parents (like mkdir -p).
Status CreateDirectories(const std::string& path);

}  // namespace gld
