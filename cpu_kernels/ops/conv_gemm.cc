// CONV_2D on the GEMM of pointwise_gemm.h (AVX-512 or AVX2): prepare packs
// the filter once, one GEMM per group; run splits the output pixels in
// tiles of rows (and, with few tiles, the column panels or the groups too)
// across the pool, and runs the step's epilogue on each piece as it is
// finished. A 1x1 window over every pixel reads its rows from the input as
// they are; any other window reads each pixel's window in place, as kh
// runs of kw x ic values (one per tap with a dilation across or with
// groups: a group's channels of a tap are contiguous, its window row is
// not), from pointers made per tile (XNNPACK's indirection, without its
// buffer): copying the im2col rows cost more than the multiply-adds of a
// first layer's 27 values per pixel.
#include <algorithm>
#include <memory>
#include <vector>

#include "cpu_kernels/ops/epilogue.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"

namespace gld::cpu {

namespace {

// At most this many values in a window (kh x kw x ic) and this many runs
// (kh, or kh x kw with a dilation across).
constexpr int64_t kMaxWindowDepth = 1024;
constexpr int64_t kMaxWindowRuns = 64;

// Zeros for the window runs that lie in the padding.
alignas(64) const float kZeros[kMaxWindowDepth] = {};

// The runs of A's rows for output pixels [p0, p0 + rows)
// (PointwiseGemmIndirect): with no dilation across and one group, run fy of
// pixel r is window row fy, kw * ic values contiguous in NHWC, read in
// place; otherwise run (fy, fx) is one tap of group_ic values (x points at
// the group's first channel). When every window of the tile lies
// inside the input, one pointer per pixel and the step between its runs;
// otherwise a table of every run, with the zeros for a run in the padding
// and a copy into `scratch` padded with zeros for a window row that
// straddles the left or right edge.
PointwiseRuns WindowRuns(const ConvGemmState& s, const float* x, int64_t p0, int64_t rows, const float** ptrs,
                         float* scratch) {
  const int64_t ic = s.ic, kh = s.kh, kw = s.kw, ih = s.ih, iw = s.iw, oh = s.oh, ow = s.ow;
  const int64_t sh = s.sh, sw = s.sw, dh = s.dh, dw = s.dw, pad_t = s.pad_t, pad_l = s.pad_l;
  const bool whole_rows = dw == 1 && s.groups == 1;
  const int64_t runs_per_row = whole_rows ? 1 : kw;
  const int64_t run = whole_rows ? kw * ic : s.group_ic;
  PointwiseRuns a{ptrs, 0, whole_rows ? dh * iw * ic : 0, kh * runs_per_row, run};
  // The first pixel's coordinates by division, the others by counting.
  const int64_t n0 = p0 / (oh * ow), oy0 = (p0 / ow) % oh, ox0 = p0 % ow;
  int64_t n = n0, oy = oy0, ox = ox0;
  auto next_pixel = [&] {
    if (++ox == ow) {
      ox = 0;
      if (++oy == oh) oy = 0, ++n;
    }
  };
  bool inside = whole_rows;
  for (int64_t r = 0; r < rows && inside; ++r) {
    const int64_t iy0 = oy * sh - pad_t, ix0 = ox * sw - pad_l;
    inside = iy0 >= 0 && iy0 + (kh - 1) * dh < ih && ix0 >= 0 && ix0 + kw <= iw;
    ptrs[r] = x + ((n * ih + iy0) * iw + ix0) * ic;
    next_pixel();
  }
  if (inside) return a;
  a.stride = rows;
  a.advance = 0;
  n = n0, oy = oy0, ox = ox0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* image = x + n * ih * iw * ic;
    const int64_t iy0 = oy * sh - pad_t, ix0 = ox * sw - pad_l;
    const float** at = ptrs + r;
    for (int64_t fy = 0; fy < kh; ++fy, at += runs_per_row * rows) {
      const int64_t iy = iy0 + fy * dh;
      if (iy < 0 || iy >= ih) {
        for (int64_t fx = 0; fx < runs_per_row; ++fx) at[fx * rows] = kZeros;
        continue;
      }
      const float* src = image + iy * iw * ic;
      if (!whole_rows) {
        for (int64_t fx = 0; fx < kw; ++fx) {
          const int64_t ix = ix0 + fx * dw;
          at[fx * rows] = ix >= 0 && ix < iw ? src + ix * ic : kZeros;
        }
      } else if (ix0 >= 0 && ix0 + kw <= iw) {
        *at = src + ix0 * ic;
      } else {
        float* row = scratch + (r * kh + fy) * run;
        for (int64_t fx = 0; fx < kw; ++fx) {
          const int64_t ix = ix0 + fx;
          const float* from = ix >= 0 && ix < iw ? src + ix * ic : kZeros;
          std::copy(from, from + ic, row + fx * ic);
        }
        *at = row;
      }
    }
    next_pixel();
  }
  return a;
}

}  // namespace

