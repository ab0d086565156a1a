// Shape rules of the ops whose outputs are chosen, ordered or counted
// elements of their input: TOPK_V2, UNIQUE, WHERE, BUCKETIZE and the
// non-max suppressions. UNIQUE's and WHERE's output sizes are known only
// once the kernel has run (RuleContext::SizedByKernel).
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

namespace {

// Input i must be a scalar (TFLite's kernels ask for rank 0).
Status Scalar(const RuleContext& ctx, size_t i) {
  if (!ctx.InShape(i).empty()) return ctx.Err(ctx.Name(i) + " must be a scalar, got " + ShapeToString(ctx.InShape(i)));
  return OkStatus();
}

}  // namespace

Status TopkV2(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(2));
  const Shape& in = ctx.InShape(0);
  if (in.empty()) return ctx.Err(ctx.Name(0) + " must have at least one dimension");
  if (ctx.In(1).type != DataType::kInt32 || ctx.In(1).num_elements() != 1) {
    return ctx.Err(ctx.Name(1) + " (k) must be one int32, got " + DataTypeName(ctx.In(1).type) + " " +
                   ShapeToString(ctx.InShape(1)));
  }
  const DataType type = ctx.In(0).type;
  std::vector<int64_t> k;
  if (!ctx.Values(1, &k)) {
    GLD_RETURN_IF_ERROR(ctx.KeepStored(0, type, "k (input 1)"));
    return ctx.KeepStored(1, DataType::kInt32, "k (input 1)");
  }
  if (k[0] < 0 || k[0] > in.back()) {
    return ctx.Err("k " + std::to_string(k[0]) + " is outside 0.." + std::to_string(in.back()) +
                   ", the last dimension of " + ShapeToString(in));
  }
  Shape out = in;
  out.back() = static_cast<int32_t>(k[0]);
  ctx.Set(0, out, type);
  ctx.Set(1, out, DataType::kInt32);
  return OkStatus();
}

Status Unique(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(2));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 1));
  const UniqueAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.SizedByKernel(0, {-1}, ctx.In(0).type, "the number of distinct values of input 0"));
  ctx.Set(1, ctx.InShape(0), a->idx_int64 ? DataType::kInt64 : DataType::kInt32);
  return OkStatus();
}

Status Where(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const auto rank = static_cast<int32_t>(ctx.InShape(0).size());
  return ctx.SizedByKernel(0, {-1, rank}, DataType::kInt64, "the number of true (non-zero) elements of input 0");
}

Status Bucketize(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const BucketizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  for (size_t i = 1; i < a->boundaries.size(); ++i) {
    if (!(a->boundaries[i - 1] <= a->boundaries[i])) {
      return ctx.Err("boundaries must be ascending: boundary " + std::to_string(i) + " (" +
                     std::to_string(a->boundaries[i]) + ") is below the one before (" +
                     std::to_string(a->boundaries[i - 1]) + ")");
    }
  }
  const DataType t = ctx.In(0).type;
  if (t != DataType::kFloat32 && t != DataType::kInt32 && t != DataType::kInt64) {
    return ctx.Err(std::string("input must be float32, int32 or int64, got ") + DataTypeName(t));
  }
  ctx.Set(0, ctx.InShape(0), DataType::kInt32);
  return OkStatus();
}

// NON_MAX_SUPPRESSION_V4 (boxes, scores, max_output_size, iou_threshold,
// score_threshold -> selected_indices, valid_outputs) and V5 (+
// soft_nms_sigma -> + selected_scores): the selections are padded to
// max_output_size.
Status NonMaxSuppression(RuleContext& ctx) {
  const bool soft = ctx.node().op == OpType::kNonMaxSuppressionV5;
  const size_t n_in = soft ? 6 : 5;
  GLD_RETURN_IF_ERROR(ctx.Inputs(n_in, n_in));
  GLD_RETURN_IF_ERROR(ctx.Outputs(soft ? 3 : 2));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 2));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 1));
  const Shape& boxes = ctx.InShape(0);
  if (boxes[1] != 4) return ctx.Err("boxes " + ShapeToString(boxes) + " must be [num_boxes, 4]");
  if (ctx.InShape(1)[0] != boxes[0]) {
    return ctx.Err("scores " + ShapeToString(ctx.InShape(1)) + " do not match boxes " + ShapeToString(boxes));
  }
  for (size_t i = 2; i < n_in; ++i) GLD_RETURN_IF_ERROR(Scalar(ctx, i));
  if (ctx.In(2).type != DataType::kInt32) {
    return ctx.Err(std::string("max_output_size must be int32, got ") + DataTypeName(ctx.In(2).type));
  }
  const DataType score_type = ctx.In(1).type;
  std::vector<int64_t> m;
  if (!ctx.Values(2, &m)) {
    GLD_RETURN_IF_ERROR(ctx.KeepStored(0, DataType::kInt32, "max_output_size (input 2)"));
    if (soft) GLD_RETURN_IF_ERROR(ctx.KeepStored(1, score_type, "max_output_size (input 2)"));
  } else {
    if (m[0] < 0 || m[0] > kMaxDim) return ctx.Err("max_output_size " + std::to_string(m[0]) + " is out of range");
    const Shape out = {static_cast<int32_t>(m[0])};
    ctx.Set(0, out, DataType::kInt32);
    if (soft) ctx.Set(1, out, score_type);
  }
  ctx.Set(soft ? 2 : 1, {}, DataType::kInt32);
  return OkStatus();
}

}  // namespace gld::shapes
