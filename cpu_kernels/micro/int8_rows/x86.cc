// The x86 form of the int8 rows (int8_rows.h): AVX-512 loops, each function
// under GLD_I8V or GLD_I8VBMI (variants.h). Compiled on every build; empty
// where GLD_AVX512 is not defined.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "cpu_kernels/micro/fixed_point.h"
#include "cpu_kernels/micro/int8_rows/variants.h"

#ifdef GLD_INT8_ROWS16
namespace gld::cpu::int8_rows_x86 {

namespace fp = fixed_point;

namespace {

// Lanes [0, n) of 16 (n < 16), or all.
GLD_I8V inline __mmask16 TailMask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << n) - 1);
}

// gemmlowp's SaturatingRoundingDoublingHighMul of each lane of a by m (every
// lane the same multiplier): the exact 64-bit products of the even and of
// the odd lanes; INT32_MIN x INT32_MIN saturates. gemmlowp adds 2^30 to a
// non-negative product p and 1 - 2^30 to a negative one, then divides by
// 2^31 toward zero; for p < 0 that is ceil((p + 1 - 2^30) / 2^31) =
// floor((p + 2^30) / 2^31), so every lane is bits 31..62 of p + 2^30: the
// low half of an even lane's sum shifted right by 31, the high half of an
// odd lane's shifted left by 1.
GLD_I8V inline __m512i DoublingHighMul(__m512i a, __m512i m) {
  const __m512i nudge = _mm512_set1_epi64(int64_t{1} << 30);
  const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(a, m), nudge), 31);
  const __m512i odd_product = _mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(m, 32));
  const __m512i odd = _mm512_slli_epi64(_mm512_add_epi64(odd_product, nudge), 1);
  const __m512i r = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), even, odd);
  const __m512i int_min = _mm512_set1_epi32(std::numeric_limits<int32_t>::min());
  const __mmask16 both_min = _mm512_cmpeq_epi32_mask(a, int_min) & _mm512_cmpeq_epi32_mask(m, int_min);
  return _mm512_mask_mov_epi32(r, both_min, _mm512_set1_epi32(std::numeric_limits<int32_t>::max()));
}

// x / 2^exponent rounded half away from zero (fixed_point.h's
// RoundingDivideByPOT), exponent 0..31.
GLD_I8V inline __m512i RoundingDivideByPOT(__m512i x, int exponent) {
  const __m512i mask = _mm512_set1_epi32(static_cast<int32_t>((int64_t{1} << exponent) - 1));
  const __m512i remainder = _mm512_and_si512(x, mask);
  const __mmask16 negative = _mm512_cmplt_epi32_mask(x, _mm512_setzero_si512());
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i half = _mm512_srai_epi32(mask, 1);
  const __m512i threshold = _mm512_mask_add_epi32(half, negative, half, one);
  const __m512i shifted = _mm512_sra_epi32(x, _mm_cvtsi32_si128(exponent));
  return _mm512_mask_add_epi32(shifted, _mm512_cmpgt_epi32_mask(remainder, threshold), shifted, one);
}

GLD_I8V inline __m512i MultiplyByQuantizedMultiplier(__m512i x, __m512i multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return RoundingDivideByPOT(DoublingHighMul(_mm512_sll_epi32(x, _mm_cvtsi32_si128(left)), multiplier), right);
}

GLD_I8V void MultiplyByQuantizedMultiplierRow16(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier,
                                                int shift) {
  const __m512i m = _mm512_set1_epi32(multiplier);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = TailMask(n - i);
    _mm512_mask_storeu_epi32(y + i, k, MultiplyByQuantizedMultiplier(_mm512_maskz_loadu_epi32(k, x + i), m, shift));
  }
}

// 16 int8 values of an operand with stride 0 or 1, as int32 lanes.
GLD_I8V inline __m512i LoadInt8(const int8_t* p, int64_t stride, __mmask16 k) {
  if (stride == 0) return _mm512_set1_epi32(p[0]);
  return _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, p));
}

