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
static_assert(kInt8GemmBlockRows % kRows == 0, "a parallel item's rows are whole tiles");
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

// Rows [0, M) of a tile times one panel; `valid` of its 32 channels stored
// (kHalf: valid <= 16, and the upper 16 are not computed).
template <int M, bool kHalf>
GLD_VNNI void Tile(const int8_t* x, int64_t sx, const Int8GemmWeights& p, int64_t panel, int8_t* y, int64_t sy,
                   int64_t valid) {
  const int32_t* bias = p.bias.data() + panel * kPanel;
  __m512i acc[M][2];
  const __m512i b0 = _mm512_loadu_si512(bias), b1 = _mm512_loadu_si512(bias + 16);
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m) {
    acc[m][0] = b0;
    acc[m][1] = b1;
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const int8_t* w = p.w.data() + panel * p.k4 * kPanel;
  for (int64_t kk = 0; kk < p.k4; kk += 4, w += 4 * kPanel) {
    const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m) {
      int32_t four;
      std::memcpy(&four, x + m * sx + kk, sizeof(four));
      const __m512i a = _mm512_xor_si512(_mm512_set1_epi32(four), flip);
      acc[m][0] = _mm512_dpbusd_epi32(acc[m][0], a, w0);
      if (!kHalf) acc[m][1] = _mm512_dpbusd_epi32(acc[m][1], a, w1);
    }
  }
  const float* scale = p.scale.data() + panel * kPanel;
  const __m512 s[2] = {_mm512_loadu_ps(scale), _mm512_loadu_ps(scale + 16)};
  const __m512 lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  const __m512i zp = _mm512_set1_epi32(p.zero_point);
  const __mmask16 mask[2] = {
      static_cast<__mmask16>(valid >= 16 ? 0xffff : (1u << valid) - 1),
      static_cast<__mmask16>(valid >= 32 ? 0xffff : valid <= 16 ? 0 : (1u << (valid - 16)) - 1)};
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m) {
#pragma GCC unroll 2
    for (int h = 0; h < (kHalf ? 1 : 2); ++h) {
      __m512 f = _mm512_mul_ps(_mm512_cvtepi32_ps(acc[m][h]), s[h]);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      _mm_mask_storeu_epi8(y + m * sy + h * 16, mask[h], _mm512_cvtepi32_epi8(q));
    }
  }
}

template <int M>
GLD_VNNI void Tiles(const int8_t* x, int64_t sx, const Int8GemmWeights& p, int64_t panel_begin, int64_t panel_end,
                    int8_t* y, int64_t sy) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int64_t valid = std::min(kPanel, p.n - panel * kPanel);
    if (valid <= 16) {
      Tile<M, true>(x, sx, p, panel, y + panel * kPanel, sy, valid);
    } else {
      Tile<M, false>(x, sx, p, panel, y + panel * kPanel, sy, valid);
    }
  }
}

}  // namespace
#endif

void Int8GemmPanels(const int8_t* x, int64_t stride_x, int64_t rows, const Int8GemmWeights& p, int64_t panel_begin,
                    int64_t panel_end, int8_t* y, int64_t stride_y) {
#ifdef GLD_INT8_GEMM
  const int64_t q0 = panel_begin, q1 = panel_end;
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) Tiles<kRows>(x + r * stride_x, stride_x, p, q0, q1, y + r * stride_y, stride_y);
  const int64_t left = rows - r;
  const int8_t* xr = x + r * stride_x;
  int8_t* yr = y + r * stride_y;
  switch (left) {
    case 1: Tiles<1>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 2: Tiles<2>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 3: Tiles<3>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 4: Tiles<4>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 5: Tiles<5>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 6: Tiles<6>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    case 7: Tiles<7>(xr, stride_x, p, q0, q1, yr, stride_y); break;
    default: break;
  }
#else
  (void)x, (void)stride_x, (void)rows, (void)p, (void)panel_begin, (void)panel_end, (void)y, (void)stride_y;
#endif
}

void Int8GemmRows(const int8_t* x, int64_t stride_x, int64_t rows, const Int8GemmWeights& p, int8_t* y,
                  int64_t stride_y) {
  Int8GemmPanels(x, stride_x, rows, p, 0, p.panels, y, stride_y);
}

int64_t Int8GemmItemCount(int64_t rows, const Int8GemmWeights& p) {
  return (rows + kInt8GemmBlockRows - 1) / kInt8GemmBlockRows * p.panels;
}

int64_t Int8GemmItemWork(const Int8GemmWeights& p) { return kInt8GemmBlockRows * kPanel * p.k4; }

