// Shape rules of CONCATENATION, PACK, UNPACK, SPLIT and SPLIT_V.
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

namespace {

Status SplitInto(RuleContext& ctx, bool split_v) {
  // SPLIT: (axis, input); SPLIT_V: (input, size_splits, axis).
  GLD_RETURN_IF_ERROR(ctx.Inputs(split_v ? 3 : 2, split_v ? 3 : 2));
  const size_t data = split_v ? 0 : 1;
  const size_t axis_in = split_v ? 2 : 0;
  const Shape& s = ctx.InShape(data);
  std::vector<int64_t> axis_v;
  if (!ctx.Values(axis_in, &axis_v) || axis_v.size() != 1) {
    if (ctx.node().outputs.empty()) return ctx.Err("no outputs");
    for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
      GLD_RETURN_IF_ERROR(ctx.KeepStored(i, ctx.In(data).type, "axis"));
    }
    return OkStatus();
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(axis_v[0], static_cast<int64_t>(s.size()), &axis));
  const size_t n = ctx.node().outputs.size();
  if (n == 0) return ctx.Err("no outputs");
  const AxisAttributes* a = std::get_if<AxisAttributes>(&ctx.node().attributes);
  if (a != nullptr && a->count > 0 && static_cast<size_t>(a->count) != n) {
    return ctx.Err("num_splits " + std::to_string(a->count) + " but " + std::to_string(n) + " outputs");
  }
  const int64_t dim = s[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (!split_v) {
    if (dim % static_cast<int64_t>(n) != 0) {
      return ctx.Err("dimension " + std::to_string(dim) + " of " + ShapeToString(s) + " does not split into " +
                     std::to_string(n) + " equal parts");
    }
    sizes.assign(n, dim / static_cast<int64_t>(n));
  } else {
    if (!ctx.Values(1, &sizes)) {
      for (size_t i = 0; i < n; ++i) GLD_RETURN_IF_ERROR(ctx.KeepStored(i, ctx.In(0).type, "size_splits"));
      return OkStatus();
    }
    if (sizes.size() != n) {
      return ctx.Err("size_splits has " + std::to_string(sizes.size()) + " values for " + std::to_string(n) +
                     " outputs");
    }
    int64_t known = 0;
    int unknown = -1;
    for (size_t i = 0; i < n; ++i) {
      if (sizes[i] == -1 && unknown < 0) {
        unknown = static_cast<int>(i);
      } else if (sizes[i] < 0) {
        return ctx.Err("size_splits " + Join(sizes) + " has an invalid entry");
      } else {
        known += sizes[i];
      }
    }
    if (unknown >= 0) {
      if (known > dim) return ctx.Err("size_splits " + Join(sizes) + " exceed dimension " + std::to_string(dim));
      sizes[static_cast<size_t>(unknown)] = dim - known;
    } else if (known != dim) {
      return ctx.Err("size_splits " + Join(sizes) + " do not sum to dimension " + std::to_string(dim));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    Shape out = s;
    out[static_cast<size_t>(axis)] = static_cast<int32_t>(sizes[i]);
    ctx.Set(i, out, ctx.In(data).type);
  }
  return OkStatus();
}

}  // namespace

Status Concatenation(RuleContext& ctx) {
  if (ctx.NumInputs() == 0) return ctx.Err("no inputs");
  GLD_RETURN_IF_ERROR(ctx.Inputs(ctx.NumInputs(), ctx.NumInputs()));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const ConcatenationAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  const Shape& s0 = ctx.InShape(0);
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(a->axis, static_cast<int64_t>(s0.size()), &axis));
  Shape out = s0;
  int64_t total = 0;
  for (size_t i = 0; i < ctx.NumInputs(); ++i) {
    const Shape& s = ctx.InShape(i);
    bool ok = s.size() == s0.size();
    for (size_t d = 0; ok && d < s.size(); ++d) ok = static_cast<int32_t>(d) == axis || s[d] == s0[d];
    if (!ok) {
      return ctx.Err(ctx.Name(i) + " " + ShapeToString(s) + " does not match input 0 " + ShapeToString(s0) +
                     " outside axis " + std::to_string(axis));
    }
    if (ctx.In(i).type != ctx.In(0).type) {
      return ctx.Err(ctx.Name(i) + " has type " + DataTypeName(ctx.In(i).type) + ", input 0 " +
                     DataTypeName(ctx.In(0).type));
    }
    total += s[static_cast<size_t>(axis)];
  }
  if (total > kMaxDim) return ctx.Err("concatenated dimension too large");
  out[static_cast<size_t>(axis)] = static_cast<int32_t>(total);
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status Pack(RuleContext& ctx) {
  if (ctx.NumInputs() == 0) return ctx.Err("no inputs");
  GLD_RETURN_IF_ERROR(ctx.Inputs(ctx.NumInputs(), ctx.NumInputs()));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const AxisAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  if (a->count > 0 && static_cast<size_t>(a->count) != ctx.NumInputs()) {
    return ctx.Err("values_count " + std::to_string(a->count) + " but " + std::to_string(ctx.NumInputs()) + " inputs");
  }
  const Shape& s0 = ctx.InShape(0);
  for (size_t i = 1; i < ctx.NumInputs(); ++i) {
    if (ctx.InShape(i) != s0 || ctx.In(i).type != ctx.In(0).type) {
      return ctx.Err(ctx.Name(i) + " " + ShapeToString(ctx.InShape(i)) + " differs from input 0 " + ShapeToString(s0));
    }
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(a->axis, static_cast<int64_t>(s0.size()) + 1, &axis));
  Shape out = s0;
  out.insert(out.begin() + axis, static_cast<int32_t>(ctx.NumInputs()));
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status Unpack(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  const AxisAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  const Shape& s = ctx.InShape(0);
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(a->axis, static_cast<int64_t>(s.size()), &axis));
  const int32_t n = s[static_cast<size_t>(axis)];
  if (a->count > 0 && a->count != n) {
    return ctx.Err("num " + std::to_string(a->count) + " != dimension " + std::to_string(n) + " of " +
                   ShapeToString(s));
  }
  GLD_RETURN_IF_ERROR(ctx.Outputs(static_cast<size_t>(n)));
  Shape out = s;
  out.erase(out.begin() + axis);
  for (size_t i = 0; i < static_cast<size_t>(n); ++i) ctx.Set(i, out, ctx.In(0).type);
  return OkStatus();
}

Status Split(RuleContext& ctx) { return SplitInto(ctx, false); }

Status SplitV(RuleContext& ctx) { return SplitInto(ctx, true); }

}  // namespace gld::shapes
