// Shape rules of the index-driven ops: GATHER, GATHER_ND, ONE_HOT,
// EMBEDDING_LOOKUP.
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Gather(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  int32_t axis_attr = 0, batch_dims = 0;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node().attributes)) {
    axis_attr = a->axis;
    batch_dims = a->batch_dims;
  }
  const Shape& p = ctx.InShape(0);
  const Shape& idx = ctx.InShape(1);
  if (ctx.In(1).type != DataType::kInt32 && ctx.In(1).type != DataType::kInt64) {
    return ctx.Err(std::string("indices must be int32 or int64, got ") + DataTypeName(ctx.In(1).type));
  }
  int32_t axis = 0;
  GLD_RETURN_IF_ERROR(ctx.Axis(axis_attr, static_cast<int64_t>(p.size()), &axis));
  int32_t bd = batch_dims;
  if (bd < 0) bd += static_cast<int32_t>(idx.size());
  if (bd < 0 || bd > axis || static_cast<size_t>(bd) > idx.size()) {
    return ctx.Err("batch_dims " + std::to_string(batch_dims) + " invalid for axis " + std::to_string(axis) +
                   " and indices " + ShapeToString(idx));
  }
  for (int32_t d = 0; d < bd; ++d) {
    if (p[static_cast<size_t>(d)] != idx[static_cast<size_t>(d)]) {
      return ctx.Err("batch dimensions of params " + ShapeToString(p) + " and indices " + ShapeToString(idx) +
                     " differ");
    }
  }
  // Known indices (a constant) out of range fail here, as the CPU kernel
  // fails its run: the GPU's gather would read zeros for them.
  std::vector<int64_t> known;
  const int64_t n = p[static_cast<size_t>(axis)];
  if (n >= 0 && ctx.Values(1, &known)) {
    for (int64_t v : known) {
      if (v < 0 || v >= n) return ctx.Err("index " + std::to_string(v) + " out of range [0, " + std::to_string(n) + ")");
    }
  }
  Shape out(p.begin(), p.begin() + axis);
  out.insert(out.end(), idx.begin() + bd, idx.end());
  out.insert(out.end(), p.begin() + axis + 1, p.end());
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status GatherNd(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& p = ctx.InShape(0);
  const Shape& idx = ctx.InShape(1);
  if (idx.empty()) return ctx.Err("indices must have rank >= 1");
  const int32_t k = idx.back();
  if (k < 0 || static_cast<size_t>(k) > p.size()) {
    return ctx.Err("index depth " + std::to_string(k) + " exceeds params rank " + std::to_string(p.size()));
  }
  Shape out(idx.begin(), idx.end() - 1);
  out.insert(out.end(), p.begin() + k, p.end());
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status OneHot(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(4, 4));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  int32_t axis_attr = -1;
  if (const auto* a = std::get_if<AxisAttributes>(&ctx.node().attributes)) axis_attr = a->axis;
  if (ctx.In(2).type != ctx.In(3).type) return ctx.Err("on_value and off_value types differ");
  std::vector<int64_t> depth;
  if (!ctx.Values(1, &depth)) return ctx.KeepStored(0, ctx.In(2).type, "depth (input 1)");
  if (depth.size() != 1 || depth[0] < 0 || depth[0] > kMaxDim) return ctx.Err("depth must be one non-negative value");
  const Shape& s = ctx.InShape(0);
  int32_t axis = 0;
  if (axis_attr == -1) {
    axis = static_cast<int32_t>(s.size());
  } else {
    GLD_RETURN_IF_ERROR(ctx.Axis(axis_attr, static_cast<int64_t>(s.size()) + 1, &axis));
  }
  Shape out = s;
  out.insert(out.begin() + axis, static_cast<int32_t>(depth[0]));
  GLD_RETURN_IF_ERROR(ctx.CheckShape(out, "output"));
  ctx.Set(0, out, ctx.In(2).type);
  return OkStatus();
}

// SCATTER_ND (indices, updates, shape): zeros of `shape` with each update
// added at its index.
Status ScatterNd(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  for (size_t i : {size_t{0}, size_t{2}}) {
    if (ctx.In(i).type != DataType::kInt32 && ctx.In(i).type != DataType::kInt64) {
      return ctx.Err(ctx.Name(i) + " must be int32 or int64, got " + DataTypeName(ctx.In(i).type));
    }
  }
  const DataType type = ctx.In(1).type;
  std::vector<int64_t> dims;
  if (!ctx.Values(2, &dims)) return ctx.KeepStored(0, type, "shape (input 2)");
  Shape out;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDim) return ctx.Err("invalid shape " + Join(dims));
    out.push_back(static_cast<int32_t>(d));
  }
  const Shape& idx = ctx.InShape(0);
  if (idx.empty()) return ctx.Err("indices must have rank >= 1");
  const int32_t depth = idx.back();
  if (depth < 1 || static_cast<size_t>(depth) > out.size()) {
    return ctx.Err("index depth " + std::to_string(depth) + " does not fit shape " + ShapeToString(out));
  }
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), out.begin() + depth, out.end());
  if (ctx.InShape(1) != want) {
    return ctx.Err("updates " + ShapeToString(ctx.InShape(1)) + " must be " + ShapeToString(want) + " for indices " +
                   ShapeToString(idx) + " and shape " + ShapeToString(out));
  }
  GLD_RETURN_IF_ERROR(ctx.CheckShape(out, "output"));
  ctx.Set(0, out, type);
  return OkStatus();
}

}  // namespace gld::shapes

namespace gld::shapes {

// EMBEDDING_LOOKUP: ids [N] (int32) rows of value [V, ...] -> [N, ...] of
// the value's type. TFLite's hybrid form (int8 or uint8 rows dequantized to
// float32) is refused.
Status EmbeddingLookup(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  if (ctx.In(0).type != DataType::kInt32) {
    return ctx.Err(std::string("ids must be int32, got ") + DataTypeName(ctx.In(0).type));
  }
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 1));
  const Shape& value = ctx.InShape(1);
  if (value.size() < 2) return ctx.Err("value " + ShapeToString(value) + " must have rank 2 or more");
  const DataType out_type = ctx.In(1).type;
  if (ctx.StoredType(0, out_type) != out_type) {
    return ctx.Unimpl(std::string("a lookup that dequantizes ") + DataTypeName(out_type) + " rows to " +
                      DataTypeName(ctx.StoredType(0, out_type)) + " is not supported");
  }
  Shape out = value;
  out[0] = ctx.InShape(0)[0];
  ctx.Set(0, out, out_type);
  return OkStatus();
}

}  // namespace gld::shapes
