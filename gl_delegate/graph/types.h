// Basic IR value types: data types, shapes, quantization and sparsity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gldelegate/types.hpp"

namespace gld {

enum class DataType : uint8_t {
  kUnknown = 0,
  kFloat32,
  kFloat16,
  kFloat64,
  kInt8,
  kUInt8,
  kInt16,
  kInt32,
  kInt64,
  kBool,
};

// Bytes per element; 0 for kUnknown.
size_t DataTypeSize(DataType type);
// "float32", "int8", ...
const char* DataTypeName(DataType type);

// Dimensions, outermost first (TFLite's order: BHWC for 4-D activations).
using Shape = std::vector<int32_t>;

// Product of the dimensions (1 for a scalar). Callers validate shapes first;
// see ShapeIsValid.
int64_t NumElements(const Shape& shape);
// True when every dimension is >= 0 and the element count fits in
// max_elements without overflow.
bool ShapeIsValid(const Shape& shape, int64_t max_elements = (int64_t{1} << 40));
// "[1, 224, 224, 3]"
std::string ShapeToString(const Shape& shape);

// Affine quantization: real = scale * (q - zero_point). One entry for
// per-tensor quantization, one per slice of `quantized_dimension` otherwise.
struct QuantizationParams {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;
  // The integer type the values are stored in, as the model file declares it
  // (kInt8, kUInt8, kInt16, ...). It stays when a pass turns the tensor into
  // a float32 "float view" of the same values; kUnknown when nobody said.
  DataType storage_type = DataType::kUnknown;
  bool empty() const { return scale.empty(); }
};

// The integer grid a quantized tensor's values lie on: the tensor's own type
// when it is an integer type, else storage_type when that is one, else (a float
// view built without a storage type) int8 unless a zero point only fits uint8.
DataType QuantizedGridType(const QuantizationParams& quant, DataType tensor_type);
// [lo, hi] of an integer type; false for non-integer types.
bool IntegerTypeRange(DataType type, int64_t* lo, int64_t* hi);

// TFLite sparse tensor encoding (DENSIFY input), kept as read from the file.
struct SparseDimension {
  bool sparse_csr = false;           // false: DENSE
  int32_t dense_size = 0;            // DENSE only
  std::vector<int32_t> array_segments;  // SPARSE_CSR only
  std::vector<int32_t> array_indices;   // SPARSE_CSR only
};
struct SparsityParams {
  std::vector<int32_t> traversal_order;
  std::vector<int32_t> block_map;
  std::vector<SparseDimension> dim_metadata;
};

// The public API's element type of a DataType, and back.
ElementType ToElementType(DataType type);
DataType FromElementType(ElementType type);

}  // namespace gld
