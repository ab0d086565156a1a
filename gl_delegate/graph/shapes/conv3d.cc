// Shape rule of CONV_3D: an NDHWC input, a DHWIO filter ([kd, kh, kw, in,
// out]), an optional bias; its output sized by graph/conv_geometry.h.
#include <string>

#include "graph/conv_geometry.h"
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
  GLD_RETURN_IF_ERROR(ctx.Check(CheckConvSteps(*a)));
  if (f[3] != in[4]) {
    return ctx.Err("input channels " + std::to_string(in[4]) + " do not match filter " + ShapeToString(f));
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != f[4]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(f[4]) +
                   " output channels");
  }
  ConvGeometry g;
  GLD_RETURN_IF_ERROR(ctx.Check(MakeConvGeometry(*a, in, f, &g)));
  const Shape out = {in[0], g.axes[0].out, g.axes[1].out, g.axes[2].out, f[4]};
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
