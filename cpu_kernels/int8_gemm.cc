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
#ifndef __clang__  // clang has no such group (and no such false positive)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
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

namespace {

// Packs rows of p->groups runs of p->group_len values each (weights [n,
// groups, group_len]).
bool PackRuns(const int8_t* weights, int64_t n, const int32_t* bias, int32_t input_zero_point,
              const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi, Int8GemmWeights* p) {
  const int64_t k = p->groups * p->group_len;
  if (n <= 0 || p->group_len <= 0 || p->groups <= 0 || k > (int64_t{1} << 16)) return false;
  p->n = n;
  p->k = k;
  p->steps = (p->group_len + 3) / 4;
  p->k4 = p->groups * p->steps * 4;
  p->panels = (n + kPanel - 1) / kPanel;
  const int64_t padded = p->panels * kPanel;
  p->w.assign(static_cast<size_t>(p->panels * p->k4 * kPanel), 0);
  p->bias.assign(static_cast<size_t>(padded), 0);
  p->scale.assign(static_cast<size_t>(padded), 0.f);
  p->packed.resize(static_cast<size_t>(p->groups));
  for (int64_t g = 0; g < p->groups; ++g) p->packed[static_cast<size_t>(g)] = g * p->steps * 4;
  p->offset = p->packed;
  for (int64_t c = 0; c < n; ++c) {
    const int64_t panel = c / kPanel, j = c % kPanel;
    int64_t sum = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int8_t v = weights[c * k + i];
      sum += v;
      const int64_t kk = i / p->group_len * p->steps * 4 + i % p->group_len;  // in a packed row
      p->w[static_cast<size_t>(((panel * (p->k4 / 4) + kk / 4) * kPanel + j) * 4 + kk % 4)] = v;
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

}  // namespace

bool PackInt8Gemm(const int8_t* weights, int64_t n, int64_t k, const int32_t* bias, int32_t input_zero_point,
                  const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi,
                  Int8GemmWeights* p) {
  p->groups = 1;
  p->group_len = k;
  p->gathers = false;
  return PackRuns(weights, n, bias, input_zero_point, requant_scale, output_zero_point, lo, hi, p);
}

bool PackInt8Conv(const int8_t* weights, int64_t n, const Int8Window& g, const int32_t* bias,
                  int32_t input_zero_point, const float* requant_scale, int32_t output_zero_point, int32_t lo,
                  int32_t hi, Int8GemmWeights* p) {
  // Taps that touch (dw == 1) make one run per window row.
  const bool rows = g.dw == 1;
  p->groups = rows ? g.kh : g.kh * g.kw;
  p->group_len = rows ? g.kw * g.ic : g.ic;
  p->gathers = true;
  p->window = g;
  if (!PackRuns(weights, n, bias, input_zero_point, requant_scale, output_zero_point, lo, hi, p)) return false;
  for (int64_t r = 0; r < p->groups; ++r) {
    const int64_t fy = rows ? r : r / g.kw, fx = rows ? 0 : r % g.kw;
    p->offset[static_cast<size_t>(r)] = (fy * g.dh * g.iw + fx * g.dw) * g.ic;
  }
  return true;
}

#ifdef GLD_INT8_GEMM
namespace {

// acc += the four-byte dot products of a (unsigned) and w (signed). In
// assembly: GCC 12 copies the accumulator around each VPDPBUSD intrinsic.
GLD_VNNI inline void Dot(__m512i& acc, __m512i a, __m512i w) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(w));
}

// Rows [0, M) of a tile times one panel; `valid` of its 32 channels stored
// (kHalf: valid <= 16, and the upper 16 are not computed). Row m's run r
// starts at x + m * sx + off[r]; kFlipped: the rows hold x + 128 already
// (FlipRows), else each four bytes are flipped as they are read.
template <int M, bool kHalf, bool kFlipped>
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
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  const int8_t* w = p.w.data() + panel * p.k4 * kPanel;
  for (int64_t g = 0; g < p.groups; ++g) {
    const int8_t* xg = x + off[g];
    for (int64_t s = 0; s < p.steps; ++s, w += 4 * kPanel) {
      const __m512i w0 = _mm512_loadu_si512(w);
      const __m512i w1 = kHalf ? w0 : _mm512_loadu_si512(w + 64);
#pragma GCC unroll 8
      for (int m = 0; m < M; ++m) {
        int32_t four;
        std::memcpy(&four, xg + m * sx + 4 * s, sizeof(four));
        const __m512i a = kFlipped ? _mm512_set1_epi32(four) : _mm512_xor_si512(_mm512_set1_epi32(four), flip);
        Dot(acc[m][0], a, w0);
        if (!kHalf) Dot(acc[m][1], a, w1);
      }
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
      __m128i q = _mm512_cvtepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(f), zp));
      // In a register first: the truncating store to memory is slow (Zen 4).
      //asm("" : "+v"(q));
      _mm_mask_storeu_epi8(y + m * sy + h * 16, mask[h], q);
    }
  }
}

