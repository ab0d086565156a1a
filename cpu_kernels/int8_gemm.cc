#include "cpu_kernels/int8_gemm.h"

#include <algorithm>
#include <cstring>

#include "util/cpu_features.h"

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && !defined(GLD_NO_MULTIVERSION)
#define GLD_INT8_GEMM 1
#include <immintrin.h>
// GCC 12 reports the _mm512_undefined_*() placeholders inside the AVX-512
// intrinsics' headers as uninitialized (a known false positive).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define GLD_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

namespace gld::cpu {

namespace {
constexpr int64_t kPanel = 32;  // output channels per panel: two vectors of 16 int32
constexpr int kRows = 8;        // rows per tile: 16 accumulators
}  // namespace

bool HasInt8Gemm() {
#ifdef GLD_INT8_GEMM
  return HostCpuFeatures().avx512vnni;
#else
  return false;
#endif
}

bool PackInt8Gemm(const int8_t* weights, int64_t n, int64_t k, const int32_t* bias, int32_t input_zero_point,
                  const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi,
                  Int8GemmWeights* p) {
  if (n <= 0 || k <= 0 || k > (int64_t{1} << 16)) return false;
  p->n = n;
  p->k = k;
  p->k4 = (k + 3) / 4 * 4;
  p->panels = (n + kPanel - 1) / kPanel;
  const int64_t padded = p->panels * kPanel;
  p->w.assign(static_cast<size_t>(p->panels * p->k4 * kPanel), 0);
  p->bias.assign(static_cast<size_t>(padded), 0);
  p->scale.assign(static_cast<size_t>(padded), 0.f);
  for (int64_t c = 0; c < n; ++c) {
    const int64_t panel = c / kPanel, j = c % kPanel;
    int64_t sum = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int8_t v = weights[c * k + i];
      sum += v;
      p->w[static_cast<size_t>(((panel * (p->k4 / 4) + i / 4) * kPanel + j) * 4 + i % 4)] = v;
    }
    const int64_t b = bias != nullptr ? bias[c] : 0;
    p->bias[static_cast<size_t>(c)] = static_cast<int32_t>(b - (128 + static_cast<int64_t>(input_zero_point)) * sum);
    p->scale[static_cast<size_t>(c)] = requant_scale[c];
  }
  p->lo = static_cast<float>(lo - output_zero_point);
  p->hi = static_cast<float>(hi - output_zero_point);
  p->zero_point = output_zero_point;
  return true;
}

#ifdef GLD_INT8_GEMM
namespace {

// Rows [0, M) of a tile times one panel; `valid` of its 32 channels stored.
template <int M>
GLD_VNNI void Tile(const int8_t* x, int64_t sx, const Int8GemmWeights& p, int64_t panel, int8_t* y, int64_t sy,
                   int64_t valid) {
  const int32_t* bias = p.bias.data() + panel * kPanel;
  __m512i acc[M][2];
  const __m512i b0 = _mm512_loadu_si512(bias), b1 = _mm512_loadu_si512(bias + 16);
  for (int m = 0; m < M; ++m) {
    acc[m][0] = b0;
    acc[m][1] = b1;
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const int8_t* w = p.w.data() + panel * p.k4 * kPanel;
  for (int64_t kk = 0; kk < p.k4; kk += 4, w += 4 * kPanel) {
    const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
    for (int m = 0; m < M; ++m) {
      int32_t four;
      std::memcpy(&four, x + m * sx + kk, sizeof(four));
      const __m512i a = _mm512_xor_si512(_mm512_set1_epi32(four), flip);
      acc[m][0] = _mm512_dpbusd_epi32(acc[m][0], a, w0);
      acc[m][1] = _mm512_dpbusd_epi32(acc[m][1], a, w1);
    }
  }
  const float* scale = p.scale.data() + panel * kPanel;
  const __m512 s[2] = {_mm512_loadu_ps(scale), _mm512_loadu_ps(scale + 16)};
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  const __m512i zp = _mm512_set1_epi32(p.zero_point);
  const __mmask16 mask[2] = {
      static_cast<__mmask16>(valid >= 16 ? 0xffff : (1u << valid) - 1),
      static_cast<__mmask16>(valid >= 32 ? 0xffff : valid <= 16 ? 0 : (1u << (valid - 16)) - 1)};
  for (int m = 0; m < M; ++m) {
    for (int h = 0; h < 2; ++h) {
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][h]), s[h]);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      _mm_mask_storeu_epi8(y + m * sy + h * 16, mask[h], _mm512_cvtepi32_epi8(q));
    }
  }
}