bool PrepareConvGemm(KernelContext& ctx, const ConvIo& io, const Conv2dAttributes& attrs, Status* status) {
  *status = OkStatus();
  const Shape& in = io.in->shape;
  const Shape& filter = io.filter->shape;
  const Shape& out = io.out->shape;
  const int64_t kh = filter[1], kw = filter[2], ic = in[3], group_ic = filter[3], oc = out[3];
  const int64_t groups = group_ic > 0 && ic % group_ic == 0 ? ic / group_ic : 0;
  const bool pointwise = kh == 1 && kw == 1 && attrs.stride_h == 1 && attrs.stride_w == 1 && out[1] == in[1] &&
                         out[2] == in[2];
  const int64_t runs = pointwise ? 1 : attrs.dilation_w == 1 && groups == 1 ? kh : kh * kw;  // WindowRuns
  // A window that meets the padding multiplies zeros where TFLite skips the
  // tap: the same sums while every weight is finite (an infinite one would
  // make NaN there). On AVX-512, windows with 16 output channels or fewer
  // stay with XNNPACK: one 16-wide panel makes a row of 16 pointers per
  // tile, which measured slower (the shared models' first layers, 1 thread:
  // 3x3 3 -> 16 channels 78 -> 96 us, 3 -> 24 206 -> 194, 5x5 3 -> 32 405 ->
  // 269). The AVX2 tiles take them (6 rows of two vectors): pt_regnet's
  // 3x3 3 -> 16 stem, 29 -> 21 us against Debian XNNPACK's AVX2 GEMM.
  const bool narrow_windows = ActivePointwiseGemmForm() == PointwiseForm::kAvx2;
  // Groups: a GEMM each, over its own channels (Debian XNNPACK's grouped
  // GEMM measured about 2x slower on RegNet's 8-channel groups); a group of
  // fewer than 4 channels is left to XNNPACK (a run per tap of 1-3 values
  // costs more in pointers than in multiply-adds).
  const bool grouping = groups == 1 || (groups > 1 && oc % groups == 0 && group_ic >= 4);
  const bool fits = ctx.state != nullptr && PointwiseGemmAvailable() && grouping &&
                    IsClampActivation(attrs.activation) && ctx.InputIsConstant(1) &&
                    (io.bias == nullptr || ctx.InputIsConstant(2)) && io.out->num_elements() > 0 &&
                    (pointwise || ((out[3] > 16 || groups > 1 || narrow_windows) &&
                                   kh * kw * group_ic <= kMaxWindowDepth && runs <= kMaxWindowRuns &&
                                   ic <= kMaxWindowDepth && AllFinite(*io.filter)));
  ConvGeometry geometry;
  if (!fits || !MakeConvGeometry(attrs, in, filter, &geometry).ok() || !geometry.Gives(out)) return false;
  auto state = std::make_unique<ConvGemmState>();
  ConvGemmState& s = *state;
  s.range = GetActivationRange(attrs.activation);
  s.pointwise = pointwise;
  s.ih = in[1], s.iw = in[2], s.ic = ic, s.oh = out[1], s.ow = out[2];
  s.kh = kh, s.kw = kw, s.sh = attrs.stride_h, s.sw = attrs.stride_w, s.dh = attrs.dilation_h, s.dw = attrs.dilation_w;
  s.runs = runs;
  s.groups = groups, s.group_ic = group_ic;
  s.pad_t = geometry.h().pad_before, s.pad_l = geometry.w().pad_before;
  const int64_t group_oc = oc / groups, k = kh * kw * group_ic;
  s.weights.resize(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    *status = PackPointwiseWeights(io.filter->as<float>() + g * group_oc * k,
                                   io.bias != nullptr ? io.bias->as<float>() + g * group_oc : nullptr, group_oc, k,
                                   KernelLabel(ctx) + " packed filter", &s.weights[static_cast<size_t>(g)]);
    if (!status->ok()) return false;
  }
  *ctx.state = std::move(state);
  return true;
}

