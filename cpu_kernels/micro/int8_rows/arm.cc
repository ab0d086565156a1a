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

// The 256-byte table in 16 registers; TBL gives 0 and TBX keeps the lane
// for an index past its 64 bytes, so four lookups of index - 64 q take the
// entry from the quarter that holds it.
int64_t TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y) {
  const int8x16x4_t t0 = vld1q_s8_x4(table), t1 = vld1q_s8_x4(table + 64);
  const int8x16x4_t t2 = vld1q_s8_x4(table + 128), t3 = vld1q_s8_x4(table + 192);
  const uint8x16_t quarter = vdupq_n_u8(64);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t index = vreinterpretq_u8_s8(vld1q_s8(x + i));  // table[uint8_t(x)]
    int8x16_t v = vqtbl4q_s8(t0, index);
    index = vsubq_u8(index, quarter);
    v = vqtbx4q_s8(v, t1, index);
    index = vsubq_u8(index, quarter);
    v = vqtbx4q_s8(v, t2, index);
    index = vsubq_u8(index, quarter);
    v = vqtbx4q_s8(v, t3, index);
    vst1q_s8(y + i, v);
  }
  return i;
}

void SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums) {
  if (inner == 1) {  // contiguous rows: bytes added in pairs, then into int32 lanes
    for (int64_t o = 0; o < outer; ++o) {
      const int8_t* row = x + o * reduced;
      int32x4_t acc = vdupq_n_s32(0);
      int64_t r = 0;
      for (; r + 16 <= reduced; r += 16) acc = vpadalq_s16(acc, vpaddlq_s8(vld1q_s8(row + r)));
      int32_t sum = vaddvq_s32(acc);
      for (; r < reduced; ++r) sum += row[r];
      sums[o] = sum;
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o) {
    int32_t* s = sums + o * inner;
    const int8_t* block = x + o * reduced * inner;
    int64_t i = 0;
    for (; i + 16 <= inner; i += 16) {  // 16 columns in four int32 vectors
      int32x4_t acc[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
      for (int64_t r = 0; r < reduced; ++r) {
        const int8x16_t v = vld1q_s8(block + r * inner + i);
        const int16x8_t lo = vmovl_s8(vget_low_s8(v)), hi = vmovl_high_s8(v);
        acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));
        acc[1] = vaddw_high_s16(acc[1], lo);
        acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));
        acc[3] = vaddw_high_s16(acc[3], hi);
      }
      for (int q = 0; q < 4; ++q) vst1q_s32(s + i + 4 * q, acc[q]);
    }
    for (; i < inner; ++i) {
      int32_t sum = 0;
      for (int64_t r = 0; r < reduced; ++r) sum += block[r * inner + i];
      s[i] = sum;
    }
  }
}

// nearbyint(clamp(float(sum) x scale + bias)): the product and the sum
// rounded apart (no fused multiply-add), as the portable loop.
int64_t MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y) {
  const float32x4_t vs = vdupq_n_f32(scale), vb = vdupq_n_f32(bias);
  const float32x4_t lo = vdupq_n_f32(-128.f), hi = vdupq_n_f32(127.f);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    int32x4_t q[2];
    for (int h = 0; h < 2; ++h) {
      float32x4_t v = vaddq_f32(vmulq_f32(vcvtq_f32_s32(vld1q_s32(sums + j + 4 * h)), vs), vb);
      q[h] = vcvtnq_s32_f32(vminq_f32(vmaxq_f32(v, lo), hi));  // half to even
    }
    vst1_s8(y + j, vmovn_s16(vcombine_s16(vmovn_s32(q[0]), vmovn_s32(q[1]))));
  }
  return j;
}

}  // namespace gld::cpu::int8_rows_arm
#endif
