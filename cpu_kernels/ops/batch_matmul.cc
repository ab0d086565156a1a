// BATCH_MATMUL: x [..., M, K] (adj_x: [..., K, M]) times y [..., K, N] (adj_y:
// [..., N, K]), batch dimensions broadcast. float32. Where the CPU has
// AVX-512F or AVX2 with FMA (and the node has a state slot): each of y's matrices packed
// into pointwise_gemm.h's panels at every run (buffers kept in the slot),
// read in place whichever of y's layouts, then that GEMM over every
// (batch, 16-row tile) pair across the pool. Otherwise gemm.h's packed GEMM,
// one batch element after the other.
#include <memory>

#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/micro/gemm/gemm.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"

namespace gld::cpu {

namespace {

// The packed panels of each of y's matrices, and x's matrices transposed
// (adj_x), kept from one run to the next.
struct BatchMatMulState final : KernelState {
  std::vector<PointwiseWeights> y;
  std::vector<float> xt;
};

struct BatchMatMulDims {
  int64_t m = 0, k = 0, n = 0;
  int64_t x_batches = 0, y_batches = 0, batches = 0;
  bool adj_x = false, adj_y = false;
};

// Runs the product on the AVX-512 GEMM (true), or false when it cannot here.
bool RunBatchMatMulPointwise(KernelContext& ctx, const BatchMatMulDims& d, const BroadcastPlan& plan, Status* status) {
  *status = OkStatus();
  if (ctx.state == nullptr || !PointwiseGemmAvailable() || d.k == 0) return false;
  auto* state = StateAs<BatchMatMulState>(ctx);
  if (state == nullptr || state->y.size() != static_cast<size_t>(d.y_batches) ||
      state->y[0].k != d.k || state->y[0].n != d.n) {
    auto fresh = std::make_unique<BatchMatMulState>();
    fresh->y.resize(static_cast<size_t>(d.y_batches));
    for (PointwiseWeights& w : fresh->y) {
      *status = PlanPointwisePanels(d.n, d.k, KernelLabel(ctx) + " packed operand", &w);
      if (!status->ok()) return false;
    }
    if (d.adj_x) fresh->xt.resize(static_cast<size_t>(d.x_batches * d.m * d.k));
    state = fresh.get();
    *ctx.state = std::move(fresh);
  }
  const float* px = ctx.inputs[0]->as<float>();
  const float* py = ctx.inputs[1]->as<float>();
  float* po = ctx.outputs[0]->as<float>();
  const int64_t m = d.m, k = d.k, n = d.n;
  ctx.ParallelFor(d.y_batches + (d.adj_x ? d.x_batches : 0), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if (i < d.y_batches) {
        const float* y = py + i * k * n;
        PackPointwiseB(y, d.adj_y ? 1 : n, d.adj_y ? k : 1, &state->y[static_cast<size_t>(i)]);
        continue;
      }
      const int64_t xb = i - d.y_batches;
      const float* a = px + xb * m * k;
      float* t = state->xt.data() + xb * m * k;
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < k; ++c) t[r * k + c] = a[c * m + r];
    }
  });
  const float* xs = d.adj_x ? state->xt.data() : px;
  const int64_t tiles = (m + kPointwiseRowTile - 1) / kPointwiseRowTile;
  const ActivationRange none;  // no clamp
  ctx.ParallelFor(d.batches * tiles, [&](int64_t b, int64_t e) {
    for (int64_t item = b; item < e; ++item) {
      const int64_t bi = item / tiles, r0 = (item % tiles) * kPointwiseRowTile;
      int64_t ox = 0, oy = 0, rem = bi;
      for (size_t dim = plan.dims.size(); dim-- > 0;) {
        const int64_t i = rem % plan.dims[dim];
        rem /= plan.dims[dim];
        ox += i * plan.strides[0][dim];
        oy += i * plan.strides[1][dim];
      }
      const PointwiseWeights& w = state->y[static_cast<size_t>(oy)];
      PointwiseGemmRows(w, 0, w.panels.size(), xs + ox * m * k + r0 * k, k, std::min(kPointwiseRowTile, m - r0),
                        po + bi * m * n + r0 * n, n, none);
    }
  });
  return true;
}

}  // namespace

Status RunBatchMatMul(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  bool adj_x = false, adj_y = false;
  if (const auto* a = std::get_if<BatchMatMulAttributes>(&ctx.node->attributes)) {
    adj_x = a->adj_x;
    adj_y = a->adj_y;
  }
  const TensorData& x = *ctx.inputs[0];
  const TensorData& y = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  for (const TensorData* t : {&x, &y, static_cast<const TensorData*>(&out)}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
  }
  if (x.shape.size() < 2 || y.shape.size() < 2 || out.shape.size() < 2) {
    return KernelError(ctx, "operands must have rank >= 2");
  }
  const size_t xr = x.shape.size(), yr = y.shape.size();
  const int64_t m = adj_x ? x.shape[xr - 1] : x.shape[xr - 2];
  const int64_t k = adj_x ? x.shape[xr - 2] : x.shape[xr - 1];
  const int64_t ky = adj_y ? y.shape[yr - 1] : y.shape[yr - 2];
  const int64_t n = adj_y ? y.shape[yr - 2] : y.shape[yr - 1];
  const Shape bx(x.shape.begin(), x.shape.end() - 2), by(y.shape.begin(), y.shape.end() - 2);
  Shape batch;
  if (k != ky || !BroadcastShapes(bx, by, &batch)) {
    return KernelError(ctx, "cannot multiply " + ShapeToString(x.shape) + " by " + ShapeToString(y.shape));
  }
  Shape expected = batch;
  expected.push_back(static_cast<int32_t>(m));
  expected.push_back(static_cast<int32_t>(n));
  if (expected != out.shape) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " should be " + ShapeToString(expected));
  }
  if (out.num_elements() == 0) return OkStatus();
  BroadcastPlan plan;
  if (!plan.Build({&bx, &by}, batch)) return KernelError(ctx, "batch dimensions do not broadcast");
  const int64_t batches = NumElements(batch);
  const BatchMatMulDims dims{m, k, n, NumElements(bx), NumElements(by), batches, adj_x, adj_y};
  Status status;
  if (RunBatchMatMulPointwise(ctx, dims, plan, &status)) return OkStatus();
  GLD_RETURN_IF_ERROR(status);
  const float* px = x.as<float>();
  const float* py = y.as<float>();
  float* po = out.as<float>();
  std::vector<float> xt;
  if (adj_x) xt.resize(static_cast<size_t>(m * k));
  for (int64_t bi = 0; bi < batches; ++bi) {
    // Offsets (in matrices) of this batch element in x and y.
    int64_t ox = 0, oy = 0;
    {
      int64_t rem = bi;
      for (size_t d = plan.dims.size(); d-- > 0;) {
        const int64_t i = rem % plan.dims[d];
        rem /= plan.dims[d];
        ox += i * plan.strides[0][d];
        oy += i * plan.strides[1][d];
      }
    }
    const float* a = px + ox * m * k;
    const float* b = py + oy * k * n;
    if (adj_x) {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) xt[static_cast<size_t>(i * k + j)] = a[j * m + i];
      a = xt.data();
    }
    PackedB packed;
    if (adj_y) {
      PackGemmB(b, k, n, 1, k, &packed);
    } else {
      PackGemmB(b, k, n, n, 1, &packed);
    }
    float* c = po + bi * m * n;
    constexpr int64_t kRows = 32;
    ParallelForGrain(ctx, m, kRows, [&](int64_t r0, int64_t r1) {
      GemmRows(a + r0 * k, k, r1 - r0, packed, nullptr, c + r0 * n, n, ActivationRange{});
    });
  }
  return OkStatus();
}

}  // namespace gld::cpu
