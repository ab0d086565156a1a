// Shape rule of CONV_3D: an NDHWC input, a DHWIO filter ([kd, kh, kw, in,
// out]), an optional bias; each spatial size as CONV_2D's (ConvOutputSize).
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Conv3d(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Conv3dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 5));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 5));
  const Shape& in = ctx.InShape(0);
  const Shape& f = ctx.InShape(1);
  const int32_t strides[3] = {a->stride_d, a->stride_h, a->stride_w};
  const int32_t dilations[3] = {a->dilation_d, a->dilation_h, a->dilation_w};
  for (int d = 0; d < 3; ++d) {
    if (strides[d] <= 0 || dilations[d] <= 0) return ctx.Err("strides and dilations must be positive");
  }
  if (f[3] != in[4]) {
    return ctx.Err("input channels " + std::to_string(in[4]) + " do not match filter " + ShapeToString(f));
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != f[4]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(f[4]) +
                   " output channels");
  }
  static const char* const kAxes[3] = {"depth", "height", "width"};
  Shape out = {in[0], 0, 0, 0, f[4]};
  for (int d = 0; d < 3; ++d) {
    const int32_t o = ConvOutputSize(a->padding, in[1 + d], f[d], strides[d], dilations[d]);
    if (o < 0) {
      return ctx.Err("VALID filter " + ShapeToString(f) + " is larger than input " + ShapeToString(in) + " along " +
                     kAxes[d]);
    }
    GLD_RETURN_IF_ERROR(ctx.WindowReach(kAxes[d], o, f[d], strides[d], dilations[d]));
    out[1 + static_cast<size_t>(d)] = o;
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
