// Shape rules of the reductions over the axes input (MEAN, SUM, REDUCE_*)
// and ARG_MAX / ARG_MIN. CUMSUM keeps its shape (UnaryWithAxisInput).
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Reduce(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  bool keep = false;
  if (const auto* a = std::get_if<ReduceAttributes>(&ctx.node().attributes)) keep = a->keep_dims;
  std::vector<int64_t> axes;
  if (!ctx.Values(1, &axes)) return ctx.KeepStored(0, ctx.In(0).type, "axes (input 1)");
  const Shape& s = ctx.InShape(0);
  std::vector<bool> reduced(s.size(), false);
  for (int64_t ax : axes) {
    int32_t d = 0;
    GLD_RETURN_IF_ERROR(ctx.Axis(ax, static_cast<int64_t>(s.size()), &d));
    reduced[static_cast<size_t>(d)] = true;
  }
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(s[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status ArgMinMax(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const DataType type = ctx.StoredType(0, DataType::kInt64);
  if (type != DataType::kInt32 && type != DataType::kInt64) {
    return ctx.Err(std::string("output type must be int32 or int64, got ") + DataTypeName(type));
  }
  std::vector<int64_t> axis;
  if (!ctx.Values(1, &axis)) return ctx.KeepStored(0, type, "axis (input 1)");
  if (axis.size() != 1) return ctx.Err("axis must be one value, got " + Join(axis));
  const Shape& s = ctx.InShape(0);
  int32_t a = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(axis[0], static_cast<int64_t>(s.size()), &a));
  if (s[static_cast<size_t>(a)] == 0) return ctx.Err("reducing an empty axis of " + ShapeToString(s));
  Shape out = s;
  out.erase(out.begin() + a);
  ctx.Set(0, out, type);
  return OkStatus();
}

}  // namespace gld::shapes
