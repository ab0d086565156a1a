// Shape rule of AVERAGE_POOL_2D, MAX_POOL_2D and MediaPipe's
// MaxPoolingWithArgmax2D (values and indices).
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Pool(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  const Pool2dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  if (a->stride_h <= 0 || a->stride_w <= 0 || a->filter_h <= 0 || a->filter_w <= 0) {
    return ctx.Err("filter (" + std::to_string(a->filter_h) + ", " + std::to_string(a->filter_w) + ") and strides (" +
                   std::to_string(a->stride_h) + ", " + std::to_string(a->stride_w) + ") must be positive");
  }
  const Shape& in = ctx.InShape(0);
  const int32_t oh = ConvOutputSize(a->padding, in[1], a->filter_h, a->stride_h);
  const int32_t ow = ConvOutputSize(a->padding, in[2], a->filter_w, a->stride_w);
  if (oh < 0 || ow < 0) {
    return ctx.Err("VALID filter (" + std::to_string(a->filter_h) + ", " + std::to_string(a->filter_w) +
                   ") is larger than input " + ShapeToString(in));
  }
  GLD_RETURN_IF_ERROR(ctx.WindowReach("height", oh, a->filter_h, a->stride_h, 1));
  GLD_RETURN_IF_ERROR(ctx.WindowReach("width", ow, a->filter_w, a->stride_w, 1));
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