// An operand's values on the common scale (its table's entries, computed:
// MultiplyByQuantizedMultiplier((x + offset) x 2^left_shift, its
// multiplier)) of 16 int8 values; a broadcast one from the table.
GLD_I8V inline __m512i Scaled(const int32_t* table, const int8_t* p, int64_t stride, __mmask16 k, int32_t offset,
                              int left_shift, int32_t multiplier, int shift) {
  if (stride == 0) return _mm512_set1_epi32(table[static_cast<uint8_t>(p[0])]);
  const __m512i v = _mm512_add_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, p)), _mm512_set1_epi32(offset));
  return MultiplyByQuantizedMultiplier(_mm512_sll_epi32(v, _mm_cvtsi32_si128(left_shift)),
                                       _mm512_set1_epi32(multiplier), shift);
}

// (bias + x a_mult + y b_mult) >> shift on 8 int64 lanes of 8 int32 values.
GLD_I8V inline __m256i XnnAddHalf(__m256i x, __m256i y, const Int8BinaryParams& p) {
  __m512i acc = _mm512_set1_epi64(p.xnn_bias);
  acc = _mm512_add_epi64(acc, _mm512_mul_epi32(_mm512_cvtepi32_epi64(x), _mm512_set1_epi64(p.a_mult)));
  acc = _mm512_add_epi64(acc, _mm512_mul_epi32(_mm512_cvtepi32_epi64(y), _mm512_set1_epi64(p.b_mult)));
  return _mm512_cvtepi64_epi32(_mm512_sra_epi64(acc, _mm_cvtsi32_si128(p.out_shift)));
}

template <Int8BinaryKind K>
GLD_I8V void BinaryRun16(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                         int64_t n) {
  const __m512i a_offset = _mm512_set1_epi32(p.a_offset), b_offset = _mm512_set1_epi32(p.b_offset);
  const __m512i out_offset = _mm512_set1_epi32(p.out_offset);
  const __m512i lo = _mm512_set1_epi32(p.lo), hi = _mm512_set1_epi32(p.hi);
  const __m512i out_mult = _mm512_set1_epi32(p.out_mult);
  const __m512 xnn_scale = _mm512_set1_ps(p.xnn_scale);
  const __m512 xnn_lo = _mm512_set1_ps(static_cast<float>(p.lo - p.out_offset));
  const __m512 xnn_hi = _mm512_set1_ps(static_cast<float>(p.hi - p.out_offset));
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = TailMask(n - i);
    const int8_t* pa = a + i * sa;
    const int8_t* pb = b + i * sb;
    __m512i q;
    if constexpr (K == Int8BinaryKind::kXnnAdd || K == Int8BinaryKind::kXnnSub) {
      const __m512i x = LoadInt8(pa, sa, k), v = LoadInt8(pb, sb, k);
      const __m256i low = XnnAddHalf(_mm512_castsi512_si256(x), _mm512_castsi512_si256(v), p);
      const __m256i high = XnnAddHalf(_mm512_extracti64x4_epi64(x, 1), _mm512_extracti64x4_epi64(v, 1), p);
      q = _mm512_add_epi32(_mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1), out_offset);
    } else if constexpr (K == Int8BinaryKind::kXnnMul) {
      const __m512i product = _mm512_mullo_epi32(_mm512_add_epi32(LoadInt8(pa, sa, k), a_offset),
                                                 _mm512_add_epi32(LoadInt8(pb, sb, k), b_offset));
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(product), xnn_scale);
      f = _mm512_min_ps(_mm512_max_ps(f, xnn_lo), xnn_hi);
      q = _mm512_add_epi32(_mm512_cvtps_epi32(f), out_offset);  // half to even: the default rounding
    } else if constexpr (K == Int8BinaryKind::kMul) {
      const __m512i product = _mm512_mullo_epi32(_mm512_add_epi32(LoadInt8(pa, sa, k), a_offset),
                                                 _mm512_add_epi32(LoadInt8(pb, sb, k), b_offset));
      q = _mm512_add_epi32(MultiplyByQuantizedMultiplier(product, out_mult, p.out_shift), out_offset);
    } else {
      const __m512i sx = Scaled(p.a_scaled, pa, sa, k, p.a_offset, p.left_shift, p.a_mult, p.a_shift);
      const __m512i sy = Scaled(p.b_scaled, pb, sb, k, p.b_offset, p.left_shift, p.b_mult, p.b_shift);
      __m512i combined;
      if constexpr (K == Int8BinaryKind::kAdd) combined = _mm512_add_epi32(sx, sy);
      if constexpr (K == Int8BinaryKind::kSub) combined = _mm512_sub_epi32(sx, sy);
      if constexpr (K == Int8BinaryKind::kSquaredDifference) {
        const __m512i d = _mm512_sub_epi32(sx, sy);
        combined = _mm512_mullo_epi32(d, d);
      }
      q = _mm512_add_epi32(MultiplyByQuantizedMultiplier(combined, out_mult, p.out_shift), out_offset);
    }
    if constexpr (K != Int8BinaryKind::kXnnMul) q = _mm512_min_epi32(_mm512_max_epi32(q, lo), hi);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, k, q);
  }
}