template <int M>
GLD_VNNI void Tiles(const int8_t* x, int64_t sx, const Int8GemmWeights& p, int8_t* y, int64_t sy) {
  for (int64_t panel = 0; panel < p.panels; ++panel) {
    Tile<M>(x, sx, p, panel, y + panel * kPanel, sy, std::min(kPanel, p.n - panel * kPanel));
  }
}

}  // namespace
#endif

void Int8GemmRows(const int8_t* x, int64_t stride_x, int64_t rows, const Int8GemmWeights& p, int8_t* y,
                  int64_t stride_y) {
#ifdef GLD_INT8_GEMM
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) Tiles<kRows>(x + r * stride_x, stride_x, p, y + r * stride_y, stride_y);
  const int64_t left = rows - r;
  const int8_t* xr = x + r * stride_x;
  int8_t* yr = y + r * stride_y;
  switch (left) {
    case 1: Tiles<1>(xr, stride_x, p, yr, stride_y); break;
    case 2: Tiles<2>(xr, stride_x, p, yr, stride_y); break;
    case 3: Tiles<3>(xr, stride_x, p, yr, stride_y); break;
    case 4: Tiles<4>(xr, stride_x, p, yr, stride_y); break;
    case 5: Tiles<5>(xr, stride_x, p, yr, stride_y); break;
    case 6: Tiles<6>(xr, stride_x, p, yr, stride_y); break;
    case 7: Tiles<7>(xr, stride_x, p, yr, stride_y); break;
    default: break;
  }
#else
  (void)x, (void)stride_x, (void)rows, (void)p, (void)y, (void)stride_y;
#endif
}

void Int8ConvPixels(const int8_t* x, int64_t p0, int64_t p1, const Int8GemmWeights& p, int8_t* y,
                    std::vector<int8_t>* scratch) {
  const Int8Window& g = p.window;
  constexpr int64_t kBlock = 64;
  // Each row holds k4 values and 4 more bytes the GEMM may read past it.
  scratch->resize(static_cast<size_t>(kBlock * p.k4 + 4));
  const int64_t tap = g.ic;
  for (int64_t b0 = p0; b0 < p1; b0 += kBlock) {
    const int64_t rows = std::min(kBlock, p1 - b0);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t pixel = b0 + r;
      const int64_t n = pixel / (g.oh * g.ow), oy = (pixel / g.ow) % g.oh, ox = pixel % g.ow;
      int8_t* row = scratch->data() + r * p.k4;
      for (int64_t fy = 0; fy < g.kh; ++fy) {
        const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
        for (int64_t fx = 0; fx < g.kw; ++fx) {
          const int64_t ix = ox * g.sw - g.pad_l + fx * g.dw;
          int8_t* d = row + (fy * g.kw + fx) * tap;
          if (iy < 0 || iy >= g.ih || ix < 0 || ix >= g.iw) {
            std::memset(d, static_cast<unsigned char>(g.pad_value), static_cast<size_t>(tap));
          } else {
            std::memcpy(d, x + ((n * g.ih + iy) * g.iw + ix) * g.ic, static_cast<size_t>(tap));
          }
        }
      }
      std::memset(row + p.k, 0, static_cast<size_t>(p.k4 - p.k));
    }
    Int8GemmRows(scratch->data(), p.k4, rows, p, y + b0 * p.n, p.n);
  }
}

}  // namespace gld::cpu
