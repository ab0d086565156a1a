#include "gl/codegen/phwc4.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "util/half.h"

namespace gld::gl {

std::string Bhwc::ToString() const {
  return "BHWC[" + std::to_string(b) + ", " + std::to_string(h) + ", " + std::to_string(w) +
         ", " + std::to_string(c) + "]";
}

StatusOr<Bhwc> ToBhwc(const Shape& shape) {
  for (int32_t d : shape) {
    if (d < 0) return InvalidArgumentError("shape " + ShapeToString(shape) + " has a negative dimension");
  }
  Bhwc s;
  switch (shape.size()) {
    case 0: break;
    case 1: s.c = shape[0]; break;
    case 2: s.b = shape[0]; s.c = shape[1]; break;
    case 3: s.b = shape[0]; s.w = shape[1]; s.c = shape[2]; break;
    case 4: s.b = shape[0]; s.h = shape[1]; s.w = shape[2]; s.c = shape[3]; break;
    default:
      return InvalidArgumentError("shape " + ShapeToString(shape) + " has rank " +
                                  std::to_string(shape.size()) + "; the GPU layout takes rank <= 4");
  }
  return s;
}

int BhwcAxis(int rank, int dim) {
  switch (rank) {
    case 1: return 3;
    case 2: return dim == 0 ? 0 : 3;
    case 3: return dim == 0 ? 0 : dim == 1 ? 2 : 3;
    default: return dim;
  }
}

std::array<int, 4> DimOfBhwcAxis(int rank) {
  std::array<int, 4> m = {-1, -1, -1, -1};
  for (int d = 0; d < rank && d < 4; ++d) m[static_cast<size_t>(BhwcAxis(rank, d))] = d;
  return m;
}

void BhwcToPhwc4(const float* src, const Bhwc& s, float* dst) {
  const int32_t slices = s.slices();
  size_t o = 0;
  for (int32_t b = 0; b < s.b; ++b)
    for (int32_t sl = 0; sl < slices; ++sl)
      for (int32_t h = 0; h < s.h; ++h)
        for (int32_t w = 0; w < s.w; ++w)
          for (int32_t lane = 0; lane < 4; ++lane, ++o) {
            int32_t c = sl * 4 + lane;
            dst[o] = c < s.c ? src[((int64_t{b} * s.h + h) * s.w + w) * s.c + c] : 0.0f;
          }
}

void Phwc4ToBhwc(const float* src, const Bhwc& s, float* dst) {
  const int32_t slices = s.slices();
  size_t o = 0;
  for (int32_t b = 0; b < s.b; ++b)
    for (int32_t sl = 0; sl < slices; ++sl)
      for (int32_t h = 0; h < s.h; ++h)
        for (int32_t w = 0; w < s.w; ++w)
          for (int32_t lane = 0; lane < 4; ++lane, ++o) {
            int32_t c = sl * 4 + lane;
            if (c < s.c) dst[((int64_t{b} * s.h + h) * s.w + w) * s.c + c] = src[o];
          }
}

std::vector<uint8_t> PackVec4s(const std::vector<float>& v, Precision precision) {
  std::vector<uint8_t> out;
  if (precision == Precision::kFp32) {
    out.resize(v.size() * sizeof(float));
    if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
    return out;
  }
  // fp16: a finite constant beyond half's range saturates to +-65504 instead
  // of becoming an infinity: attention masks' -1e9 adders (times a 0 of an
  // unmasked position) would otherwise give 0 * -inf = NaN.
  constexpr float kHalfMax = 65504.0f;
  out.resize(v.size() * sizeof(uint16_t));
  for (size_t i = 0; i < v.size(); ++i) {
    const float x = std::isfinite(v[i]) ? std::min(std::max(v[i], -kHalfMax), kHalfMax) : v[i];
    uint16_t h = FloatToHalf(x);
    std::memcpy(out.data() + 2 * i, &h, 2);  // little-endian: low half first
  }
  return out;
}

}  // namespace gld::gl
