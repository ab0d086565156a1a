#include "cpu_kernels/int8_depthwise.h"

#include <algorithm>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && !defined(GLD_NO_MULTIVERSION)
#define GLD_INT8_DEPTHWISE 1
#include <immintrin.h>
// GCC 12 reports the _mm512_undefined_*() placeholders inside the AVX-512
// intrinsics' headers as uninitialized (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#ifndef __clang__  // clang has no such group (and no such false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define GLD_DW_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

namespace gld::cpu {

void PackInt8Depthwise(const int8_t* weights, const int32_t* bias, Int8DepthwiseState* s) {
  const int64_t taps = s->kh * s->kw, c = s->channels;
  s->weights.assign(static_cast<size_t>(taps * s->padded), 0);
  s->bias.assign(static_cast<size_t>(s->padded), 0);
  for (int64_t k = 0; k < c; ++k) {
    int64_t sum = 0;
    for (int64_t t = 0; t < taps; ++t) {
      const int8_t w = weights[t * c + k];
      sum += w;
      s->weights[static_cast<size_t>(t * s->padded + k)] = static_cast<int32_t>(static_cast<uint16_t>(static_cast<int16_t>(w)));
    }
    const int64_t b = bias != nullptr ? bias[k] : 0;
    s->bias[static_cast<size_t>(k)] = static_cast<int32_t>(b - static_cast<int64_t>(s->input_zero_point) * sum);
  }
}

#ifdef GLD_INT8_DEPTHWISE
namespace {

// One output pixel's 16 channels starting at c; `inside`: the window lies
// inside the input (no checks).
template <bool kInside>
GLD_DW_TARGET void Pixel(const int8_t* x, const Int8DepthwiseState& s, int64_t n, int64_t oy, int64_t ox, int64_t c,
                         __mmask16 mask, int8_t* y) {
  __m512i acc = _mm512_loadu_si512(s.bias.data() + c);
  const __m512i zx = _mm512_set1_epi32(s.input_zero_point);
  const int32_t* w = s.weights.data() + c;
  for (int64_t fy = 0; fy < s.kh; ++fy) {
    const int64_t iy = oy * s.sh - s.pad_t + fy * s.dh;
    const bool row_in = kInside || (iy >= 0 && iy < s.ih);
    const int8_t* row = x + ((n * s.ih + iy) * s.iw) * s.channels + c;
    for (int64_t fx = 0; fx < s.kw; ++fx, w += s.padded) {
      const int64_t ix = ox * s.sw - s.pad_l + fx * s.dw;
      __m512i v = zx;
      if (kInside || (row_in && ix >= 0 && ix < s.iw)) {
        v = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(mask, row + ix * s.channels));
      }
      acc = _mm512_dpwssd_epi32(acc, v, _mm512_loadu_si512(w));
    }
  }
  __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(s.scale.data() + c));
  f = _mm512_min_ps(_mm512_max_ps(f, _mm512_set1_ps(s.lo)), _mm512_set1_ps(s.hi));
  const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), _mm512_set1_epi32(s.output_zero_point));
  _mm_mask_storeu_epi8(y, mask, _mm512_cvtepi32_epi8(q));
}