GLD_I8V void BinaryRunVector(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb,
                             int8_t* y, int64_t n) {
  WithKind(p.kind, [&](auto kind) { BinaryRun16<decltype(kind)::value>(p, a, sa, b, sb, y, n); });
}

// std::round (half away from zero) of each lane: the truncation, plus one
// toward the sign where the dropped fraction is at least a half (exact:
// v - trunc(v) has no rounding).
GLD_I8V inline __m512 RoundHalfAway(__m512 v) {
  const __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512 fraction = _mm512_sub_ps(v, t);
  const __m512i sign_bit = _mm512_set1_epi32(std::numeric_limits<int32_t>::min());
  const __m512 abs_fraction = _mm512_castsi512_ps(_mm512_andnot_si512(sign_bit, _mm512_castps_si512(fraction)));
  const __m512 step = _mm512_castsi512_ps(
      _mm512_or_si512(_mm512_castps_si512(_mm512_set1_ps(1.f)), _mm512_and_si512(sign_bit, _mm512_castps_si512(v))));
  const __mmask16 up = _mm512_cmp_ps_mask(abs_fraction, _mm512_set1_ps(0.5f), _CMP_GE_OQ);
  return _mm512_mask_add_ps(t, up, t, step);
}

// v[i] = byte i of each of the 16 input vectors (a 16 x 16 byte transpose):
// four rounds of interleaving vector i with vector i + 8.
GLD_I8V inline void Transpose16x16(__m128i* v) {
  __m128i t[16];
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm_unpacklo_epi8(v[i], v[i + 8]);
      t[2 * i + 1] = _mm_unpackhi_epi8(v[i], v[i + 8]);
    }
    for (int i = 0; i < 16; ++i) v[i] = t[i];
  }
}