void Int8GemmItems(const int8_t* x, int64_t rows, const Int8GemmWeights& p, int64_t begin, int64_t end, int8_t* y) {
  // One call per row block: its panels in [begin, end).
  for (int64_t item = begin; item < end;) {
    const int64_t block = item / p.panels, q0 = item % p.panels;
    const int64_t q1 = std::min(p.panels, q0 + (end - item));
    const int64_t r0 = block * kInt8GemmBlockRows;
    const int64_t n = std::min(kInt8GemmBlockRows, rows - r0);
    Int8GemmPanels(x + r0 * p.k, p.k, n, p, q0, q1, y + r0 * p.n, p.n);
    item += q1 - q0;
  }
}

namespace {

// Copies and fills of a few bytes (a window row of a first layer is 9):
// overlapping fixed-size moves instead of a library call each.
inline void CopySmall(int8_t* d, const int8_t* s, int64_t n) {
  if (n >= 16) {
    std::memcpy(d, s, static_cast<size_t>(n));
  } else if (n >= 8) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(d, s, 4);
    std::memcpy(d + n - 4, s + n - 4, 4);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

inline void FillSmall(int8_t* d, int8_t v, int64_t n) {
  if (n >= 16) {
    std::memset(d, static_cast<unsigned char>(v), static_cast<size_t>(n));
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = v;
  }
}

// The window of output pixel (n, oy, ox) as one row of the gathered matrix.
void GatherRow(const int8_t* x, const Int8Window& g, int64_t n, int64_t oy, int64_t ox, int8_t* row) {
  const int64_t tap = g.ic, run = g.kw * g.ic;
  const int64_t ix0 = ox * g.sw - g.pad_l;
  const bool row_inside = g.dw == 1 && ix0 >= 0 && ix0 + g.kw <= g.iw;
  const int64_t iy0 = oy * g.sh - g.pad_t;
  if (row_inside && run <= 16 && iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih) {
    // The whole window inside, each of its rows one run of at most 16 bytes:
    // one 16-byte move per row (reading up to 15 bytes past a run, inside
    // the buffer's slack, and writing past it into bytes written next).
    const int8_t* src = x + ((n * g.ih + iy0) * g.iw + ix0) * g.ic;
    for (int64_t fy = 0; fy < g.kh; ++fy) std::memcpy(row + fy * run, src + fy * g.dh * g.iw * g.ic, 16);
    return;
  }
  for (int64_t fy = 0; fy < g.kh; ++fy) {
    const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
    int8_t* d = row + fy * run;
    if (iy < 0 || iy >= g.ih) {
      FillSmall(d, g.pad_value, run);
      continue;
    }
    const int8_t* src = x + ((n * g.ih + iy) * g.iw) * g.ic;
    if (row_inside) {  // the window's row is one run of the input
      CopySmall(d, src + ix0 * g.ic, run);
      continue;
    }
    for (int64_t fx = 0; fx < g.kw; ++fx) {
      const int64_t ix = ix0 + fx * g.dw;
      if (ix < 0 || ix >= g.iw) {
        FillSmall(d + fx * tap, g.pad_value, tap);
      } else {
        CopySmall(d + fx * tap, src + ix * g.ic, tap);
      }
    }
  }
}

}  // namespace

void Int8ConvPixels(const int8_t* x, int64_t p0, int64_t p1, const Int8GemmWeights& p, int8_t* y,
                    std::vector<int8_t>* scratch) {
  constexpr int64_t kBlock = 64;
  // Each row holds k4 values; 16 more bytes for the GEMM's reads past the
  // last and GatherRow's 16-byte moves.
  scratch->resize(static_cast<size_t>(kBlock * p.k4 + 16));
  const Int8Window& g = p.window;
  int64_t n = p0 / (g.oh * g.ow), oy = (p0 / g.ow) % g.oh, ox = p0 % g.ow;
  for (int64_t b0 = p0; b0 < p1; b0 += kBlock) {
    const int64_t rows = std::min(kBlock, p1 - b0);
    for (int64_t r = 0; r < rows; ++r) {
      int8_t* row = scratch->data() + r * p.k4;
      GatherRow(x, g, n, oy, ox, row);
      FillSmall(row + p.k, 0, p.k4 - p.k);
      if (++ox == g.ow) {
        ox = 0;
        if (++oy == g.oh) {
          oy = 0;
          ++n;
        }
      }
    }
    Int8GemmRows(scratch->data(), p.k4, rows, p, y + b0 * p.n, p.n);
  }
}

}  // namespace gld::cpu
