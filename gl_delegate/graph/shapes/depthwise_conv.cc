// Shape rule of DEPTHWISE_CONV_2D.
#include <string>

#include "graph/conv_geometry.h"
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
  GLD_RETURN_IF_ERROR(ctx.Check(CheckConvSteps(*a)));
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
  ConvGeometry g;
  GLD_RETURN_IF_ERROR(ctx.Check(MakeConvGeometry(*a, in, f, &g)));
  ctx.Set(0, {in[0], g.h().out, g.w().out, f[3]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
