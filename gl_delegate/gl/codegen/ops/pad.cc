// PAD, PADV2 and MIRROR_PAD (pad.comp: constant, REFLECT, SYMMETRIC). The
// paddings (and PADV2's value) must be constants.
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

Status BuildPad(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& in_shape = ShapeOf(ctx, ctx.input_index(0));
  const int rank = static_cast<int>(in_shape.size());
  GLD_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.ConstantInts(1));
  if (pads.size() != static_cast<size_t>(rank) * 2) {
    return ctx.Invalid("paddings hold " + std::to_string(pads.size()) + " values for rank " +
                       std::to_string(rank));
  }
  const bool mirror = ctx.node().op == OpType::kMirrorPad;
  bool symmetric = false;
  if (mirror) {
    const auto* attrs = std::get_if<MirrorPadAttributes>(&ctx.node().attributes);
    if (attrs == nullptr) return ctx.Invalid("missing MirrorPadAttributes");
    symmetric = attrs->symmetric;
  }
  std::array<int32_t, 4> before = {0, 0, 0, 0};
  for (int d = 0; d < rank; ++d) {
    const int64_t lo = pads[static_cast<size_t>(2 * d)], hi = pads[static_cast<size_t>(2 * d + 1)];
    const int32_t n = in_shape[static_cast<size_t>(d)];
    if (lo < 0 || hi < 0) return ctx.Invalid("negative padding on dimension " + std::to_string(d));
    if (mirror && (lo > n - (symmetric ? 0 : 1) || hi > n - (symmetric ? 0 : 1))) {
      return ctx.Invalid("mirror padding " + std::to_string(lo) + "/" + std::to_string(hi) +
                         " too large for dimension " + std::to_string(d) + " of size " + std::to_string(n));
    }
    const int axis = BhwcAxis(rank, d);
    before[static_cast<size_t>(axis)] = static_cast<int32_t>(lo);
    if (o.dim(axis) != in.dim(axis) + lo + hi) {
      return ctx.Invalid("output " + ShapeToString(ShapeOf(ctx, ctx.output_index(0))) +
                         " does not match the padded input on dimension " + std::to_string(d));
    }
  }
  float value = 0.0f;
  if (ctx.node().op == OpType::kPadV2 && ctx.input(2) != nullptr) {
    GLD_ASSIGN_OR_RETURN(std::vector<float> v, ctx.ConstantFloats(2));
    if (v.size() != 1) return ctx.Invalid("constant_values must hold one value");
    value = v[0];
  }
  const bool channel_padded = o.c != in.c;
  const bool vec4 = before[3] % 4 == 0 && (!mirror || !channel_padded);
  Dispatch d = SimpleDispatch(ctx, "pad.comp", in, o);
  d.shader.Define("MODE", !mirror ? "PAD_CONSTANT" : symmetric ? "PAD_SYMMETRIC" : "PAD_REFLECT")
      .Define("VEC4_PATH", vec4 ? 1 : 0);
  d.IVec4("u_before", before);
  d.Float("u_value", value);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