// 16 rows at a time, one per lane: the rows' values transposed into
// columns (16 x 16 byte tiles), the maximum, the sum of the table's
// exponentials in the rows' order (the portable loop's float additions,
// lane by lane), each probability, and the columns transposed back.
GLD_I8V void SoftmaxRowsVector(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y,
                               std::vector<int8_t>* columns, std::vector<float>* exps) {
  const int64_t n16 = (n + 15) / 16 * 16;
  columns->resize(static_cast<size_t>(16 * n16));
  exps->resize(static_cast<size_t>(16 * n));
  int8_t* col = columns->data();  // [n16][16 lanes]
  float* e = exps->data();
  const __m512 out_scale = _mm512_set1_ps(p.out_scale);
  const __m512i zp = _mm512_set1_epi32(p.out_zero_point);
  const __m512i lo = _mm512_set1_epi32(-128), hi = _mm512_set1_epi32(127);
  const __m512 limit = _mm512_set1_ps(1024.f);  // past the clamp either way; keeps the conversion defined
  __m128i v[16];
  for (int64_t r0 = 0; r0 < rows; r0 += 16) {
    const int64_t lanes = std::min<int64_t>(16, rows - r0);
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
      const __mmask16 mask = TailMask(n - j0);
      for (int64_t l = 0; l < 16; ++l) {
        v[l] = l < lanes ? _mm_maskz_loadu_epi8(mask, x + (r0 + l) * n + j0) : _mm_setzero_si128();
      }
      Transpose16x16(v);
      for (int64_t c = 0; c < 16; ++c) _mm_storeu_si128(reinterpret_cast<__m128i*>(col + (j0 + c) * 16), v[c]);
    }
    __m512i max = _mm512_set1_epi32(-128);
    for (int64_t j = 0; j < n; ++j) {
      max =
          _mm512_max_epi32(max, _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(col + j * 16))));
    }
    const __m512i base = _mm512_sub_epi32(_mm512_set1_epi32(255), max);
    __m512 sum = _mm512_setzero_ps();
    for (int64_t j = 0; j < n; ++j) {
      const __m512i value = _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(col + j * 16)));
      const __m512 ex = _mm512_i32gather_ps(_mm512_add_epi32(base, value), p.table, 4);
      _mm512_storeu_ps(e + j * 16, ex);
      sum = _mm512_add_ps(sum, ex);
    }
    const __m512 inv = _mm512_div_ps(_mm512_set1_ps(1.f), _mm512_mul_ps(sum, out_scale));
    for (int64_t j = 0; j < n; ++j) {
      __m512 q = RoundHalfAway(_mm512_mul_ps(_mm512_loadu_ps(e + j * 16), inv));
      q = _mm512_min_ps(q, limit);
      const __m512i qi = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(q), zp), lo), hi);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(col + j * 16), _mm512_cvtepi32_epi8(qi));
    }
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
      const __mmask16 mask = TailMask(n - j0);
      for (int64_t c = 0; c < 16; ++c) v[c] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + (j0 + c) * 16));
      Transpose16x16(v);
      for (int64_t l = 0; l < lanes; ++l) _mm_mask_storeu_epi8(y + (r0 + l) * n + j0, mask, v[l]);
    }
  }
}

// The requantization of 16 int32 sums.
GLD_I8V inline __m512i RequantizeMatMul16(const Int8MatMulParams& p, __m512i acc) {
  const __m512i zp = _mm512_set1_epi32(p.out_zero_point);
  __m512i q;
  if (p.b_zero_point == 0) {
    __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_set1_ps(p.xnn_scale));
    f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(-128.f - p.out_zero_point)),
                      _mm512_set1_ps(127.f - p.out_zero_point));
    q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
  } else {
    q = _mm512_add_epi32(MultiplyByQuantizedMultiplier(acc, _mm512_set1_epi32(p.mult), p.shift), zp);
  }
  return _mm512_min_epi32(_mm512_max_epi32(q, _mm512_set1_epi32(-128)), _mm512_set1_epi32(127));
}

