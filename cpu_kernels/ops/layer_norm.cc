// GLD_LAYER_NORM (made by transforms/fuse_layer_norm.cc from the converter's
// MEAN / SQUARED_DIFFERENCE / MEAN / ADD / RSQRT / MUL / MUL / MUL / SUB / ADD
// chain): per row of the last axis, mean and variance, then
//   s = rsqrt(variance + epsilon) * gamma,  out = x * s + (beta - mean * s),
// the chain's own arithmetic, so results stay within its rounding; rows
// vectorized (vector_math.h LayerNormRows) and split across the threads.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"

namespace gld::cpu {

Status RunLayerNorm(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const auto* attrs = std::get_if<LayerNormAttributes>(&ctx.node->attributes);
  if (attrs == nullptr) return KernelError(ctx, "missing LayerNormAttributes");
  const TensorData& x = *ctx.inputs[0];
  const TensorData& gamma = *ctx.inputs[1];
  const TensorData& beta = *ctx.inputs[2];
  TensorData& out = *ctx.outputs[0];
  for (const TensorData* t : {&x, &gamma, &beta, static_cast<const TensorData*>(&out)}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
  }
  if (x.shape.empty() || out.shape != x.shape) {
    return KernelError(ctx, "input " + ShapeToString(x.shape) + " and output " + ShapeToString(out.shape) +
                                " must be one shape of rank >= 1");
  }
  const int64_t c = x.shape.back();
  const int64_t ng = gamma.num_elements(), nb = beta.num_elements();
  if ((ng != c && ng != 1) || (nb != c && nb != 1)) {
    return KernelError(ctx, "gamma and beta must hold 1 or " + std::to_string(c) + " values");
  }
  if (c == 0) return OkStatus();
  const int64_t rows = x.num_elements() / c;
  // One-value gamma or beta spread over the row (the vector rows read c).
  std::vector<float> spread_g, spread_b;
  const float* g = gamma.as<float>();
  const float* b = beta.as<float>();
  if (ng == 1 && c > 1) {
    spread_g.assign(static_cast<size_t>(c), g[0]);
    g = spread_g.data();
  }
  if (nb == 1 && c > 1) {
    spread_b.assign(static_cast<size_t>(c), b[0]);
    b = spread_b.data();
  }
  const float* in = x.as<float>();
  float* o = out.as<float>();
  const float eps = attrs->epsilon;
  // Rows in chunks of about kRowChunkValues values: a smaller norm (BERT-
  // tiny's 32 x 64, under a microsecond) costs less on one thread than a
  // loop on the pool.
  constexpr int64_t kRowChunkValues = 16384;
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, kRowChunkValues / c), [&](int64_t r0, int64_t r1) {
    LayerNormRows(in + r0 * c, o + r0 * c, r1 - r0, c, g, b, eps);
  });
  return OkStatus();
}

}  // namespace gld::cpu

namespace gld::cpu {

// GLD_RMS_NORM (transforms/fuse_composites.cc, from odml.rms_norm): per row
// of the last axis, out = x * rsqrt(mean(x * x) + epsilon) * gamma, the
// decomposition's arithmetic (its MEAN sums in float too).
Status RunRmsNorm(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const auto* attrs = std::get_if<RmsNormAttributes>(&ctx.node->attributes);
  if (attrs == nullptr) return KernelError(ctx, "missing RmsNormAttributes");
  const TensorData& x = *ctx.inputs[0];
  const TensorData& gamma = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  for (const TensorData* t : {&x, &gamma, static_cast<const TensorData*>(&out)}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kFloat32, "operand"));
  }
  if (x.shape.empty() || out.shape != x.shape) {
    return KernelError(ctx, "input " + ShapeToString(x.shape) + " and output " + ShapeToString(out.shape) +
                                " must be one shape of rank >= 1");
  }
  const int64_t c = x.shape.back();
  const int64_t ng = gamma.num_elements();
  if (ng != c && ng != 1) return KernelError(ctx, "gamma must hold 1 or " + std::to_string(c) + " values");
  if (c == 0) return OkStatus();
  const int64_t rows = x.num_elements() / c;
  const float* in = x.as<float>();
  const float* g = gamma.as<float>();
  float* o = out.as<float>();
  const float eps = attrs->epsilon;
  const int64_t g_step = ng == 1 ? 0 : 1;
  constexpr int64_t kRowChunkValues = 16384;
  ParallelForGrain(ctx, rows, std::max<int64_t>(1, kRowChunkValues / c), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* row = in + r * c;
      float* y = o + r * c;
      float sum = 0.0f;
      for (int64_t i = 0; i < c; ++i) sum += row[i] * row[i];
      const float s = 1.0f / std::sqrt(sum / static_cast<float>(c) + eps);
      for (int64_t i = 0; i < c; ++i) y[i] = row[i] * s * g[i * g_step];
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
