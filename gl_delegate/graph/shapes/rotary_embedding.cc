// Shape rule of GLD_ROTARY_EMBEDDING (x, cos, sin): the output is x's shape;
// the operands' one check (RotaryOperandsMismatch) is shared with the CPU
// kernel, the GL generator and the pass that makes the op.
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld {

std::string RotaryOperandsMismatch(const Shape& x, const Shape& cos, const Shape& sin) {
  // The message is made only when something does not fit (the CPU kernel
  // checks on its first run).
  const auto shapes = [&] {
    return "x " + ShapeToString(x) + ", cos " + ShapeToString(cos) + " and sin " + ShapeToString(sin);
  };
  if (x.empty() || x.back() <= 0 || x.back() % 2 != 0) return shapes() + ": x's last dimension is not even";
  if (cos != sin) return shapes() + ": cos and sin differ in shape";
  if (cos.size() > x.size()) return shapes() + ": cos has a higher rank than x";
  const size_t lead = x.size() - cos.size();
  for (size_t d = 0; d < cos.size(); ++d) {
    const int64_t half = d + 1 == cos.size() ? x.back() / 2 : x[lead + d];
    if (cos[d] != half && cos[d] != 1) return shapes() + ": cos does not broadcast to x's halves";
  }
  return "";
}

namespace shapes {

Status RotaryEmbedding(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.In(i).type != DataType::kFloat32) return ctx.Err(ctx.Name(i) + " must be float32");
  }
  const std::string why = RotaryOperandsMismatch(ctx.InShape(0), ctx.InShape(1), ctx.InShape(2));
  if (!why.empty()) return ctx.Err(why);
  ctx.Set(0, ctx.InShape(0), DataType::kFloat32);
  return OkStatus();
}

}  // namespace shapes

}  // namespace gld
