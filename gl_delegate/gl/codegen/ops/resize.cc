// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR (resize.comp).
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"

namespace gld::gl {

Status BuildResize(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<ResizeAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing ResizeAttributes");
  if (ctx.num_inputs() < 1 || ctx.num_outputs() < 1) return ctx.Invalid("expects input, size and 1 output");
  const Tensor* input = ctx.input(0);
  if (input != nullptr && input->shape.size() != 4) {
    return ctx.Unsupported("input '" + input->name + "' is " + std::to_string(input->shape.size()) +
                           "-D " + ShapeToString(input->shape) + " (expects 4-D)");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (in.b != o.b || in.c != o.c) return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " differ in batch or channels");
  // In float, as TFLite computes them.
  auto scale = [&](int32_t in_size, int32_t out_size) {
    return attrs->align_corners && out_size > 1
               ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
               : static_cast<float>(in_size) / static_cast<float>(out_size);
  };
  Dispatch d;
  d.shader.template_name = "resize.comp";
  d.shader.Define("BILINEAR", ctx.node().op == OpType::kResizeBilinear ? 1 : 0);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)});
  d.IVec4("u_out", o).IVec4("u_in", in);
  Uniform u;
  u.name = "u_scale";
  u.type = Uniform::kVec2;
  u.f = {scale(in.h, o.h), scale(in.w, o.w), 0, 0};
  d.uniforms.push_back(u);
  d.IVec2("u_flags", attrs->align_corners ? 1 : 0, attrs->half_pixel_centers ? 1 : 0);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
