// Shape rule of DEPTHWISE_CONV_2D.
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status DepthwiseConv2d(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const DepthwiseConv2dAttributes* a = nullptr;
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
  if (f[0] != 1 || in[3] <= 0 || f[3] % in[3] != 0) {
    return ctx.Err("filter " + ShapeToString(f) + " must be [1, KH, KW, C * multiplier] for input channels " +
                   std::to_string(in[3]));
  }
  // The multiplier is taken from the shapes (filter channels / input
  // channels); the redundant depth_multiplier option is not checked, so a
  // model whose converter wrote a stale value still runs.
  if (ctx.Has(2) && ctx.In(2).num_elements() != f[3]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(f[3]) +
                   " output channels");
  }
  const int32_t oh = ConvOutputSize(a->padding, in[1] + a->explicit_padding.top + a->explicit_padding.bottom, f[1],
                                    a->stride_h, a->dilation_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2] + a->explicit_padding.left + a->explicit_padding.right, f[2],
                                    a->stride_w, a->dilation_w);
  if (oh < 0 || ow < 0) {
    return ctx.Err("VALID filter " + ShapeToString(f) + " is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(ctx.WindowReach("height", oh, f[1], a->stride_h, a->dilation_h));
  GLD_RETURN_IF_ERROR(ctx.WindowReach("width", ow, f[2], a->stride_w, a->dilation_w));
  ctx.Set(0, {in[0], oh, ow, f[3]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