// Four adjacent output pixels: four independent sums, so the taps'
// multiply-adds overlap. kInside: every window lies inside the input (no
// checks); otherwise taps outside read the input's zero point. kFull: all
// 16 channels (plain loads the conversion takes as its operand).
template <bool kInside, bool kFull>
GLD_DW_TARGET void Pixels4(const int8_t* x, const Int8DepthwiseState& s, int64_t n, int64_t oy, int64_t ox,
                           int64_t c, __mmask16 mask, int8_t* y) {
  const __m512i b = _mm512_loadu_si512(s.bias.data() + c);
  const __m512i zx = _mm512_set1_epi32(s.input_zero_point);
  __m512i acc[4] = {b, b, b, b};
  const int32_t* w = s.weights.data() + c;
  for (int64_t fy = 0; fy < s.kh; ++fy) {
    const int64_t iy = oy * s.sh - s.pad_t + fy * s.dh;
    if (!kInside && (iy < 0 || iy >= s.ih)) {
      for (int64_t fx = 0; fx < s.kw; ++fx, w += s.padded) {
        const __m512i wv = _mm512_loadu_si512(w);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) acc[i] = _mm512_dpwssd_epi32(acc[i], zx, wv);
      }
      continue;
    }
    const int8_t* row = x + ((n * s.ih + iy) * s.iw) * s.channels + c;
    for (int64_t fx = 0; fx < s.kw; ++fx, w += s.padded) {
      const __m512i wv = _mm512_loadu_si512(w);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const int64_t ix = (ox + i) * s.sw - s.pad_l + fx * s.dw;
        __m512i v = zx;
        if (kInside || (ix >= 0 && ix < s.iw)) {
          const int8_t* src = row + ix * s.channels;
          v = _mm512_cvtepi8_epi32(kFull ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(src))
                                         : _mm_maskz_loadu_epi8(mask, src));
        }
        acc[i] = _mm512_dpwssd_epi32(acc[i], v, wv);
      }
    }
  }
  const __m512 scale = _mm512_loadu_ps(s.scale.data() + c);
  const __m512 lo = _mm512_set1_ps(s.lo), hi = _mm512_set1_ps(s.hi);
  const __m512i zp = _mm512_set1_epi32(s.output_zero_point);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[i]), scale);
    f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
    const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
    _mm_mask_storeu_epi8(y + i * s.channels, mask, _mm512_cvtepi32_epi8(q));
  }
}

// The lanes of a 16-channel step with `left` channels to go.
inline __mmask16 ChannelMask(int64_t left) { return static_cast<__mmask16>(left >= 16 ? 0xffff : (1u << left) - 1); }

GLD_DW_TARGET void Rows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y) {
  // Output columns whose window stays inside the input horizontally.
  const int64_t span_w = (s.kw - 1) * s.dw;
  const int64_t ox_lo = std::min(s.ow, (s.pad_l + s.sw - 1) / s.sw);
  int64_t ox_hi = ox_lo;
  while (ox_hi < s.ow && ox_hi * s.sw - s.pad_l + span_w < s.iw) ++ox_hi;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t n = r / s.oh, oy = r % s.oh;
    const int64_t iy0 = oy * s.sh - s.pad_t;
    const bool rows_in = iy0 >= 0 && iy0 + (s.kh - 1) * s.dh < s.ih;
    for (int64_t ox = 0; ox < s.ow; ++ox) {
      int8_t* out = y + (r * s.ow + ox) * s.channels;
      if (ox + 4 <= s.ow) {
        const bool inside4 = rows_in && ox >= ox_lo && ox + 4 <= ox_hi;
        for (int64_t c = 0; c < s.channels; c += 16) {
          const __mmask16 mask = ChannelMask(s.channels - c);
          const bool full = s.channels - c >= 16;
          if (inside4 && full) {
            Pixels4<true, true>(x, s, n, oy, ox, c, mask, out + c);
          } else if (inside4) {
            Pixels4<true, false>(x, s, n, oy, ox, c, mask, out + c);
          } else if (full) {
            Pixels4<false, true>(x, s, n, oy, ox, c, mask, out + c);
          } else {
            Pixels4<false, false>(x, s, n, oy, ox, c, mask, out + c);
          }
        }
        ox += 3;
        continue;
      }
      const bool inside = rows_in && ox >= ox_lo && ox < ox_hi;
      for (int64_t c = 0; c < s.channels; c += 16) {
        const __mmask16 mask = ChannelMask(s.channels - c);
        if (inside) {
          Pixel<true>(x, s, n, oy, ox, c, mask, out + c);
        } else {
          Pixel<false>(x, s, n, oy, ox, c, mask, out + c);
        }
      }
    }
  }
}

}  // namespace
#endif

void Int8DepthwiseRows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y) {
#ifdef GLD_INT8_DEPTHWISE
  Rows(x, s, r0, r1, y);
#else
  (void)x, (void)s, (void)r0, (void)r1, (void)y;
#endif
}

}  // namespace gld::cpu
