// GLD_LAYER_NORM (made by transforms/fuse_layer_norm.cc from the converter's
// MEAN / SQUARED_DIFFERENCE / MEAN / ADD / RSQRT / MUL / MUL / MUL / SUB / ADD
// chain): per row of the last axis, mean and variance, then
//   s = rsqrt(variance + epsilon) * gamma,  out = x * s + (beta - mean * s),
// the chain's own arithmetic, so results stay within its rounding.
#include <cmath>

#include "cpu_kernels/kernels.h"

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
  const float* in = x.as<float>();
  const float* g = gamma.as<float>();
  const float* b = beta.as<float>();
  float* o = out.as<float>();
  const float inv_c = 1.0f / static_cast<float>(c);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * c;
    float* dst = o + r * c;
    double sum = 0.0;
    for (int64_t i = 0; i < c; ++i) sum += row[i];
    const float mean = static_cast<float>(sum) * inv_c;
    double sq = 0.0;
    for (int64_t i = 0; i < c; ++i) {
      const float d = row[i] - mean;
      sq += static_cast<double>(d * d);
    }
    const float rs = 1.0f / std::sqrt(static_cast<float>(sq) * inv_c + attrs->epsilon);
    for (int64_t i = 0; i < c; ++i) {
      const float s = rs * g[ng == 1 ? 0 : i];
      dst[i] = row[i] * s + (b[nb == 1 ? 0 : i] - mean * s);
    }
  }
  return OkStatus();
}

}  // namespace gld::cpu
