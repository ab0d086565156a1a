// Shape rule of PAD, PADV2 and MIRROR_PAD: the paddings input.
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Pad(RuleContext& ctx) {
  const bool v2 = ctx.node().op == OpType::kPadV2;
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, v2 ? 3 : 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const Shape& s = ctx.InShape(0);
  if (v2 && ctx.Has(2) && (ctx.In(2).num_elements() != 1 || ctx.In(2).type != ctx.In(0).type)) {
    return ctx.Err("constant value must be one " + std::string(DataTypeName(ctx.In(0).type)) + " element, got " +
                   ShapeToString(ctx.InShape(2)) + " " + DataTypeName(ctx.In(2).type));
  }
  std::vector<int64_t> p;
  if (!ctx.Values(1, &p)) return ctx.KeepStored(0, ctx.In(0).type, "paddings (input 1)");
  if (p.size() != s.size() * 2) {
    return ctx.Err("paddings " + ShapeToString(ctx.InShape(1)) + " do not match input rank " +
                   std::to_string(s.size()));
  }
  Shape out = s;
  const bool mirror = ctx.node().op == OpType::kMirrorPad;
  bool symmetric = false;
  if (const auto* a = std::get_if<MirrorPadAttributes>(&ctx.node().attributes)) symmetric = a->symmetric;
  for (size_t d = 0; d < s.size(); ++d) {
    const int64_t b = p[2 * d], e = p[2 * d + 1];
    if (b < 0 || e < 0) return ctx.Err("negative paddings " + Join(p));
    if (mirror) {
      const int64_t limit = symmetric ? s[d] : s[d] - 1;
      if (b > limit || e > limit) {
        return ctx.Err("paddings " + Join(p) + " exceed " + std::to_string(limit) + " in dimension " +
                       std::to_string(d) + " of " + ShapeToString(s));
      }
    }
    const int64_t n = s[d] + b + e;
    if (n > kMaxDim) return ctx.Err("padded dimension " + std::to_string(n) + " too large");
    out[d] = static_cast<int32_t>(n);
  }
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
