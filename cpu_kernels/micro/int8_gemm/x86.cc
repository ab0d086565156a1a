// The x86 form of the int8 GEMM (int8_gemm.h): AVX-512 VNNI tiles, each
// function under GLD_VNNI (variants.h). Compiled on every build; empty where
// GLD_INT8_GEMM_X86 is not defined (variants.h).
#include <algorithm>
#include <cstring>

#include "cpu_kernels/micro/int8_gemm/variants.h"

#ifdef GLD_INT8_GEMM_X86
namespace gld::cpu::int8_gemm_x86 {

namespace {

// acc += the four-byte dot products of a (unsigned) and w (signed). In
// assembly: GCC 12 copies the accumulator around each VPDPBUSD intrinsic.
GLD_VNNI inline void Dot(__m512i& acc, __m512i a, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
}

// acc x scale rounded to the nearest integer (XNNPACK's float
// requantization); kClamp: clamped to [lo, hi] first, where the product
// could leave int32 (Int8GemmWeights::clamp_in_float).
template <bool kClamp>
GLD_VNNI inline __m512i Scaled(__m512i acc, __m512 scale, __m512 lo, __m512 hi) {
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), scale);
  if (kClamp) f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
  return _mm512_cvtps_epi32(f);
}

// Four vectors of scaled sums to bytes: saturated to int16, plus the zero
// point, saturated to int8, clamped to the output range (clamping after the
// rounding gives the same integers: the bounds are integers). Byte 16L + 4i
// + t holds lane 4L + t of vector i.
GLD_VNNI inline __m512i Bytes(__m512i a, __m512i b, __m512i c, __m512i d, __m512i zp16, __m512i lo8, __m512i hi8) {
  const __m512i ab = _mm512_adds_epi16(_mm512_packs_epi32(a, b), zp16);
  const __m512i cd = _mm512_adds_epi16(_mm512_packs_epi32(c, d), zp16);
  return _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(ab, cd), lo8), hi8);
}

