// Small file helpers with Status errors that name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "gldelegate/status.hpp"

namespace gld {

// Who may have written what the library reads back from its own folders
// (the program cache). kOwner: only this user (the effective uid) or root,
// with nothing writable by group or others; what the library creates is
// private (folders 0700, files 0600, whatever the umask). kAnyone: any owner
// (a folder shared on purpose); created as the umask says. Either way no
// symbolic link is followed at a file's own name.
enum class FileTrust { kAnyone, kOwner };

// OK when `st` (of `named`) is owned by this user or root and not writable
// by its group or others; FailedPrecondition saying which otherwise.
Status CheckOwnedByUser(const struct stat& st, const std::string& named);

// OK when `path` is an existing folder (a link to one is followed: the user
// named it) owned by this user or root and not writable by group or others.
Status CheckTrustedFolder(const std::string& path, const std::string& kind);

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
// With FileTrust::kOwner a link at `path` is refused (not followed) and so
// is a file CheckOwnedByUser refuses (FailedPrecondition).
StatusOr<ReadOnlyFile> OpenRegularFileForRead(const std::string& path, uint64_t max_bytes,
                                              const std::string& kind = "", FileTrust trust = FileTrust::kAnyone);

// Reads a whole regular file (opened by OpenRegularFileForRead).
// Internal ("cannot allocate N bytes to read 'path'") when its bytes cannot
// be allocated.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                             uint64_t max_bytes = uint64_t{1} << 32,
                                             const std::string& kind = "",
                                             FileTrust trust = FileTrust::kAnyone);

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
// and a rename, so readers never see a half-written file. The temporary
// name is random and created exclusively (O_EXCL, O_NOFOLLOW): nothing
// planted at it is followed or overwritten; the rename replaces a link at
// `path` itself, never its target. kOwner: the file is 0600.
Status WriteFileAtomic(const std::string& path, const void* data, size_t size,
                       FileTrust trust = FileTrust::kAnyone);

// True when something (of any kind) exists at path; nothing is opened.
bool PathExists(const std::string& path);

// True when path names an existing directory.
bool IsDirectory(const std::string& path);

// Creates a directory and its parents (like mkdir -p). kOwner: the folders
// it creates are 0700, and `path` must then be a folder (not a link to one)
// that CheckOwnedByUser accepts.
Status CreateDirectories(const std::string& path, FileTrust trust = FileTrust::kAnyone);

}  // namespace gld
