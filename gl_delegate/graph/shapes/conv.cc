// Shape rule of CONV_2D: its output sized by graph/conv_geometry.h.
#include <string>

#include "graph/conv_geometry.h"
#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Conv2d(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Conv2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  const Shape& in = ctx.InShape(0);
  const Shape& f = ctx.InShape(1);
  GLD_RETURN_IF_ERROR(ctx.Check(CheckConvSteps(*a)));
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
  ConvGeometry g;
  GLD_RETURN_IF_ERROR(ctx.Check(MakeConvGeometry(*a, in, f, &g)));
  ctx.Set(0, {in[0], g.h().out, g.w().out, f[0]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
