// The affine dequantizer shared by the loader, the constant-folding pass and
// the DEQUANTIZE/QUANTIZE kernels, so a weight folded at load time and the
// same weight dequantized at run time are the same float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gld {

// Scales and zero points of an affine quantization, per tensor (channels 1)
// or per channel along a dimension whose every step spans `inner` elements.
struct AffineQuantization {
  const float* scale = nullptr;         // `channels` values
  const int64_t* zero_point = nullptr;  // `channels` values, or nullptr for all zero
  int64_t channels = 1;
  int64_t inner = 1;
};

// out[i] = (src[i] - zero_point) * scale for i in [begin, end), src[] being
// values of type Q at any alignment (a buffer inside a model file may sit at
// an odd address).
//
// The difference and the product are taken in double and rounded to float
// once. For int8, uint8 and int16 values the difference is exact in float as
// well, and both ways give the correctly rounded product of the same two
// numbers, so this matches LiteRT's float arithmetic bit for bit; for int32
// values, whose difference may not fit float's 24-bit mantissa, the double
// keeps it exact (LiteRT's per-tensor reference also multiplies in double).
template <typename Q>
void DequantizeAffine(const void* src, int64_t begin, int64_t end, const AffineQuantization& q, float* out) {
  if (begin >= end) return;
  const auto* bytes = static_cast<const uint8_t*>(src);
  // Run by run of values sharing one channel (the whole range per tensor):
  // the channel's scale and zero point once per run, and no division per
  // value to find its channel.
  const bool per_channel = q.channels != 1;
  size_t c = per_channel ? static_cast<size_t>((begin / q.inner) % q.channels) : 0;
  int64_t run = per_channel ? q.inner - begin % q.inner : end - begin;  // values left in c's run
  for (int64_t i = begin; i < end;) {
    const int64_t n = run < end - i ? run : end - i;
    // In double, not int64: a model's zero point may be any int64 (a corrupt
    // file's near INT64_MIN), where the integer difference would overflow.
    // For zero points below 2^53 in magnitude both are the exact difference
    // rounded once.
    const double zp = q.zero_point == nullptr ? 0.0 : static_cast<double>(q.zero_point[c]);
    const double scale = static_cast<double>(q.scale[c]);
    const uint8_t* from = bytes + static_cast<size_t>(i) * sizeof(Q);
    float* to = out + i;
    for (int64_t k = 0; k < n; ++k) {
      Q value;
      std::memcpy(&value, from + static_cast<size_t>(k) * sizeof(Q), sizeof(Q));
      to[k] = static_cast<float>((static_cast<double>(value) - zp) * scale);
    }
    i += n;
    if (per_channel) {
      c = c + 1 == static_cast<size_t>(q.channels) ? 0 : c + 1;
      run = q.inner;
    }
  }
}

}  // namespace gld
