// CONV_2D with a 1x1 filter over every pixel (stride 1, no padding, one
// group) on the AVX-512 GEMM of pointwise_gemm.h: prepare packs the filter
// once, run splits the output rows (and, with few rows, the column panels)
// across the pool, and runs the step's epilogue on each piece as it is
// finished.
#include <algorithm>
#include <memory>

#include "cpu_kernels/epilogue.h"
#include "cpu_kernels/kernels.h"
#include "cpu_kernels/pointwise_gemm.h"

namespace gld::cpu {

bool PreparePointwiseConv(KernelContext& ctx, const ConvIo& io, const Conv2dAttributes& attrs, Status* status) {
  *status = OkStatus();
  const Shape& in = io.in->shape;
  const Shape& filter = io.filter->shape;
  const Shape& out = io.out->shape;
  const bool fits = ctx.state != nullptr && PointwiseGemmAvailable() && filter[1] == 1 && filter[2] == 1 &&
                    filter[3] == in[3] && attrs.stride_h == 1 && attrs.stride_w == 1 && out[1] == in[1] &&
                    out[2] == in[2] && IsClampActivation(attrs.activation) && ctx.InputIsConstant(1) &&
                    (io.bias == nullptr || ctx.InputIsConstant(2)) && io.out->num_elements() > 0;
  if (!fits) return false;
  auto state = std::make_unique<PointwiseConvState>();
  state->range = GetActivationRange(attrs.activation);
  *status = PackPointwiseWeights(io.filter->as<float>(), io.bias != nullptr ? io.bias->as<float>() : nullptr,
                                 out[3], in[3], KernelLabel(ctx) + " packed filter", &state->weights);
  if (!status->ok()) return false;
  *ctx.state = std::move(state);
  return true;
}

bool RunPointwiseConv(KernelContext& ctx) {
  const auto* state = ctx.state != nullptr ? dynamic_cast<const PointwiseConvState*>(ctx.state->get()) : nullptr;
  if (state == nullptr) return false;
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const PointwiseWeights& w = state->weights;
  const int64_t m = NumElements(out.shape) / w.n;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  const Epilogue* epilogue = ctx.epilogue;
  const int64_t tiles = (m + kPointwiseRowTile - 1) / kPointwiseRowTile;
  const int64_t panels = static_cast<int64_t>(w.panels.size());
  // Enough pieces for the pool to even out: with few row tiles (a 7x7
  // feature map), the panels are split too.
  const int64_t want = 8 * std::max(ctx.num_threads, 1);
  const int64_t groups = ctx.num_threads > 1 && tiles < want ? std::min(panels, (want + tiles - 1) / tiles) : 1;
  ctx.ParallelFor(tiles * groups, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e;) {
      const int64_t t = item / groups;
      const int64_t g0 = item % groups;
      // This tile's groups in [b, e), run as one panel range.
      const int64_t g1 = std::min(groups, e - t * groups);
      const int64_t r0 = t * kPointwiseRowTile;
      const int64_t rows = std::min(kPointwiseRowTile, m - r0);
      const size_t p0 = static_cast<size_t>(g0 * panels / groups);
      const size_t p1 = static_cast<size_t>(g1 * panels / groups);
      PointwiseGemmRows(w, p0, p1, x + r0 * w.k, w.k, rows, y + r0 * w.n, w.n, state->range);
      if (epilogue != nullptr) {
        const int64_t c0 = w.panels[p0].col;
        const int64_t c1 = w.panels[p1 - 1].col + w.panels[p1 - 1].cols;
        if (c0 == 0 && c1 == w.n) {
          RunEpilogue(*epilogue, y, r0 * w.n, (r0 + rows) * w.n);
        } else {
          for (int64_t r = r0; r < r0 + rows; ++r) RunEpilogue(*epilogue, y, r * w.n + c0, r * w.n + c1);
        }
      }
      item = t * groups + g1;
    }
  });
  ctx.epilogue_done = epilogue != nullptr;
  return true;
}

}  // namespace gld::cpu
