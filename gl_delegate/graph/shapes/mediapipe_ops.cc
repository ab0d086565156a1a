// Shape rules of MediaPipe's custom ops: MaxUnpooling2D,
// TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix
// (MaxPoolingWithArgmax2D: Pool, pooling.cc).
#include <string>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

// (values, argmax indices) -> values placed back; size = input * filter.
Status MaxUnpooling2D(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  if (ctx.InShape(1) != ctx.InShape(0)) {
    return ctx.Err("indices " + ShapeToString(ctx.InShape(1)) + " must match values " + ShapeToString(ctx.InShape(0)));
  }
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->filter_h <= 0 || a->filter_w <= 0) {
    return ctx.Err("filter and strides must be positive");
  }
  const Shape& s = ctx.InShape(0);
  const int64_t oh = static_cast<int64_t>(s[1]) * a->filter_h, ow = static_cast<int64_t>(s[2]) * a->filter_w;
  if (oh > kMaxDim || ow > kMaxDim) return ctx.Err("output too large");
  ctx.Set(0, {s[0], static_cast<int32_t>(oh), static_cast<int32_t>(ow), s[3]}, ctx.In(0).type);
  return OkStatus();
}

Status TransformTensorBilinear(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransformTensorBilinearAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  if (ctx.In(1).num_elements() % 16 != 0 || ctx.In(1).num_elements() == 0) {
    return ctx.Err("matrix input " + ShapeToString(ctx.InShape(1)) + " must hold 4x4 matrices");
  }
  const Shape& s = ctx.InShape(0);
  ctx.Set(0, {s[0], a->output_height, a->output_width, s[3]}, ctx.In(0).type);
  return OkStatus();
}

Status TransformLandmarks(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransformLandmarksAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, a->version == 1 ? 4 : 3));
  const int64_t dims = a->version == 1 ? a->dimensions : ctx.InShape(0).back();
  if ((dims != 2 && dims != 3) || ctx.InShape(0).back() % dims != 0) {
    return ctx.Err("landmarks " + ShapeToString(ctx.InShape(0)) + " do not hold " + std::to_string(dims) + "-D points");
  }
  if (ctx.In(1).num_elements() < 16) return ctx.Err("matrix input " + ShapeToString(ctx.InShape(1)) + " is not 4x4");
  ctx.Set(0, ctx.InShape(0), ctx.In(0).type);
  return OkStatus();
}

Status Landmarks2TransformMatrix(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Landmarks2TransformMatrixAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  if (ctx.In(0).num_elements() % 3 != 0) {
    return ctx.Err("landmarks " + ShapeToString(ctx.InShape(0)) + " are not (x, y, z) triples");
  }
  ctx.Set(0, {1, 4, 4}, DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes
