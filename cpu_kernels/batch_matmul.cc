// BATCH_MATMUL: x [..., M, K] (adj_x: [..., K, M]) times y [..., K, N] (adj_y:
// [..., N, K]), batch dimensions broadcast. float32 through the packed GEMM.
#include "cpu_kernels/broadcast.h"
#include "cpu_kernels/gemm.h"
#include "cpu_kernels/kernels.h"

namespace gld::cpu {

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
