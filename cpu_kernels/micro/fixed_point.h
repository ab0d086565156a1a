// TFLite's fixed-point requantization arithmetic (gemmlowp's rounding
// doubling high multiply, rounding right shift, and the multiplier and shift
// a real factor is encoded as), for the integer kernels that reproduce
// LiteRT's builtin int8 kernels (integer_ops.cc). Written from the formulas
// TFLite documents: a real multiplier m is q x 2^shift with q in [0.5, 1)
// held as round(q x 2^31); x x m is SaturatingRoundingDoublingHighMul(x x
// 2^max(shift,0), q) then a rounding (half away from zero) right shift by
// max(-shift, 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace gld::cpu::fixed_point {

// (a x b x 2) / 2^32 rounded to nearest (positive ties up, negative ones
// toward zero: gemmlowp's nudge), saturated for the one overflowing case
// (INT32_MIN squared).
inline int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero (exponent 0..31).
inline int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x x 2^left wrapping as two's complement int32 arithmetic does.
inline int32_t ShiftLeftWrapping(int32_t x, int left) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) << left);
}

// TFLite's MultiplyByQuantizedMultiplier (double rounding): shift > 0 is a
// left shift before the multiply, shift < 0 a rounding right shift after.
inline int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(ShiftLeftWrapping(x, left), multiplier), right);
}

// TFLite's QuantizeMultiplier: m = q x 2^shift, q in [0.5, 1) as
// round(q x 2^31) (ties away from zero); 0 for m == 0 or a shift below -31.
inline void QuantizeMultiplier(double m, int32_t* multiplier, int* shift) {
  if (m == 0.0) {
    *multiplier = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(m, shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (q_fixed == (int64_t{1} << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *multiplier = static_cast<int32_t>(q_fixed);
}

// v rounded half to even, for |v| < 2^22 (XNNPACK's "magic bias": adding
// 1.5 x 2^23 leaves no fraction bits, so the float addition rounds in the
// default mode); inline arithmetic instead of a nearbyint call.
inline int32_t RoundHalfEvenSmall(float v) {
  constexpr float kMagic = 12582912.f;
  return static_cast<int32_t>((v + kMagic) - kMagic);
}

}  // namespace gld::cpu::fixed_point
