// Shape rule of AVERAGE_POOL_2D, MAX_POOL_2D and MediaPipe's
// MaxPoolingWithArgmax2D (values and indices).
#include "graph/conv_geometry.h"
#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Pool(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  const Shape& in = ctx.InShape(0);
  ConvGeometry g;
  GLD_RETURN_IF_ERROR(ctx.Check(MakePoolGeometry(*a, in, &g)));
  const int32_t oh = g.h().out, ow = g.w().out;
  if (ctx.node().op == OpType::kMaxPoolingWithArgmax2D) {
    GLD_RETURN_IF_ERROR(ctx.Outputs(2));
    ctx.Set(0, {in[0], oh, ow, in[3]}, ctx.In(0).type);
    ctx.Set(1, {in[0], oh, ow, in[3]}, ctx.StoredType(1, DataType::kFloat32));
    return OkStatus();
  }
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  ctx.Set(0, {in[0], oh, ow, in[3]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