// n int8 values less zp as int16, zeros from n up to `padded` (a multiple
// of 16).
GLD_I8V inline void WidenRow(const int8_t* src, int64_t n, int32_t zp, int16_t* dst, int64_t padded) {
  const __m256i z = _mm256_set1_epi16(static_cast<int16_t>(zp));
  for (int64_t i = 0; i < padded; i += 16) {
    const __mmask16 k = i < n ? TailMask(n - i) : static_cast<__mmask16>(0);
    const __m256i v = _mm256_cvtepi8_epi16(_mm_maskz_loadu_epi8(k, src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_maskz_sub_epi16(k, v, z));
  }
}

// VPDPWSSD: the second operand packed as int16 pairs [k / 2][n rounded up
// to 16][2] (zero past k and n), the first as rows of k int16 (zero past k,
// `kp` apart); each output row's 16-column blocks sum k / 2 pair products
// per lane (one pair of the row broadcast), exactly as the int32 dot
// products. Rows contiguous in memory pack 16 values at a time (the
// second operand's two rows interleaved by VPERMT2W), others value by
// value.
GLD_I8V void MatMulVector(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w,
                          int8_t* y, std::vector<int16_t>* scratch) {
  const int64_t m = s.m, k = s.k, n = s.n;
  const int64_t k2 = (k + 1) / 2, n16 = (n + 15) / 16 * 16, kp = (k + 15) / 16 * 16;
  const size_t size = static_cast<size_t>(m * kp + 2 * k2 * n16);
  if (s.a_stride_k == 1 && s.b_stride_n == 1) {
    scratch->resize(size);
  } else {
    scratch->assign(size, 0);
  }
  int16_t* xs = scratch->data();  // [m][kp]
  int16_t* ws = xs + m * kp;      // [k2][n16][2]
  for (int64_t i = 0; i < m; ++i) {
    if (s.a_stride_k == 1) {
      WidenRow(x + i * s.a_stride_m, k, p.a_zero_point, xs + i * kp, kp);
      continue;
    }
    for (int64_t t = 0; t < k; ++t) {
      xs[i * kp + t] = static_cast<int16_t>(x[i * s.a_stride_m + t * s.a_stride_k] - p.a_zero_point);
    }
  }
  if (s.b_stride_n == 1) {
    alignas(64) int16_t interleave[32];
    for (int i = 0; i < 32; ++i) interleave[i] = static_cast<int16_t>(i / 2 + (i % 2) * 32);
    const __m512i index = _mm512_load_si512(interleave);
    const __m256i zp = _mm256_set1_epi16(static_cast<int16_t>(p.b_zero_point));
    for (int64_t t2 = 0; t2 < k2; ++t2) {
      const int8_t* r0 = w + 2 * t2 * s.b_stride_k;
      const bool has_r1 = 2 * t2 + 1 < k;
      for (int64_t j0 = 0; j0 < n16; j0 += 16) {
        const __mmask16 mask = TailMask(n - j0);
        const __m256i v0 = _mm256_maskz_sub_epi16(mask, _mm256_cvtepi8_epi16(_mm_maskz_loadu_epi8(mask, r0 + j0)), zp);
        __m256i v1 = _mm256_setzero_si256();
        if (has_r1) {
          v1 = _mm256_maskz_sub_epi16(mask, _mm256_cvtepi8_epi16(_mm_maskz_loadu_epi8(mask, r0 + s.b_stride_k + j0)),
                                      zp);
        }
        const __m512i pairs = _mm512_permutex2var_epi16(_mm512_castsi256_si512(v0), index, _mm512_castsi256_si512(v1));
        _mm512_storeu_si512(ws + (t2 * n16 + j0) * 2, pairs);
      }
    }
  } else {
    for (int64_t t = 0; t < k; ++t) {
      int16_t* row = ws + (t / 2) * 2 * n16 + (t % 2);
      const int8_t* src = w + t * s.b_stride_k;
      for (int64_t j = 0; j < n; ++j) row[2 * j] = static_cast<int16_t>(src[j * s.b_stride_n] - p.b_zero_point);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    const int16_t* xi = xs + i * kp;
    for (int64_t j0 = 0; j0 < n; j0 += 16) {
      __m512i acc = _mm512_setzero_si512();
      for (int64_t t = 0; t < k2; ++t) {
        int32_t pair = 0;
        std::memcpy(&pair, xi + 2 * t, sizeof(pair));
        acc = _mm512_dpwssd_epi32(acc, _mm512_set1_epi32(pair), _mm512_loadu_si512(ws + (t * n16 + j0) * 2));
      }
      _mm512_mask_cvtepi32_storeu_epi8(y + i * n + j0, TailMask(n - j0), RequantizeMatMul16(p, acc));
    }
  }
}

GLD_I8V void SumBlockVector(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums) {
  if (inner == 1) {
    // Contiguous rows: bytes biased to unsigned, summed 8 at a time
    // (VPSADBW), the bias taken back.
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int64_t o = 0; o < outer; ++o) {
      const int8_t* row = x + o * reduced;
      __m512i acc = _mm512_setzero_si512();
      for (int64_t r = 0; r < reduced; r += 64) {
        const int64_t left = reduced - r;
        const __mmask64 k = left >= 64 ? ~__mmask64{0} : ((__mmask64{1} << left) - 1);
        const __m512i v = _mm512_maskz_mov_epi8(k, _mm512_xor_si512(_mm512_maskz_loadu_epi8(k, row + r), flip));
        acc = _mm512_add_epi64(acc, _mm512_sad_epu8(v, _mm512_setzero_si512()));
      }
      sums[o] = static_cast<int32_t>(_mm512_reduce_add_epi64(acc) - 128 * reduced);
    }
    return;
  }
  for (int64_t o = 0; o < outer; ++o) {
    int32_t* s = sums + o * inner;
    for (int64_t i = 0; i < inner; i += 16) {
      const __mmask16 k = TailMask(inner - i);
      __m512i acc = _mm512_setzero_si512();
      for (int64_t r = 0; r < reduced; ++r) {
        acc = _mm512_add_epi32(acc, _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, x + (o * reduced + r) * inner + i)));
      }
      _mm512_mask_storeu_epi32(s + i, k, acc);
    }
  }
}