template <int M, bool kFlipped>
GLD_VNNI void Tiles(const int8_t* x, int64_t sx, const int64_t* off, const Int8GemmWeights& p, int64_t panel_begin,
                    int64_t panel_end, int8_t* y, int64_t sy) {
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    const int64_t valid = std::min(kPanel, p.n - panel * kPanel);
    if (valid <= 16) {
      Tile<M, true, kFlipped>(x, sx, off, p, panel, y + panel * kPanel, sy, valid);
    } else {
      Tile<M, false, kFlipped>(x, sx, off, p, panel, y + panel * kPanel, sy, valid);
    }
  }
}

// d = s + 128 (the sign bit flipped), `bytes` of them (no byte of s past
// them read).
GLD_VNNI void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  int64_t i = 0;
  for (; i + 64 <= bytes; i += 64) _mm512_storeu_si512(d + i, _mm512_xor_si512(_mm512_loadu_si512(s + i), flip));
  if (i < bytes) {
    const __mmask64 m = (~uint64_t{0}) >> (64 - (bytes - i));
    _mm512_mask_storeu_epi8(d + i, m, _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, s + i), flip));
  }
}

}  // namespace
#endif

namespace {

// Int8GemmPanels with the runs at `off`; kFlipped: rows of x + 128.
template <bool kFlipped>
void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y) {
#ifdef GLD_INT8_GEMM
  int64_t r = 0;
  for (; r + kRows <= rows; r += kRows) {
    Tiles<kRows, kFlipped>(x + r * stride_x, stride_x, off, p, q0, q1, y + r * stride_y, stride_y);
  }
  const int8_t* xr = x + r * stride_x;
  int8_t* yr = y + r * stride_y;
  switch (rows - r) {
    case 1: Tiles<1, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 2: Tiles<2, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 3: Tiles<3, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 4: Tiles<4, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 5: Tiles<5, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 6: Tiles<6, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    case 7: Tiles<7, kFlipped>(xr, stride_x, off, p, q0, q1, yr, stride_y); break;
    default: break;
  }
#else
  (void)x, (void)stride_x, (void)off, (void)rows, (void)p, (void)q0, (void)q1, (void)y, (void)stride_y;
#endif
}

}  // namespace

