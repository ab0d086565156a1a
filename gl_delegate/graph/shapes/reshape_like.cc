// Shape rules of the ops that only relabel the shape: RESHAPE (the shape
// input, else new_shape), SQUEEZE, EXPAND_DIMS.
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Reshape(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const int64_t count = ctx.In(0).num_elements();
  std::vector<int64_t> target;
  bool have = false;
  // TFLite uses the shape input when it is a 1-D tensor, else the option.
  if (ctx.Has(1) && ctx.InShape(1).size() == 1) {
    if (!ctx.Values(1, &target)) return ctx.KeepStored(0, ctx.In(0).type, "the shape input");
    have = true;
  }
  if (!have) {
    const auto* a = std::get_if<ReshapeAttributes>(&ctx.node().attributes);
    if (a != nullptr && a->has_new_shape) {
      target.assign(a->new_shape.begin(), a->new_shape.end());
      // Legacy models write [0] for a scalar.
      if (target.size() == 1 && target[0] == 0 && count == 1) target.clear();
      have = true;
    } else if (ctx.Has(1) && ctx.InShape(1).empty() && ctx.Values(1, &target)) {
      have = true;  // scalar shape tensor: a 1-D output of that size
    }
  }
  if (!have) {
    const Shape& stored = ctx.Out(0).shape;
    if (ShapeIsKnown(stored) && NumElements(stored) == count) return ctx.KeepStored(0, ctx.In(0).type, "new_shape");
    return ctx.Err("no target shape (neither a shape input nor new_shape)");
  }
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (unknown >= 0) return ctx.Err("shape " + Join(target) + " has more than one -1");
      unknown = static_cast<int>(i);
    } else if (target[i] < 0 || target[i] > kMaxDim) {
      return ctx.Err("shape " + Join(target) + " has an invalid dimension");
    } else {
      known *= target[i];
      if (known > (int64_t{1} << 40)) return ctx.Err("shape " + Join(target) + " is too large");
    }
  }
  if (unknown >= 0) {
    if (known == 0 || count % known != 0) {
      return ctx.Err("cannot reshape " + ShapeToString(ctx.InShape(0)) + " (" + std::to_string(count) +
                     " elements) to " + Join(target));
    }
    target[static_cast<size_t>(unknown)] = count / known;
  } else if (known != count) {
    return ctx.Err("cannot reshape " + ShapeToString(ctx.InShape(0)) + " (" + std::to_string(count) + " elements) to " +
                   Join(target) + " (" + std::to_string(known) + " elements)");
  }
  ctx.Set(0, Shape(target.begin(), target.end()), ctx.In(0).type);
  return OkStatus();
}

Status Squeeze(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& s = ctx.InShape(0);
  std::vector<bool> drop(s.size(), false);
  const auto* a = std::get_if<SqueezeAttributes>(&ctx.node().attributes);
  if (a == nullptr || a->squeeze_dims.empty()) {
    for (size_t d = 0; d < s.size(); ++d) drop[d] = s[d] == 1;
  } else {
    for (int32_t sd : a->squeeze_dims) {
      int32_t d = 0;
      GLD_RETURN_IF_ERROR(ctx.Axis(sd, static_cast<int64_t>(s.size()), &d, "squeeze dim"));
      if (s[static_cast<size_t>(d)] != 1) {
        return ctx.Err("cannot squeeze dimension " + std::to_string(sd) + " of size " +
                       std::to_string(s[static_cast<size_t>(d)]) + " in " + ShapeToString(s));
      }
      drop[static_cast<size_t>(d)] = true;
    }
  }
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!drop[d]) out.push_back(s[d]);
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status ExpandDims(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> axis;
  if (!ctx.Values(1, &axis)) return ctx.KeepStored(0, ctx.In(0).type, "axis (input 1)");
  if (axis.size() != 1) return ctx.Err("axis must be one value, got " + Join(axis));
  const Shape& s = ctx.InShape(0);
  int32_t a = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(axis[0], static_cast<int64_t>(s.size()) + 1, &a));
  Shape out = s;
  out.insert(out.begin() + a, 1);
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
