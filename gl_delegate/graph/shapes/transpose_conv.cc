// Shape rules of TRANSPOSE_CONV (the output_shape input) and MediaPipe's
// Convolution2DTransposeBias; and MediaPipeTransposeConvSize
// (shape_inference.h).
#include <algorithm>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

TransposeConvBiasSize MediaPipeTransposeConvSize(Padding padding, int32_t in, int32_t filter, int32_t stride) {
  TransposeConvBiasSize s;
  int64_t total = 0;
  if (padding == Padding::kSame && stride > 0 && in > 0) {
    total = std::max<int64_t>(0, static_cast<int64_t>(filter) - (static_cast<int64_t>(in) - 1) % stride - 1);
  }
  s.out = static_cast<int32_t>(static_cast<int64_t>(stride) * (static_cast<int64_t>(in) - 1) + filter - total);
  s.pad_before = static_cast<int32_t>(total / 2);
  return s;
}

namespace shapes {

Status TransposeConv(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 4));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(2, 4));
  const Shape& w = ctx.InShape(1);
  const Shape& in = ctx.InShape(2);
  if (a->stride_h <= 0 || a->stride_w <= 0) return ctx.Err("strides must be positive");
  if (w[3] != in[3]) {
    return ctx.Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (ctx.Has(3) && ctx.In(3).num_elements() != w[0]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(3)) + " does not match " + std::to_string(w[0]) +
                   " output channels");
  }
  std::vector<int64_t> os;
  if (!ctx.Values(0, &os)) return ctx.KeepStored(0, ctx.In(2).type, "output_shape (input 0)");
  if (os.size() != 4 || os[0] != in[0] || os[3] != w[0] || os[1] <= 0 || os[2] <= 0 || os[1] > kMaxDim ||
      os[2] > kMaxDim) {
    return ctx.Err("output_shape " + Join(os) + " must be [" + std::to_string(in[0]) + ", H, W, " +
                   std::to_string(w[0]) + "]");
  }
  ctx.Set(0,
          {static_cast<int32_t>(os[0]), static_cast<int32_t>(os[1]), static_cast<int32_t>(os[2]),
           static_cast<int32_t>(os[3])},
          ctx.In(2).type);
  return OkStatus();
}

Status TransposeConvBias(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  const Shape& in = ctx.InShape(0);
  const Shape& w = ctx.InShape(1);
  if (a->stride_h <= 0 || a->stride_w <= 0) return ctx.Err("strides must be positive");
  if (w[3] != in[3]) {
    return ctx.Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != w[0]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(w[0]) +
                   " output channels");
  }
  if (in[1] <= 0 || in[2] <= 0) return ctx.Err("empty input " + ShapeToString(in));
  const int32_t oh = MediaPipeTransposeConvSize(a->padding, in[1], w[1], a->stride_h).out;
  const int32_t ow = MediaPipeTransposeConvSize(a->padding, in[2], w[2], a->stride_w).out;
  if (oh <= 0 || ow <= 0) {
    return ctx.Err("empty output for input " + ShapeToString(in) + " and weights " + ShapeToString(w));
  }
  ctx.Set(0, {in[0], oh, ow, w[0]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace shapes

}  // namespace gld
