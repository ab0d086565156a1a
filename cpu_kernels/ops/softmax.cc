// Normalizations over the last dimension: SOFTMAX (beta), LOG_SOFTMAX,
// L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION (across channels).
#include <cmath>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"

namespace gld::cpu {

namespace {

// Checks a float32 input/output pair of the same shape with rank >= 1 and
// returns rows x depth.
Status RowsOf(KernelContext& ctx, int64_t* rows, int64_t* depth) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (in.shape != out.shape) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) + " differ");
  }
  *depth = in.shape.empty() ? 1 : in.shape.back();
  *rows = *depth > 0 ? in.num_elements() / *depth : 0;
  return OkStatus();
}

}  // namespace

Status RunSoftmax(KernelContext& ctx) {
  int64_t rows = 0, depth = 0;
  GLD_RETURN_IF_ERROR(RowsOf(ctx, &rows, &depth));
  float beta = 1.f;
  if (const auto* a = std::get_if<SoftmaxAttributes>(&ctx.node->attributes)) beta = a->beta;
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, 4096 / std::max<int64_t>(depth, 1)), [&](int64_t b, int64_t e) {
    SoftmaxRows(x + b * depth, y + b * depth, e - b, depth, beta);
  });
  return OkStatus();
}

Status RunLogSoftmax(KernelContext& ctx) {
  int64_t rows = 0, depth = 0;
  GLD_RETURN_IF_ERROR(RowsOf(ctx, &rows, &depth));
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * depth;
    float* yr = y + r * depth;
    float mx = xr[0];
    for (int64_t i = 1; i < depth; ++i) mx = std::max(mx, xr[i]);
    float sum = 0.f;
    for (int64_t i = 0; i < depth; ++i) sum += std::exp(xr[i] - mx);
    const float log_sum = std::log(sum);
    for (int64_t i = 0; i < depth; ++i) yr[i] = xr[i] - mx - log_sum;
  }
  return OkStatus();
}

Status RunL2Normalization(KernelContext& ctx) {
  int64_t rows = 0, depth = 0;
  GLD_RETURN_IF_ERROR(RowsOf(ctx, &rows, &depth));
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  constexpr float kEpsilon = 1e-6f;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * depth;
    float* yr = y + r * depth;
    float sq = 0.f;
    for (int64_t i = 0; i < depth; ++i) sq += xr[i] * xr[i];
    const float norm = std::max(std::sqrt(sq), kEpsilon);
    for (int64_t i = 0; i < depth; ++i) yr[i] = xr[i] / norm;
  }
  return OkStatus();
}

Status RunLocalResponseNormalization(KernelContext& ctx) {
  int64_t rows = 0, depth = 0;
  GLD_RETURN_IF_ERROR(RowsOf(ctx, &rows, &depth));
  const LrnAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  if (ctx.inputs[0]->shape.size() != 4) {
    return KernelError(ctx, "input must be 4-D, got " + ShapeToString(ctx.inputs[0]->shape));
  }
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  const int64_t radius = a->radius;
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * depth;
    float* yr = y + r * depth;
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t lo = std::max<int64_t>(0, c - radius);
      const int64_t hi = std::min<int64_t>(depth - 1, c + radius);
      float acc = 0.f;
      for (int64_t i = lo; i <= hi; ++i) acc += xr[i] * xr[i];
      yr[c] = xr[c] * std::pow(a->bias + a->alpha * acc, -a->beta);
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