// Rows [0, M) of a tile times one panel; `valid` of its 32 channels stored
// (kHalf: valid <= 16, and the upper 16 are not computed). Row m's run r
// starts at x + m * sx + off[r]; the rows hold x + 128 (FlipBytes). A whole
// panel's channels lie in its two vectors as Bytes leaves them (PackRuns):
// rows go out two at a time, a half panel's one at a time.
template <int M, bool kHalf, bool kClamp>
GLD_VNNI void Tile(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t panel,
                   int8_t* y, int64_t sy, int64_t valid) {
  const int32_t* bias = p.bias.data() + panel * kPanel;
  __m512i acc[M][2];
  const __m512i b0 = _mm512_loadu_si512(bias), b1 = _mm512_loadu_si512(bias + 16);
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m) {
    acc[m][0] = b0;
    acc[m][1] = b1;
  }
  const int8_t* w = WeightsOf(p) + panel * p.k4 * kPanel;
  for (int64_t g = 0; g < p.groups; ++g) {
    const int8_t* xg = x + off[g];
    for (int64_t s = 0; s < p.steps; ++s, w += 4 * kPanel) {
      const __m512i w0 = _mm512_loadu_si512(w);
      const __m512i w1 = kHalf ? w0 : _mm512_loadu_si512(w + 64);
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) {
        int32_t four;
        std::memcpy(&four, xg + m * sx + 4 * s, sizeof(four));
        const __m512i a = _mm512_set1_epi32(four);
        Dot(acc[m][0], a, w0);
        if (!kHalf) Dot(acc[m][1], a, w1);
      }
    }
  }
  const float* scale = p.scale.data() + panel * kPanel;
  const __m512 s0 = _mm512_loadu_ps(scale), s1 = _mm512_loadu_ps(scale + 16);
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  const __m512i zp16 = _mm512_set1_epi16(static_cast<int16_t>(p.zero_point));
  const __m512i lo8 = _mm512_set1_epi8(static_cast<char>(p.lo + static_cast<float>(p.zero_point)));
  const __m512i hi8 = _mm512_set1_epi8(static_cast<char>(p.hi + static_cast<float>(p.zero_point)));
  if (!kHalf) {
    // Rows m and m + 1: byte 16L + t (t < 8) is row m's channel 8L + t.
    const __mmask32 mask = valid >= 32 ? ~__mmask32{0} : (__mmask32{1} << valid) - 1;
    const __m512i rows = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
#pragma GCC unroll 4
    for (int m = 0; m < M; m += 2) {
      const int m1 = m + 1 < M ? m + 1 : m;
      const __m512i q = _mm512_permutexvar_epi64(
          rows, Bytes(Scaled<kClamp>(acc[m][0], s0, lo, hi), Scaled<kClamp>(acc[m][1], s1, lo, hi),
                      Scaled<kClamp>(acc[m1][0], s0, lo, hi), Scaled<kClamp>(acc[m1][1], s1, lo, hi), zp16, lo8, hi8));
      _mm256_mask_storeu_epi8(y + m * sy, mask, _mm512_castsi512_si256(q));
      if (m + 1 < M) _mm256_mask_storeu_epi8(y + (m + 1) * sy, mask, _mm512_extracti64x4_epi64(q, 1));
    }
  } else {
    // Row by row: 16 channels, saturated to int8, clamped.
    const __mmask16 mask = valid >= 16 ? 0xffff : static_cast<__mmask16>((1u << valid) - 1);
    const __m512i zp = _mm512_set1_epi32(p.zero_point);
    const __m128i l8 = _mm512_castsi512_si128(lo8), h8 = _mm512_castsi512_si128(hi8);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      __m128i q = _mm512_cvtsepi32_epi8(_mm512_add_epi32(Scaled<kClamp>(acc[m][0], s0, lo, hi), zp));
      q = _mm_min_epi8(_mm_max_epi8(q, l8), h8);
      _mm_mask_storeu_epi8(y + m * sy, mask, q);
    }
  }
}

template <int M, bool kClamp>
GLD_VNNI void PanelTiles(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p,
                         int64_t panel_begin, int64_t panel_end, int8_t* y, int64_t sy) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int64_t valid = std::min(kPanel, p.tile_n - panel * kPanel);
    if (valid <= 16) {
      Tile<M, true, kClamp>(x, sx, off, p, panel, y + panel * kPanel, sy, valid);
    } else {
      Tile<M, false, kClamp>(x, sx, off, p, panel, y + panel * kPanel, sy, valid);
    }
  }
}

template <int M>
GLD_VNNI void Tiles(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t panel_begin,
                    int64_t panel_end, int8_t* y, int64_t sy) {
  if (p.clamp_in_float) {
    PanelTiles<M, true>(x, sx, off, p, panel_begin, panel_end, y, sy);
  } else {
    PanelTiles<M, false>(x, sx, off, p, panel_begin, panel_end, y, sy);
  }
}

// d = s + 128 (the sign bit flipped), `bytes` of them (no byte of s past
// them read).
GLD_VNNI void FlipBytesVnni(int8_t* d, const int8_t* s, int64_t bytes) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) _mm512_storeu_si512(d + i, _mm512_xor_si512(_mm512_loadu_si512(s + i), flip));
  if (i < bytes) {
    const __mmask64 m = (~uint64_t{0}) >> (64 - (bytes - i));
    _mm512_mask_storeu_epi8(d + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, s + i), flip));
  }
}

}  // namespace

GLD_VNNI void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes) { FlipBytesVnni(d, s, bytes); }

void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y) {
  ForEachRowBlock<kRows>(rows, [&](auto m, int64_t r) {
    Tiles<decltype(m)::value>(x + r * stride_x, stride_x, off, p, q0, q1, y + r * stride_y, stride_y);
  });
}

}  // namespace gld::cpu::int8_gemm_x86
#endif
