#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <utility>

#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {
// Output rows per micro-kernel call: 16 accumulators, enough to keep both
// FMA pipes busy through their latency: 8 rows x 2 vectors on a panel of
// 32 columns (10 loads per 16 multiply-adds, below the FMAs' rate), 16 rows
// x 1 vector on one of 16.
constexpr int kMaxRows = 16;
static_assert(kPointwiseRowTile == kMaxRows, "a row tile is one 16-row call");
constexpr int64_t kLanes = 16;
// The AVX2 form's tiles (16 YMM registers): 6 rows x 2 vectors of 8
// columns (12 accumulators, 2 weight vectors, a broadcast), or 12 rows x 1
// vector where a 16-column half of a panel has 8 real columns or fewer.
constexpr int kAvx2Rows2 = 6, kAvx2Rows1 = 12;
constexpr int64_t kAvx2Lanes = 8;
std::atomic<bool> g_enabled{true};  // SetPointwiseGemmEnabled
std::atomic<int> g_form{-1};        // SetPointwiseGemmForm (-1: the best the CPU runs)

PointwiseForm BestForm() {
  if (HasAvx512f()) return PointwiseForm::kAvx512;
  if (HasAvx2Fma()) return PointwiseForm::kAvx2;
  return PointwiseForm::kNone;
}
}  // namespace

std::vector<PointwiseForm> PointwiseGemmForms() {
  std::vector<PointwiseForm> forms;
  if (HasAvx2Fma()) forms.push_back(PointwiseForm::kAvx2);
  if (HasAvx512f()) forms.push_back(PointwiseForm::kAvx512);
  return forms;
}

PointwiseForm SetPointwiseGemmForm(PointwiseForm form) {
  const int previous = g_form.exchange(form == PointwiseForm::kNone ? -1 : static_cast<int>(form));
  return previous < 0 ? PointwiseForm::kNone : static_cast<PointwiseForm>(previous);
}

PointwiseForm ActivePointwiseGemmForm() {
  if (!g_enabled.load(std::memory_order_relaxed)) return PointwiseForm::kNone;
  const int forced = g_form.load(std::memory_order_relaxed);
  if (forced < 0) return BestForm();
  const PointwiseForm f = static_cast<PointwiseForm>(forced);
  for (PointwiseForm available : PointwiseGemmForms()) {
    if (available == f) return f;
  }
  return PointwiseForm::kNone;
}

const char* PointwiseFormName(PointwiseForm form) {
  switch (form) {
    case PointwiseForm::kAvx512: return "avx512";
    case PointwiseForm::kAvx2: return "avx2";
    case PointwiseForm::kNone: break;
  }
  return "none";
}

bool SetPointwiseGemmEnabled(bool enabled) { return g_enabled.exchange(enabled); }

Status PlanPointwisePanels(int64_t n, int64_t k, const std::string& what, PointwiseWeights* out) {
  out->k = k;
  out->n = n;
  out->panels.clear();
  int64_t floats = 0;
  for (int64_t col = 0; col < n;) {
    PointwisePanel p;
    p.col = col;
    p.width = n - col <= kLanes ? kLanes : 2 * kLanes;
    p.cols = std::min(p.width, n - col);
    p.weights = floats;
    floats += k * p.width;
    out->panels.push_back(p);
    col += p.cols;
  }
  for (PointwisePanel& p : out->panels) {
    p.bias = floats;
    floats += p.width;
  }
  return out->packed.Allocate(static_cast<uint64_t>(floats) * sizeof(float), what);  // zeroed
}

void PackPointwiseB(const float* b, int64_t row_stride, int64_t col_stride, PointwiseWeights* w) {
  float* dst = reinterpret_cast<float*>(w->packed.data());
  const int64_t k = w->k;
  for (const PointwisePanel& p : w->panels) {
    float* panel = dst + p.weights;
    if (col_stride == 1) {  // rows of B contiguous: a copy per row of the panel
      for (int64_t r = 0; r < k; ++r) CopyWords(panel + r * p.width, b + r * row_stride + p.col, p.cols);
    } else if (row_stride == 1) {  // columns contiguous (a [n, k] filter, an adj_y operand): a transpose
      TransposeWords(reinterpret_cast<const uint32_t*>(b + p.col * col_stride), col_stride,
                     reinterpret_cast<uint32_t*>(panel), p.width, k, p.cols);
    } else {
      for (int64_t j = 0; j < p.cols; ++j) {
        const float* col = b + (p.col + j) * col_stride;
        for (int64_t r = 0; r < k; ++r) panel[r * p.width + j] = col[r * row_stride];
      }
    }
  }
}

Status PackPointwiseWeights(const float* w, const float* bias, int64_t n, int64_t k, const std::string& what,
                            PointwiseWeights* out) {
  GLD_RETURN_IF_ERROR(PlanPointwisePanels(n, k, what, out));
  PackPointwiseB(w, 1, k, out);
  if (bias != nullptr) {
    float* dst = reinterpret_cast<float*>(out->packed.data());
    for (const PointwisePanel& p : out->panels) std::memcpy(dst + p.bias, bias + p.col, p.cols * sizeof(float));
  }
  return OkStatus();
}