void Int8GemmPanels(const int8_t* x, int64_t stride_x, int64_t rows, const Int8GemmWeights& p, int64_t panel_begin,
                    int64_t panel_end, int8_t* y, int64_t stride_y) {
  PanelsAt<false>(x, stride_x, p.offset.data(), rows, p, panel_begin, panel_end, y, stride_y);
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
#ifdef GLD_INT8_GEMM
  // One call per row block: its panels in [begin, end), over the block's
  // rows flipped once (x + 128: no flip per four bytes and panel).
  thread_local std::vector<int8_t> flipped;  // kept: no allocation per run
  for (int64_t item = begin; item < end;) {
    const int64_t block = item / p.panels, q0 = item % p.panels;
    const int64_t q1 = std::min(p.panels, q0 + (end - item));
    const int64_t r0 = block * kInt8GemmBlockRows;
    const int64_t n = std::min(kInt8GemmBlockRows, rows - r0);
    // The tiles read up to 3 bytes past the last row (times zero weights).
    const size_t need = static_cast<size_t>(kInt8GemmBlockRows * p.k + 4);
    if (flipped.size() < need) flipped.resize(need);
    FlipBytes(flipped.data(), x + r0 * p.k, n * p.k);
    PanelsAt<true>(flipped.data(), p.k, p.offset.data(), n, p, q0, q1, y + r0 * p.n, p.n);
    item += q1 - q0;
  }
#else
  (void)x, (void)rows, (void)p, (void)begin, (void)end, (void)y;
#endif
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

// The window of output pixel (n, oy, ox) as one gathered row: run r at
// r * run_stride (Int8GemmWeights::packed).
void GatherRow(const int8_t* x, const Int8Window& g, int64_t run_stride, int64_t n, int64_t oy, int64_t ox,
               int8_t* row) {
  const int64_t tap = g.ic;
  const bool rows = g.dw == 1;  // one run per window row, else per tap
  const int64_t ix0 = ox * g.sw - g.pad_l;
  const bool row_inside = ix0 >= 0 && ix0 + (g.kw - 1) * g.dw < g.iw;
  for (int64_t fy = 0; fy < g.kh; ++fy) {
    const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
    int8_t* d = row + fy * (rows ? 1 : g.kw) * run_stride;
    const int64_t tap_stride = rows ? tap : run_stride;
    if (iy < 0 || iy >= g.ih) {
      for (int64_t fx = 0; fx < g.kw; ++fx) FillSmall(d + fx * tap_stride, g.pad_value, tap);
      continue;
    }
    const int8_t* src = x + ((n * g.ih + iy) * g.iw) * g.ic;
    if (row_inside && rows) {  // the window's row is one run of the input
      CopySmall(d, src + ix0 * g.ic, g.kw * tap);
      continue;
    }
    for (int64_t fx = 0; fx < g.kw; ++fx) {
      const int64_t ix = ix0 + fx * g.dw;
      if (ix < 0 || ix >= g.iw) {
        FillSmall(d + fx * tap_stride, g.pad_value, tap);
      } else {
        CopySmall(d + fx * tap_stride, src + ix * g.ic, tap);
      }
    }
  }
}

// Output pixels (n, oy, ox) for ox in [x0, x1) gathered into scratch, a
// block at a time.
void GatheredPixels(const int8_t* x, const Int8GemmWeights& p, int64_t n, int64_t oy, int64_t x0, int64_t x1,
                    int8_t* y, std::vector<int8_t>* scratch) {
  constexpr int64_t kBlock = 64;
  const int64_t run_stride = p.steps * 4;
  // Rows of k4 values; the bytes past each run stay as left (times zero
  // weights), zeros at first.
  if (scratch->size() < static_cast<size_t>(kBlock * p.k4)) scratch->assign(static_cast<size_t>(kBlock * p.k4), 0);
  for (int64_t b0 = x0; b0 < x1; b0 += kBlock) {
    const int64_t rows = std::min(kBlock, x1 - b0);
    for (int64_t r = 0; r < rows; ++r) GatherRow(x, p.window, run_stride, n, oy, b0 + r, scratch->data() + r * p.k4);
    const int64_t pixel = (n * p.window.oh + oy) * p.window.ow + b0;
    PanelsAt<false>(scratch->data(), p.k4, p.packed.data(), rows, p, 0, p.panels, y + pixel * p.n, p.n);
  }
}

}  // namespace

void Int8ConvPixels(const int8_t* x, int64_t p0, int64_t p1, const Int8GemmWeights& p, int8_t* y,
                    std::vector<int8_t>* scratch) {
  const Int8Window& g = p.window;
  // The output columns whose windows lie inside the input's columns.
  const int64_t in_lo = std::min(g.ow, (g.pad_l + g.sw - 1) / g.sw);
  const int64_t last = g.iw - 1 - (g.kw - 1) * g.dw + g.pad_l;  // ox * sw <= last
  const int64_t in_hi = std::max(in_lo, std::min(g.ow, last < 0 ? 0 : last / g.sw + 1));
  for (int64_t pix = p0; pix < p1;) {
    const int64_t n = pix / (g.oh * g.ow), oy = (pix / g.ow) % g.oh, x0 = pix % g.ow;
    const int64_t x1 = std::min(g.ow, x0 + (p1 - pix));
    const int64_t iy0 = oy * g.sh - g.pad_t;
    const bool row_inside = iy0 >= 0 && iy0 + (g.kh - 1) * g.dh < g.ih;
    const int64_t a = row_inside ? std::clamp(in_lo, x0, x1) : x1, b = row_inside ? std::clamp(in_hi, a, x1) : x1;
    if (a > x0) GatheredPixels(x, p, n, oy, x0, a, y, scratch);
    if (b > a) {  // read in place
      const int8_t* origin = x + ((n * g.ih + iy0) * g.iw + a * g.sw - g.pad_l) * g.ic;
      const int64_t first = (n * g.oh + oy) * g.ow + a;
      PanelsAt<false>(origin, g.sw * g.ic, p.offset.data(), b - a, p, 0, p.panels, y + first * p.n, p.n);
    }
    if (x1 > b) GatheredPixels(x, p, n, oy, b, x1, y, scratch);
    pix += x1 - x0;
  }
}

}  // namespace gld::cpu
