#include "graph/types.h"

#include <limits>

namespace gld {

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kFloat32: return 4;
    case DataType::kFloat16: return 2;
    case DataType::kFloat64: return 8;
    case DataType::kInt8: return 1;
    case DataType::kUInt8: return 1;
    case DataType::kInt16: return 2;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kBool: return 1;
    case DataType::kUnknown: return 0;
  }
  return 0;
}

const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kFloat32: return "float32";
    case DataType::kFloat16: return "float16";
    case DataType::kFloat64: return "float64";
    case DataType::kInt8: return "int8";
    case DataType::kUInt8: return "uint8";
    case DataType::kInt16: return "int16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kBool: return "bool";
    case DataType::kUnknown: return "unknown";
  }
  return "unknown";
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

bool ShapeIsValid(const Shape& shape, int64_t max_elements) {
  // (No division: kernels check their buffers' shapes on every run.)
  int64_t n = 1;
  for (int32_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(d), &n) || n > max_elements) return false;
  }
  return n <= max_elements;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

DataType QuantizedGridType(const QuantizationParams& quant, DataType tensor_type) {
  int64_t lo = 0, hi = 0;
  if (IntegerTypeRange(tensor_type, &lo, &hi)) return tensor_type;
  if (IntegerTypeRange(quant.storage_type, &lo, &hi)) return quant.storage_type;
  for (int64_t zp : quant.zero_point) {
    if (zp > 127) return DataType::kUInt8;
  }
  return DataType::kInt8;
}

bool IntegerTypeRange(DataType type, int64_t* lo, int64_t* hi) {
  switch (type) {
    case DataType::kInt8: *lo = -128; *hi = 127; return true;
    case DataType::kUInt8: *lo = 0; *hi = 255; return true;
    case DataType::kInt16: *lo = std::numeric_limits<int16_t>::min(); *hi = std::numeric_limits<int16_t>::max(); return true;
    case DataType::kInt32: *lo = std::numeric_limits<int32_t>::min(); *hi = std::numeric_limits<int32_t>::max(); return true;
    default: return false;
  }
}

ElementType ToElementType(DataType type) {
  switch (type) {
    case DataType::kFloat32: return ElementType::kFloat32;
    case DataType::kFloat16: return ElementType::kFloat16;
    case DataType::kFloat64: return ElementType::kFloat64;
    case DataType::kInt8: return ElementType::kInt8;
    case DataType::kUInt8: return ElementType::kUInt8;
    case DataType::kInt16: return ElementType::kInt16;
    case DataType::kInt32: return ElementType::kInt32;
    case DataType::kInt64: return ElementType::kInt64;
    case DataType::kBool: return ElementType::kBool;
    case DataType::kUnknown: return ElementType::kUnknown;
  }
  return ElementType::kUnknown;
}

DataType FromElementType(ElementType type) {
  switch (type) {
    case ElementType::kFloat32: return DataType::kFloat32;
    case ElementType::kFloat16: return DataType::kFloat16;
    case ElementType::kFloat64: return DataType::kFloat64;
    case ElementType::kInt8: return DataType::kInt8;
    case ElementType::kUInt8: return DataType::kUInt8;
    case ElementType::kInt16: return DataType::kInt16;
    case ElementType::kInt32: return DataType::kInt32;
    case ElementType::kInt64: return DataType::kInt64;
    case ElementType::kBool: return DataType::kBool;
    case ElementType::kUnknown: return DataType::kUnknown;
  }
  return DataType::kUnknown;
}

}  // namespace gld