#ifdef GLD_AVX512

namespace {

// R rows x V vectors of `Lanes` floats of C: acc starts from the bias, then
// one fused multiply-add per value of A's rows in order: `segments` runs of
// seg_len values, run s of row r at ptrs[s * stride + r] + s * advance, the
// weights of one value `pitch` floats after the last's (the panel's width);
// clamped as stored (NaN fails both compares and stays); `cols` of the
// V * Lanes columns are written. Inlined into each form's tile, so that it
// is compiled for that form's instruction set; the two forms make the same
// multiply-adds in the same order, so the same bits.
template <typename Vec, int Lanes, int R, int V>
__attribute__((always_inline)) inline void TileBody(const float* const* ptrs, int64_t stride, int64_t advance,
                                                    int64_t segments, int64_t seg_len, const float* panel,
                                                    int64_t pitch, const float* bias, float lo, float hi, float* c,
                                                    int64_t ldc, int64_t cols) {
  Vec acc[R][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    Vec b;
    std::memcpy(&b, bias + Lanes * v, sizeof b);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) acc[r][v] = b;
  }
  for (int64_t sg = 0; sg < segments; ++sg, panel += seg_len * pitch) {
    const float* row[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) row[r] = ptrs[sg * stride + r] + sg * advance;
    for (int64_t x = 0; x < seg_len; ++x) {
      Vec w[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) std::memcpy(&w[v], panel + x * pitch + v * Lanes, sizeof w[v]);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const float s = row[r][x];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[r][v] += w[v] * s;
      }
    }
  }
  const Vec vlo = Vec{} + lo, vhi = Vec{} + hi;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      Vec y = acc[r][v];
      GLD_CLAMP8(y, vlo, vhi);
      float* dst = c + r * ldc + v * Lanes;
      const int64_t left = cols - v * Lanes;
      if (left >= Lanes) {
        std::memcpy(dst, &y, sizeof y);
      } else if (left > 0) {
        float tmp[Lanes];
        std::memcpy(tmp, &y, sizeof y);
        std::memcpy(dst, tmp, static_cast<size_t>(left) * sizeof(float));
      }
    }
  }
}

#define GLD_TILE_PARAMS                                                                                       \
  const float *const *ptrs, int64_t stride, int64_t advance, int64_t segments, int64_t seg_len,              \
      const float *panel, int64_t pitch, const float *bias, float lo, float hi, float *c, int64_t ldc, int64_t cols
#define GLD_TILE_ARGS ptrs, stride, advance, segments, seg_len, panel, pitch, bias, lo, hi, c, ldc, cols
// The AVX-512 form: vectors of 16 (a panel of 16 or 32 columns whole).
template <int R, int V>
GLD_AVX512 void PointwiseTile(GLD_TILE_PARAMS) {
  TileBody<Float16, 16, R, V>(GLD_TILE_ARGS);
}
// The AVX2 form: vectors of 8 over one 16-column half of a panel.
template <int R, int V>
GLD_AVX2 void PointwiseTile8(GLD_TILE_PARAMS) {
  TileBody<Float8, 8, R, V>(GLD_TILE_ARGS);
}
#undef GLD_TILE_ARGS
#undef GLD_TILE_PARAMS

using TileFn = void (*)(const float* const*, int64_t, int64_t, int64_t, int64_t, const float*, int64_t,
                        const float*, float, float, float*, int64_t, int64_t);

template <int V, int... R>
constexpr std::array<TileFn, sizeof...(R)> MakeTiles(std::integer_sequence<int, R...>) {
  return {PointwiseTile<R + 1, V>...};
}
// kTiles<V>[r - 1]: r rows of V vectors.
template <int V>
constexpr std::array<TileFn, kMaxRows / V> kTiles = MakeTiles<V>(std::make_integer_sequence<int, kMaxRows / V>());

template <int V, int... R>
constexpr std::array<TileFn, sizeof...(R)> MakeTiles8(std::integer_sequence<int, R...>) {
  return {PointwiseTile8<R + 1, V>...};
}
constexpr std::array<TileFn, kAvx2Rows1> kTiles8x1 = MakeTiles8<1>(std::make_integer_sequence<int, kAvx2Rows1>());
constexpr std::array<TileFn, kAvx2Rows2> kTiles8x2 = MakeTiles8<2>(std::make_integer_sequence<int, kAvx2Rows2>());
// One or two rows (a squeeze-and-excite block's layers, a decode step's):
// a tile over the whole panel, up to 4 vectors, so that a row has as many
// independent sums as the panel has vectors (two halves of 2 left the
// multiply-adds waiting on each other). kFewRows[v - 1][r - 1].
constexpr int kFewRows = 2;
constexpr std::array<std::array<TileFn, kFewRows>, 4> kTiles8Few = {{{PointwiseTile8<1, 1>, PointwiseTile8<2, 1>},
                                                                     {PointwiseTile8<1, 2>, PointwiseTile8<2, 2>},
                                                                     {PointwiseTile8<1, 3>, PointwiseTile8<2, 3>},
                                                                     {PointwiseTile8<1, 4>, PointwiseTile8<2, 4>}}};

