// The ARM form of the int8 rows (int8_rows.h): AArch64 NEON loops (every
// AArch64 CPU has NEON), 8 values a step, each as its portable loop in
// int8_rows.cc computes it. Compiled on every build; empty where
// GLD_INT8_ROWS_NEON is not defined (variants.h).
//
// gemmlowp's fixed point maps onto NEON one to one: SQRDMULH is
// SaturatingRoundingDoublingHighMul (round((2 a b) / 2^32), INT32_MIN squared
// saturated), and a rounding right shift by e (SRSHL by -e, which adds
// 2^(e-1) first, in a wider precision) rounds ties away from zero once a
// negative x is made x - 1 (a saturating add of its sign, only where e > 0).
#include <cstring>

#include "cpu_kernels/micro/int8_rows/variants.h"

#ifdef GLD_INT8_ROWS_NEON
namespace gld::cpu::int8_rows_arm {

namespace {

inline int32x4_t RoundingDivideByPOT(int32x4_t x, int exponent) {
  const int32x4_t shift = vdupq_n_s32(-exponent);
  const int32x4_t fixup = vshrq_n_s32(vandq_s32(x, shift), 31);  // -1 for x < 0 when exponent > 0
  return vrshlq_s32(vqaddq_s32(x, fixup), shift);
}

inline int32x4_t MultiplyByQuantizedMultiplier(int32x4_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const int32x4_t shifted = vshlq_s32(x, vdupq_n_s32(left));  // wraps, as ShiftLeftWrapping
  return RoundingDivideByPOT(vqrdmulhq_s32(shifted, vdupq_n_s32(multiplier)), right);
}

// 8 int8 values of an operand with stride 0 or 1, as two int32 vectors.
inline void Load8(const int8_t* p, int64_t stride, int32x4_t* lo, int32x4_t* hi) {
  if (stride == 0) {
    *lo = *hi = vdupq_n_s32(p[0]);
    return;
  }
  const int16x8_t v = vmovl_s8(vld1_s8(p));
  *lo = vmovl_s16(vget_low_s16(v));
  *hi = vmovl_s16(vget_high_s16(v));
}

// (bias + x a_mult + y b_mult) >> shift on int64 lanes, truncated to int32.
inline int32x4_t XnnAdd(int32x4_t x, int32x4_t y, const Int8BinaryParams& p) {
  const int64x2_t bias = vdupq_n_s64(p.xnn_bias), shift = vdupq_n_s64(-p.out_shift);
  const int32x2_t am = vdup_n_s32(p.a_mult), bm = vdup_n_s32(p.b_mult);
  int64x2_t lo = vmlal_s32(vmlal_s32(bias, vget_low_s32(x), am), vget_low_s32(y), bm);
  int64x2_t hi = vmlal_s32(vmlal_s32(bias, vget_high_s32(x), am), vget_high_s32(y), bm);
  return vcombine_s32(vmovn_s64(vshlq_s64(lo, shift)), vmovn_s64(vshlq_s64(hi, shift)));
}

// An operand on the common scale (its table's entries, computed).
inline int32x4_t Scaled(int32x4_t v, int32_t offset, int left_shift, int32_t multiplier, int shift) {
  return MultiplyByQuantizedMultiplier(vshlq_s32(vaddq_s32(v, vdupq_n_s32(offset)), vdupq_n_s32(left_shift)),
                                       multiplier, shift);
}

// One output vector (4 lanes) of kind K, the output offset added, before
// the clamp (kXnnMul: clamped already, in float).
template <Int8BinaryKind K>
inline int32x4_t Apply(const Int8BinaryParams& p, int32x4_t x, int32x4_t y) {
  if constexpr (K == Int8BinaryKind::kXnnAdd || K == Int8BinaryKind::kXnnSub) {
    return vaddq_s32(XnnAdd(x, y, p), vdupq_n_s32(p.out_offset));
  } else if constexpr (K == Int8BinaryKind::kXnnMul || K == Int8BinaryKind::kMul) {
    const int32x4_t product = vmulq_s32(vaddq_s32(x, vdupq_n_s32(p.a_offset)), vaddq_s32(y, vdupq_n_s32(p.b_offset)));
    if constexpr (K == Int8BinaryKind::kMul) {
      return vaddq_s32(MultiplyByQuantizedMultiplier(product, p.out_mult, p.out_shift), vdupq_n_s32(p.out_offset));
    } else {
      float32x4_t f = vmulq_f32(vcvtq_f32_s32(product), vdupq_n_f32(p.xnn_scale));
      f = vminq_f32(vmaxq_f32(f, vdupq_n_f32(static_cast<float>(p.lo - p.out_offset))),
                    vdupq_n_f32(static_cast<float>(p.hi - p.out_offset)));
      return vaddq_s32(vcvtnq_s32_f32(f), vdupq_n_s32(p.out_offset));  // half to even
    }
  } else {
    const int32x4_t sx = Scaled(x, p.a_offset, p.left_shift, p.a_mult, p.a_shift);
    const int32x4_t sy = Scaled(y, p.b_offset, p.left_shift, p.b_mult, p.b_shift);
    int32x4_t combined;
    if constexpr (K == Int8BinaryKind::kAdd) combined = vaddq_s32(sx, sy);
    if constexpr (K == Int8BinaryKind::kSub) combined = vsubq_s32(sx, sy);
    if constexpr (K == Int8BinaryKind::kSquaredDifference) combined = vmulq_s32(vsubq_s32(sx, sy), vsubq_s32(sx, sy));
    return vaddq_s32(MultiplyByQuantizedMultiplier(combined, p.out_mult, p.out_shift), vdupq_n_s32(p.out_offset));
  }
}

template <Int8BinaryKind K>
int64_t BinaryRun8(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                   int64_t n) {
  const int32x4_t lo = vdupq_n_s32(p.lo), hi = vdupq_n_s32(p.hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    int32x4_t a0, a1, b0, b1;
    Load8(a + i * sa, sa, &a0, &a1);
    Load8(b + i * sb, sb, &b0, &b1);
    int32x4_t q0 = Apply<K>(p, a0, b0), q1 = Apply<K>(p, a1, b1);
    if constexpr (K != Int8BinaryKind::kXnnMul) {
      q0 = vminq_s32(vmaxq_s32(q0, lo), hi);
      q1 = vminq_s32(vmaxq_s32(q1, lo), hi);
    }
    vst1_s8(y + i, vmovn_s16(vcombine_s16(vmovn_s32(q0), vmovn_s32(q1))));
  }
  return i;
}

}  // namespace

void MultiplyRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_s32(y + i, MultiplyByQuantizedMultiplier(vld1q_s32(x + i), multiplier, shift));
  if (i < n) {  // the last 1-3 values through a full vector
    int32_t in[4] = {}, out[4];
    std::memcpy(in, x + i, static_cast<size_t>(n - i) * sizeof(int32_t));
    vst1q_s32(out, MultiplyByQuantizedMultiplier(vld1q_s32(in), multiplier, shift));
    std::memcpy(y + i, out, static_cast<size_t>(n - i) * sizeof(int32_t));
  }
}

int64_t BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                  int64_t n) {
  int64_t done = 0;
  WithKind(p.kind, [&](auto kind) { done = BinaryRun8<decltype(kind)::value>(p, a, sa, b, sb, y, n); });
  return done;
}

}  // namespace gld::cpu::int8_rows_arm
#endif