GLD_I8V void MeanRequantizeVector(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y) {
  const __m512 vs = _mm512_set1_ps(scale), vb = _mm512_set1_ps(bias);
  const __m512 lo = _mm512_set1_ps(-128.f), hi = _mm512_set1_ps(127.f);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 k = TailMask(n - j);
    const __m512 f = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, sums + j));
    // Rounded product, then rounded sum (the _round_ forms are never fused).
    __m512 v = _mm512_add_round_ps(_mm512_mul_round_ps(f, vs, _MM_FROUND_CUR_DIRECTION), vb, _MM_FROUND_CUR_DIRECTION);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm512_mask_cvtepi32_storeu_epi8(y + j, k, _mm512_cvtps_epi32(v));
  }
}

GLD_I8VBMI void TableLookupVector(const int8_t* table, const int8_t* x, int64_t n, int8_t* y) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t left = n - i;
    const __mmask64 k = left >= 64 ? ~__mmask64{0} : ((__mmask64{1} << left) - 1);
    const __m512i index = _mm512_maskz_loadu_epi8(k, x + i);
    const __m512i low = _mm512_permutex2var_epi8(t0, index, t1);   // entries 0..127 by bits 0..6
    const __m512i high = _mm512_permutex2var_epi8(t2, index, t3);  // entries 128..255
    _mm512_mask_storeu_epi8(y + i, k, _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high));
  }
}

}  // namespace

GLD_I8V void MultiplyRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift) {
  MultiplyByQuantizedMultiplierRow16(x, y, n, multiplier, shift);
}
GLD_I8V void BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                       int64_t n) {
  BinaryRunVector(p, a, sa, b, sb, y, n);
}
GLD_I8VBMI void TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y) {
  TableLookupVector(table, x, n, y);
}
GLD_I8V void SoftmaxRows(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y,
                         std::vector<int8_t>* columns, std::vector<float>* exps) {
  SoftmaxRowsVector(p, x, rows, n, y, columns, exps);
}
GLD_I8V void MatMul(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w, int8_t* y,
                    std::vector<int16_t>* scratch) {
  MatMulVector(p, s, x, w, y, scratch);
}
GLD_I8V void SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums) {
  SumBlockVector(x, outer, reduced, inner, sums);
}
GLD_I8V void MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y) {
  MeanRequantizeVector(sums, n, scale, bias, y);
}

}  // namespace gld::cpu::int8_rows_x86
#endif