// Panels [p0, p1) on the AVX2 tiles: each panel's 16-column halves that
// hold real columns, rows in steps of the tile.
void PointwiseIndirectAvx2(const PointwiseWeights& w, size_t p0, size_t p1, const PointwiseRuns& a, int64_t m,
                           float* c, int64_t ldc, ActivationRange act) {
  const float* packed = w.data();
  for (size_t q = p0; q < p1; ++q) {
    const PointwisePanel& p = w.panels[q];
    if (m <= kFewRows) {
      const TileFn tile = kTiles8Few[static_cast<size_t>((p.cols + kAvx2Lanes - 1) / kAvx2Lanes - 1)][m - 1];
      tile(a.ptrs, a.stride, a.advance, a.segments, a.seg_len, packed + p.weights, p.width, packed + p.bias, act.lo,
           act.hi, c + p.col, ldc, p.cols);
      continue;
    }
    for (int64_t h = 0; h < p.width && h < p.cols; h += kLanes) {
      const int64_t cols = std::min(kLanes, p.cols - h);
      const bool one = cols <= kAvx2Lanes;
      // The rows in even calls (16: 8 + 8 or 6 + 5 + 5, not 12 + 4 or
      // 6 + 6 + 4): a call of few rows has too few accumulators to hide
      // the multiply-adds' latency.
      const int64_t most = one ? kAvx2Rows1 : kAvx2Rows2;
      const int64_t calls = (m + most - 1) / most;
      for (int64_t r = 0, call = 0; r < m; ++call) {
        const int64_t n = (m - r + (calls - call) - 1) / (calls - call);
        const TileFn tile = one ? kTiles8x1[n - 1] : kTiles8x2[n - 1];
        tile(a.ptrs + r, a.stride, a.advance, a.segments, a.seg_len, packed + p.weights + h, p.width,
             packed + p.bias + h, act.lo, act.hi, c + r * ldc + p.col + h, ldc, cols);
        r += n;
      }
    }
  }
}

}  // namespace

bool PointwiseGemmAvailable() { return ActivePointwiseGemmForm() != PointwiseForm::kNone; }

void PointwiseGemmIndirect(const PointwiseWeights& w, size_t p0, size_t p1, const PointwiseRuns& a, int64_t m,
                           float* c, int64_t ldc, ActivationRange act) {
  if (ActivePointwiseGemmForm() != PointwiseForm::kAvx512) return PointwiseIndirectAvx2(w, p0, p1, a, m, c, ldc, act);
  const float* packed = w.data();
  // Panels outside, a panel's row tiles inside: the rows of A stay in L1
  // while every panel of W passes them once.
  for (size_t q = p0; q < p1; ++q) {
    const PointwisePanel& p = w.panels[q];
    const int64_t step = p.width == kLanes ? kMaxRows : kMaxRows / 2;
    for (int64_t r = 0; r < m; r += step) {
      const int64_t n = std::min(step, m - r);
      const TileFn tile = p.width == kLanes ? kTiles<1>[n - 1] : kTiles<2>[n - 1];
      tile(a.ptrs + r, a.stride, a.advance, a.segments, a.seg_len, packed + p.weights, p.width, packed + p.bias,
           act.lo, act.hi, c + r * ldc + p.col, ldc, p.cols);
    }
  }
}

void PointwiseGemmRows(const PointwiseWeights& w, size_t p0, size_t p1, const float* a, int64_t lda, int64_t m,
                       float* c, int64_t ldc, ActivationRange act) {
  const float* rows[kPointwiseRowTile];
  for (int64_t i = 0; i < m; i += kPointwiseRowTile) {
    const int64_t n = std::min(kPointwiseRowTile, m - i);
    for (int64_t r = 0; r < n; ++r) rows[r] = a + (i + r) * lda;
    PointwiseGemmIndirect(w, p0, p1, PointwiseRuns{rows, 0, 0, 1, w.k}, n, c + i * ldc, ldc, act);
  }
}

#else

bool PointwiseGemmAvailable() { return false; }

void PointwiseGemmIndirect(const PointwiseWeights&, size_t, size_t, const PointwiseRuns&, int64_t, float*, int64_t,
                           ActivationRange) {}

void PointwiseGemmRows(const PointwiseWeights&, size_t, size_t, const float*, int64_t, int64_t, float*, int64_t,
                       ActivationRange) {}

#endif

}  // namespace gld::cpu
