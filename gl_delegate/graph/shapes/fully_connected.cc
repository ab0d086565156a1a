// Shape rule of FULLY_CONNECTED: rows of the weights' depth, or with
// keep_num_dims the input's shape with the last dimension the units.
#include <string>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status FullyConnected(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const FullyConnectedAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 2));
  const Shape& in = ctx.InShape(0);
  const Shape& w = ctx.InShape(1);
  const int64_t units = w[0], depth = w[1];
  if (depth <= 0 || ctx.In(0).num_elements() % depth != 0) {
    return ctx.Err("input " + ShapeToString(in) + " is not a whole number of rows of depth " + std::to_string(depth) +
                   " (weights " + ShapeToString(w) + ")");
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != units) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(units) + " units");
  }
  if (a->keep_num_dims) {
    if (in.empty() || in.back() != depth) {
      return ctx.Err("keep_num_dims needs the input's last dimension (" + ShapeToString(in) + ") to equal depth " +
                     std::to_string(depth));
    }
    Shape out = in;
    out.back() = static_cast<int32_t>(units);
    ctx.Set(0, out, ctx.In(0).type);
  } else {
    ctx.Set(0, {static_cast<int32_t>(ctx.In(0).num_elements() / depth), static_cast<int32_t>(units)}, ctx.In(0).type);
  }
  return OkStatus();
}

}  // namespace gld::shapes
