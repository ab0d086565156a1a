// Shape rule of GLD_LAYER_NORM: the input's shape; gamma and beta are float32
// vectors over the last axis (or single values).
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status LayerNorm(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& x = ctx.InShape(0);
  if (x.empty()) return ctx.Err("input must have rank >= 1");
  if (ctx.In(0).type != DataType::kFloat32) return ctx.Err("input must be float32");
  const int64_t channels = x.back();
  for (size_t i = 1; i < 3; ++i) {
    const Tensor& v = ctx.In(i);
    const int64_t n = v.num_elements();
    if (v.type != DataType::kFloat32 || (n != channels && n != 1)) {
      return ctx.Err(std::string(i == 1 ? "gamma" : "beta") + " " + ShapeToString(v.shape) +
                     " must hold 1 or " + std::to_string(channels) + " float32 values");
    }
  }
  ctx.Set(0, x, DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes

namespace gld::shapes {

// GLD_RMS_NORM: the input's shape; gamma a float32 vector over the last axis
// (or a single value).
Status RmsNorm(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& x = ctx.InShape(0);
  if (x.empty()) return ctx.Err("input must have rank >= 1");
  if (ctx.In(0).type != DataType::kFloat32) return ctx.Err("input must be float32");
  const Tensor& g = ctx.In(1);
  if (g.type != DataType::kFloat32 || (g.num_elements() != x.back() && g.num_elements() != 1)) {
    return ctx.Err("gamma " + ShapeToString(g.shape) + " must hold 1 or " + std::to_string(x.back()) +
                   " float32 values");
  }
  ctx.Set(0, x, DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes
