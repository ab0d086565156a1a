// Shape rules of the elementwise ops: unary ops and activations keep their
// input's shape (Unary, also SOFTMAX, LOG_SOFTMAX, L2_NORMALIZATION and
// DENSIFY; UnaryWithAxisInput: CUMSUM, REVERSE_V2), binary ops broadcast,
// ADD_N, SELECT / SELECT_V2, CAST and FILL; and BroadcastShapes
// (shape_inference.h).
#include <algorithm>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out) {
  const size_t rank = std::max(a.size(), b.size());
  Shape r(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      r[i] = da;
    } else if (da == 1) {
      r[i] = db;
    } else {
      return false;
    }
  }
  *out = std::move(r);
  return true;
}

namespace shapes {

namespace {

Status SameAsInput0(RuleContext& ctx, size_t min_in, size_t max_in, DataType type) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(min_in, max_in));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  ctx.Set(0, ctx.InShape(0), type == DataType::kUnknown ? ctx.In(0).type : type);
  return OkStatus();
}

// A constant the reader decoded to float32 from `type` integers (its
// quantization kept): the CPU's integer kernels take its stored integers,
// so it pairs with an operand of that type.
bool DecodedFrom(const Tensor& t, DataType type) {
  return t.is_constant && t.type == DataType::kFloat32 && !t.quant.empty() && t.quant.storage_type == type;
}

Status Broadcast(RuleContext& ctx, DataType out_type, bool same_types) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Tensor& a = ctx.In(0);
  const Tensor& b = ctx.In(1);
  if (same_types && a.type != b.type && !DecodedFrom(a, b.type) && !DecodedFrom(b, a.type)) {
    return ctx.Err(std::string("input types differ: ") + DataTypeName(a.type) + " and " + DataTypeName(b.type));
  }
  Shape out;
  if (!BroadcastShapes(ctx.InShape(0), ctx.InShape(1), &out)) {
    return ctx.Err("shapes " + ShapeToString(ctx.InShape(0)) + " and " + ShapeToString(ctx.InShape(1)) +
                   " do not broadcast");
  }
  const DataType in_type = a.type != b.type && DecodedFrom(a, b.type) ? b.type : a.type;
  ctx.Set(0, out, out_type == DataType::kUnknown ? in_type : out_type);
  return OkStatus();
}

Status SelectBetween(RuleContext& ctx, bool v2) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  if (ctx.In(0).type != DataType::kBool) {
    return ctx.Err(std::string("condition must be bool, got ") + DataTypeName(ctx.In(0).type));
  }
  if (ctx.In(1).type != ctx.In(2).type) return ctx.Err("x and y types differ");
  const Shape& c = ctx.InShape(0);
  const Shape& x = ctx.InShape(1);
  const Shape& y = ctx.InShape(2);
  if (!v2) {
    if (x != y) return ctx.Err("x " + ShapeToString(x) + " and y " + ShapeToString(y) + " differ");
    const bool ok = c == x || (c.size() == 1 && !x.empty() && c[0] == x[0]);
    if (!ok) {
      return ctx.Err("condition " + ShapeToString(c) + " must match x " + ShapeToString(x) + " or its first dimension");
    }
    ctx.Set(0, x, ctx.In(1).type);
    return OkStatus();
  }
  Shape xy, out;
  if (!BroadcastShapes(x, y, &xy) || !BroadcastShapes(c, xy, &out)) {
    return ctx.Err("condition " + ShapeToString(c) + ", x " + ShapeToString(x) + ", y " + ShapeToString(y) +
                   " do not broadcast");
  }
  ctx.Set(0, out, ctx.In(1).type);
  return OkStatus();
}

}  // namespace

Status Unary(RuleContext& ctx) { return SameAsInput0(ctx, 1, 1, DataType::kUnknown); }

Status LogicalNot(RuleContext& ctx) { return SameAsInput0(ctx, 1, 1, DataType::kBool); }

Status UnaryWithAxisInput(RuleContext& ctx) { return SameAsInput0(ctx, 2, 2, DataType::kUnknown); }

Status Cast(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  if (ctx.Out(0).type == DataType::kUnknown) return ctx.Err("output type unknown");
  ctx.Set(0, ctx.InShape(0), ctx.Out(0).type);
  return OkStatus();
}

Status Arithmetic(RuleContext& ctx) { return Broadcast(ctx, DataType::kUnknown, true); }

Status Prelu(RuleContext& ctx) { return Broadcast(ctx, DataType::kUnknown, false); }

Status Comparison(RuleContext& ctx) { return Broadcast(ctx, DataType::kBool, true); }

Status AddN(RuleContext& ctx) {
  if (ctx.NumInputs() == 0) return ctx.Err("no inputs");
  GLD_RETURN_IF_ERROR(ctx.Inputs(ctx.NumInputs(), ctx.NumInputs()));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  for (size_t i = 1; i < ctx.NumInputs(); ++i) {
    if (ctx.InShape(i) != ctx.InShape(0) || ctx.In(i).type != ctx.In(0).type) {
      return ctx.Err(ctx.Name(i) + " " + ShapeToString(ctx.InShape(i)) + " differs from input 0 " +
                     ShapeToString(ctx.InShape(0)));
    }
  }
  ctx.Set(0, ctx.InShape(0), ctx.In(0).type);
  return OkStatus();
}

Status Select(RuleContext& ctx) { return SelectBetween(ctx, false); }

Status SelectV2(RuleContext& ctx) { return SelectBetween(ctx, true); }

Status Fill(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  if (ctx.In(1).num_elements() != 1) return ctx.Err("value must be a scalar, got " + ShapeToString(ctx.InShape(1)));
  std::vector<int64_t> dims;
  if (!ctx.Values(0, &dims)) return ctx.KeepStored(0, ctx.In(1).type, "dims (input 0)");
  Shape out;
  for (int64_t d : dims) {
    if (d < 0 || d > kMaxDim) return ctx.Err("invalid dims " + Join(dims));
    out.push_back(static_cast<int32_t>(d));
  }
  GLD_RETURN_IF_ERROR(ctx.CheckShape(out, "output"));
  ctx.Set(0, out, ctx.In(1).type);
  return OkStatus();
}

}  // namespace shapes

}  // namespace gld
