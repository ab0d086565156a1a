// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
// Supported: C order, little-endian (or single-byte) float32, float16,
// float64, int8, int16, int32, int64, uint8 and bool arrays. Anything else
// (Fortran order, big-endian, other or structured dtypes, a truncated file)
// is an error that names the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "gldelegate/status.hpp"

namespace gld {

struct NpyArray {
  ElementType type = ElementType::kUnknown;
  std::vector<int> shape;     // empty for a scalar
  std::vector<uint8_t> data;  // little-endian, C order

  size_t num_elements() const;
};

// Parses .npy bytes; `name` (usually the path) is used in error messages.
StatusOr<NpyArray> ParseNpy(const void* bytes, size_t size, const std::string& name);
StatusOr<NpyArray> ReadNpy(const std::string& path);

// Serializes `array` (format 1.0, or 2.0 when the header needs it). Fails when
// data.size() does not match the shape and type.
StatusOr<std::vector<uint8_t>> EncodeNpy(const NpyArray& array);
Status WriteNpy(const std::string& path, const NpyArray& array);

}  // namespace gld
