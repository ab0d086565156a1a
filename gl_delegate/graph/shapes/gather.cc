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

namespace gld::shapes {

// DYNAMIC_UPDATE_SLICE (operand, update, start indices): the operand's
// shape; the update fits inside it and the starts are one per dimension.
Status DynamicUpdateSlice(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& operand = ctx.InShape(0);
  const Shape& update = ctx.InShape(1);
  if (ctx.In(1).type != ctx.In(0).type) {
    return ctx.Err("update type " + std::string(DataTypeName(ctx.In(1).type)) + " differs from the operand's " +
                   DataTypeName(ctx.In(0).type));
  }
  if (ctx.In(2).type != DataType::kInt32 && ctx.In(2).type != DataType::kInt64) {
    return ctx.Err(ctx.Name(2) + " must be int32 or int64, got " + DataTypeName(ctx.In(2).type));
  }
  if (update.size() != operand.size()) {
    return ctx.Err("update " + ShapeToString(update) + " and operand " + ShapeToString(operand) + " differ in rank");
  }
  for (size_t d = 0; d < operand.size(); ++d) {
    if (update[d] > operand[d]) {
      return ctx.Err("update " + ShapeToString(update) + " does not fit in operand " + ShapeToString(operand));
    }
  }
  if (ctx.In(2).num_elements() != static_cast<int64_t>(operand.size())) {
    return ctx.Err("start indices " + ShapeToString(ctx.InShape(2)) + " must hold one index per operand dimension (" +
                   std::to_string(operand.size()) + ")");
  }
  ctx.Set(0, operand, ctx.In(0).type);
  return OkStatus();
}

// STABLEHLO_SCATTER (operand, indices, updates): the operand's shape. The
// dimension numbers are checked against the ranks here; the kernel skips
// updates that fall outside the operand, as StableHLO does.
Status StablehloScatter(RuleContext& ctx) {
  const ScatterAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const int64_t operand_rank = static_cast<int64_t>(ctx.InShape(0).size());
  const int64_t indices_rank = static_cast<int64_t>(ctx.InShape(1).size());
  const int64_t updates_rank = static_cast<int64_t>(ctx.InShape(2).size());
  if (ctx.In(2).type != ctx.In(0).type) return ctx.Err("updates and operand differ in type");
  if (ctx.In(1).type != DataType::kInt32 && ctx.In(1).type != DataType::kInt64) {
    return ctx.Err(ctx.Name(1) + " must be int32 or int64, got " + DataTypeName(ctx.In(1).type));
  }
  auto in_range = [](const std::vector<int64_t>& dims, int64_t rank) {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank) return false;
    }
    return true;
  };
  if (!in_range(a->update_window_dims, updates_rank) || !in_range(a->inserted_window_dims, operand_rank) ||
      !in_range(a->scatter_dims_to_operand_dims, operand_rank) || a->index_vector_dim < 0 ||
      a->index_vector_dim > indices_rank) {
    return ctx.Err("dimension numbers out of range for operand rank " + std::to_string(operand_rank) +
                   ", indices rank " + std::to_string(indices_rank) + ", updates rank " +
                   std::to_string(updates_rank));
  }
  if (static_cast<int64_t>(a->update_window_dims.size() + a->inserted_window_dims.size()) != operand_rank) {
    return ctx.Err("update_window_dims and inserted_window_dims do not add up to the operand's rank");
  }
  const int64_t depth =
      a->index_vector_dim < indices_rank ? ctx.InShape(1)[static_cast<size_t>(a->index_vector_dim)] : 1;
  if (depth != static_cast<int64_t>(a->scatter_dims_to_operand_dims.size())) {
    return ctx.Err("indices hold " + std::to_string(depth) + " coordinates, scatter_dims_to_operand_dims names " +
                   std::to_string(a->scatter_dims_to_operand_dims.size()));
  }
  ctx.Set(0, ctx.InShape(0), ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
