// Shape rule of CONV_2D; and the window arithmetic (shape_inference.h) the
// convolutions, pooling, their CPU kernels and GL generators share: output
// sizes and SAME padding.
#include <algorithm>
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

int32_t ConvOutputSize(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  if (padding == Padding::kSame) return static_cast<int32_t>((static_cast<int64_t>(in) + stride - 1) / stride);
  const int64_t span = static_cast<int64_t>(in) - eff;
  if (span < 0) return -1;
  return static_cast<int32_t>(span / stride + 1);
}

PaddingValues ComputePadding(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                             int32_t out) {
  PaddingValues p;
  if (padding != Padding::kSame) return p;
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>(0, (static_cast<int64_t>(out) - 1) * stride + eff - in);
  p.before = static_cast<int32_t>(total / 2);
  p.after = static_cast<int32_t>(total - total / 2);
  return p;
}

int32_t ConvPaddingBefore(Padding padding, int32_t in, int32_t extra_before, int32_t extra_after, int32_t filter,
                          int32_t stride, int32_t dilation, int32_t out) {
  return extra_before + ComputePadding(padding, in + extra_before + extra_after, filter, stride, dilation, out).before;
}

namespace shapes {

Status Conv2d(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Conv2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  const Shape& in = ctx.InShape(0);
  const Shape& f = ctx.InShape(1);
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->dilation_h <= 0 || a->dilation_w <= 0) {
    return ctx.Err("strides (" + std::to_string(a->stride_h) + ", " + std::to_string(a->stride_w) +
                   ") and dilations (" + std::to_string(a->dilation_h) + ", " + std::to_string(a->dilation_w) +
                   ") must be positive");
  }
  if (f[3] <= 0 || in[3] % f[3] != 0) {
    return ctx.Err("input channels " + std::to_string(in[3]) + " do not match filter " + ShapeToString(f));
  }
  const int32_t groups = in[3] / f[3];
  if (groups > 0 && f[0] % groups != 0) {
    return ctx.Err("output channels " + std::to_string(f[0]) + " not divisible by " + std::to_string(groups) +
                   " groups");
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != f[0]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(f[0]) +
                   " output channels");
  }
  const int32_t oh = ConvOutputSize(a->padding, in[1] + a->explicit_padding.top + a->explicit_padding.bottom, f[1],
                                    a->stride_h, a->dilation_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2] + a->explicit_padding.left + a->explicit_padding.right, f[2],
                                    a->stride_w, a->dilation_w);
  if (oh < 0 || ow < 0) {
    return ctx.Err("VALID filter " + ShapeToString(f) + " with dilation (" + std::to_string(a->dilation_h) + ", " +
                   std::to_string(a->dilation_w) + ") is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(ctx.WindowReach("height", oh, f[1], a->stride_h, a->dilation_h));
  GLD_RETURN_IF_ERROR(ctx.WindowReach("width", ow, f[2], a->stride_w, a->dilation_w));
  ctx.Set(0, {in[0], oh, ow, f[0]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace shapes

}  // namespace gld