bool RunConvGemm(KernelContext& ctx) {
  const auto* state = StateAs<const ConvGemmState>(ctx);
  if (state == nullptr) return false;
  const ConvGemmState& s = *state;
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const int64_t group_n = s.weights[0].n, n = s.groups * group_n, lda = s.groups * s.group_ic;
  const int64_t m = NumElements(out.shape) / n;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  const Epilogue* epilogue = ctx.epilogue;
  const int64_t tiles = (m + kPointwiseRowTile - 1) / kPointwiseRowTile;
  const int64_t panels = static_cast<int64_t>(s.weights[0].panels.size());
  // The pieces of a row tile: its groups, or, with one group and few row
  // tiles (a 7x7 feature map), ranges of panels, enough for the pool to
  // even out.
  const int64_t want = 8 * std::max(ctx.num_threads, 1);
  const int64_t parts = s.groups > 1                              ? s.groups
                        : ctx.num_threads > 1 && tiles < want ? std::min(panels, (want + tiles - 1) / tiles)
                                                              : 1;
  ctx.ParallelFor(tiles * parts, [&](int64_t b, int64_t e) {
    // A tile's runs (8 KiB at most; a 1x1 window over every pixel needs
    // none) and the padded copies of the window rows that straddle an edge:
    // on the stack up to 16 KiB (a first layer's 3x3x3 windows need 1.7),
    // else per thread on the heap, once (up to 64 KiB, too much for the
    // stack of an app's thread that calls Invoke).
    const float* ptrs[kPointwiseRowTile * kMaxWindowRuns];
    float stack_scratch[4096];
    float* scratch = stack_scratch;
    // Only whole window rows (one group, no dilation across) are copied.
    const bool copies = !s.pointwise && s.groups == 1 && s.dw == 1;
    const int64_t scratch_values = copies ? kPointwiseRowTile * s.kh * s.kw * s.ic : 0;
    if (scratch_values > 4096) {
      thread_local std::vector<float> t_scratch;
      t_scratch.resize(static_cast<size_t>(scratch_values));
      scratch = t_scratch.data();
    }
    for (int64_t item = b; item < e;) {
      const int64_t t = item / parts;
      const int64_t j0 = item % parts;
      // One group, or this tile's panel ranges in [b, e) run as one.
      const int64_t j1 = s.groups > 1 ? j0 + 1 : std::min(parts, e - t * parts);
      const int64_t g = s.groups > 1 ? j0 : 0;
      const PointwiseWeights& w = s.weights[static_cast<size_t>(g)];
      const int64_t r0 = t * kPointwiseRowTile;
      const int64_t rows = std::min(kPointwiseRowTile, m - r0);
      const size_t p0 = s.groups > 1 ? 0 : static_cast<size_t>(j0 * panels / parts);
      const size_t p1 = s.groups > 1 ? w.panels.size() : static_cast<size_t>(j1 * panels / parts);
      const float* xg = x + g * s.group_ic;
      float* yg = y + r0 * n + g * group_n;
      if (s.pointwise) {
        PointwiseGemmRows(w, p0, p1, xg + r0 * lda, lda, rows, yg, n, s.range);
      } else {
        PointwiseGemmIndirect(w, p0, p1, WindowRuns(s, xg, r0, rows, ptrs, scratch), rows, yg, n, s.range);
      }
      if (epilogue != nullptr) {
        const int64_t c0 = g * group_n + w.panels[p0].col;
        const int64_t c1 = g * group_n + w.panels[p1 - 1].col + w.panels[p1 - 1].cols;
        if (c0 == 0 && c1 == n) {
          RunEpilogue(*epilogue, y, r0 * n, (r0 + rows) * n);
        } else {
          for (int64_t r = r0; r < r0 + rows; ++r) RunEpilogue(*epilogue, y, r * n + c0, r * n + c1);
        }
      }
      item = t * parts + j1;
    }
  });
  ctx.epilogue_done = epilogue != nullptr;
  return true;
}

}  // namespace gld::cpu
