// A float32 unary elementwise helper, shared by activations.cc and
// elementwise_unary.cc.
#pragma once

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

// Checks one float32 input and a float32 output of the same element count.
// UnaryFloat checks so, then writes out[i] = op(in[i]) across threads.
inline Status CheckUnaryFloat(const KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " and output " + ShapeToString(out.shape) +
                                " differ in size");
  }
  return OkStatus();
}

template <typename Op>
Status UnaryFloat(KernelContext& ctx, Op op) {
  GLD_RETURN_IF_ERROR(CheckUnaryFloat(ctx));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const float* x = in.as<float>();
  float* y = out.as<float>();
  ParallelForGrain(ctx, in.num_elements(), 16384, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) y[i] = op(x[i]);
  });
  return OkStatus();
}

// As UnaryFloat with a vectorized row function (vector_math.h): row(x, y, n)
// writes y[i] = f(x[i]) for i < n, on pieces of at least `grain` elements.
template <typename Row>
Status UnaryFloatRows(KernelContext& ctx, int64_t grain, Row row) {
  GLD_RETURN_IF_ERROR(CheckUnaryFloat(ctx));
  const float* x = ctx.inputs[0]->as<float>();
  float* y = ctx.outputs[0]->as<float>();
  ParallelForGrain(ctx, ctx.inputs[0]->num_elements(), grain, [&](int64_t b, int64_t e) { row(x + b, y + b, e - b); });
  return OkStatus();
}

}  // namespace gld::cpu
