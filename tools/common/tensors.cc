#include "common/tensors.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

#include "common/printable.h"
#include "gldelegate/seeded_values.hpp"

namespace gld::tools {

namespace {
template <typename T>
void Store(std::vector<uint8_t>& out, size_t i, T v) {
  std::memcpy(out.data() + i * sizeof(T), &v, sizeof(T));
}

template <typename T>
double Load(const void* data, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(data) + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}
}  // namespace

StatusOr<std::vector<uint8_t>> MakeRandomInput(const TensorInfo& info, uint64_t seed, int stream) {
  const size_t size = ElementTypeSize(info.type);
  const size_t n = size == 0 ? 0 : info.bytes / size;
  std::vector<uint8_t> out;
  try {
    out.resize(info.bytes);
  } catch (const std::bad_alloc&) {
    return InternalError("cannot allocate " + std::to_string(info.bytes) + " bytes for tensor '" + info.name +
                         "' (random input " + FormatShape(info.shape) + ")");
  }
  for (size_t j = 0; j < n; ++j) {
    const uint64_t z = SeededWord(seed, static_cast<uint64_t>(stream), j);
    const float f = WordToPm1(z);
    const uint64_t small = (z >> 11) % 4;
    switch (info.type) {
      case ElementType::kFloat32: Store<float>(out, j, f); break;
      case ElementType::kFloat16: Store<uint16_t>(out, j, FloatToHalf(f)); break;
      case ElementType::kFloat64: Store<double>(out, j, f); break;
      case ElementType::kBool: out[j] = static_cast<uint8_t>((z >> 11) % 2); break;
      case ElementType::kInt8: Store<int8_t>(out, j, static_cast<int8_t>(small)); break;
      case ElementType::kUInt8: Store<uint8_t>(out, j, static_cast<uint8_t>(small)); break;
      case ElementType::kInt16: Store<int16_t>(out, j, static_cast<int16_t>(small)); break;
      case ElementType::kInt32: Store<int32_t>(out, j, static_cast<int32_t>(small)); break;
      case ElementType::kInt64: Store<int64_t>(out, j, static_cast<int64_t>(small)); break;
      case ElementType::kUnknown: break;
    }
  }
  return out;
}

StatusOr<TensorStats> ComputeStats(ElementType type, const void* data, size_t bytes) {
  const size_t size = ElementTypeSize(type);
  if (size == 0) return UnimplementedError(std::string("no statistics for element type ") + ElementTypeName(type));
  TensorStats s;
  const size_t n = bytes / size;
  double sum = 0;
  s.min = std::numeric_limits<double>::infinity();
  s.max = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    double v = 0;
    switch (type) {
      case ElementType::kFloat32: v = Load<float>(data, i); break;
      case ElementType::kFloat16: {
        uint16_t h;
        std::memcpy(&h, static_cast<const uint8_t*>(data) + 2 * i, 2);
        v = HalfToFloat(h);
        break;
      }
      case ElementType::kFloat64: v = Load<double>(data, i); break;
      case ElementType::kInt8: v = Load<int8_t>(data, i); break;
      case ElementType::kUInt8: v = Load<uint8_t>(data, i); break;
      case ElementType::kBool: v = Load<uint8_t>(data, i) != 0 ? 1 : 0; break;
      case ElementType::kInt16: v = Load<int16_t>(data, i); break;
      case ElementType::kInt32: v = Load<int32_t>(data, i); break;
      case ElementType::kInt64: v = Load<int64_t>(data, i); break;
      case ElementType::kUnknown: break;
    }
    if (std::isnan(v)) {
      ++s.nan;
      continue;
    }
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
    ++s.count;
  }
  if (s.count == 0) {
    s.min = s.max = std::numeric_limits<double>::quiet_NaN();
  }
  s.mean = s.count ? sum / static_cast<double>(s.count) : std::numeric_limits<double>::quiet_NaN();
  return s;
}

std::string FormatShape(const std::vector<int>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string DescribeTensor(const TensorInfo& info) {
  std::ostringstream os;
  os << "'" << Printable(info.name) << "' " << FormatShape(info.shape) << " " << ElementTypeName(info.type);
  // A free dimension (-1): the shapes the input may be resized to.
  if (!info.shape_signature.empty() && info.shape_signature != info.shape) {
    os << " signature " << FormatShape(info.shape_signature);
  }
  const auto& q = info.quantization;
  if (q.scale.size() == 1) {
    os << " q(scale=" << q.scale[0] << ", zero_point=" << (q.zero_point.empty() ? 0 : q.zero_point[0]) << ")";
  } else if (q.scale.size() > 1) {
    os << " q(" << q.scale.size() << " scales on dimension " << q.quantized_dimension << ")";
  }
  return os.str();
}

std::string SanitizeName(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    if (!ok) c = '_';
  }
  if (out.empty()) out = "tensor";
  return out;
}

}  // namespace gld::tools
