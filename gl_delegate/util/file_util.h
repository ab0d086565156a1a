// Small file helpers with Status errors that name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"

namespace gld {

// Reads a whole file. NotFound when it cannot be opened; InvalidArgument when
// it is a directory or larger than max_bytes (checked before reading).
// Messages name the file as `kind` 'path' ("model file '/x.tflite'"), or as
// 'path' when kind is empty.
StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path,
                                             uint64_t max_bytes = uint64_t{1} << 32,
                                             const std::string& kind = "");

// Writes `size` bytes to `path` through a temporary file in the same folder
// and a rename, so readers never see a half-written file.
Status WriteFileAtomic(const std::string& path, const void* data, size_t size);

// True when path names an existing directory.
bool IsDirectory(const std::string& path);

// Creates a directory and its parents (like mkdir -p).
Status CreateDirectories(const std::string& path);

}  // namespace gld
