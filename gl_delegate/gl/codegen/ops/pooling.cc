// Pooling: pooling.comp (AVERAGE_POOL_2D, MAX_POOL_2D, MaxPoolingWithArgmax2D)
// and max_unpooling.comp (MaxUnpooling2D).
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "graph/conv_geometry.h"

namespace gld::gl {

Status BuildPooling(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<Pool2dAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing Pool2dAttributes");
  const bool with_indices = ctx.node().op == OpType::kMaxPoolingWithArgmax2D;
  const bool is_max = ctx.node().op != OpType::kAveragePool2d;
  if (ctx.num_inputs() < 1 || ctx.num_outputs() < (with_indices ? 2u : 1u)) {
    return ctx.Invalid("too few inputs or outputs");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ctx.input(0)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  ConvGeometry g;
  const Status made = MakePoolGeometry(*attrs, ctx.input(0)->shape, &g);
  if (!made.ok()) return ctx.Invalid(made.message());
  const int32_t oh = g.h().out, ow = g.w().out;
  if (o.b != in.b || o.c != in.c || o.h != oh || o.w != ow) {
    return ctx.Invalid("output " + o.ToString() + " does not match input " + in.ToString() +
                       " pooled to " + std::to_string(oh) + "x" + std::to_string(ow));
  }
  if (with_indices) {
    GLD_ASSIGN_OR_RETURN(Bhwc indices, ctx.OutputShape(1));
    if (indices != o) return ctx.Invalid("indices and output shapes differ");
  }
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  Dispatch d;
  d.shader.template_name = "pooling.comp";
  d.shader.Define("POOL_MAX", is_max ? 1 : 0)
      .Define("WITH_INDICES", with_indices ? 1 : 0)
      .Define("ACTIVATION", act);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)});
  if (with_indices) d.Bind(2, {DispatchBufferRef::kTensor, ctx.output_index(1)});
  d.IVec4("u_out", o).IVec4("u_in", in);
  d.IVec2("u_kernel", attrs->filter_h, attrs->filter_w);
  d.IVec2("u_stride", attrs->stride_h, attrs->stride_w);
  d.IVec2("u_padding", g.h().pad_before, g.w().pad_before);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildMaxUnpooling(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<Pool2dAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing Pool2dAttributes");
  if (ctx.num_inputs() < 2 || ctx.num_outputs() < 1) return ctx.Invalid("expects values, indices and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc indices, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (ctx.input(0)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  if (indices != in) return ctx.Invalid("values " + in.ToString() + " and indices " + indices.ToString() + " differ");
  if (attrs->stride_h <= 0 || attrs->stride_w <= 0 || attrs->filter_h <= 0 || attrs->filter_w <= 0) {
    return ctx.Invalid("filter and strides must be positive");
  }
  if (o.b != in.b || o.c != in.c || o.h != in.h * attrs->filter_h || o.w != in.w * attrs->filter_w) {
    return ctx.Invalid("output " + o.ToString() + " is not input " + in.ToString() + " times the filter size");
  }
  const ConvGeometry g = MaxUnpoolingGeometry(*attrs, ctx.input(0)->shape, {o.b, o.h, o.w, o.c});
  Dispatch d;
  d.shader.template_name = "max_unpooling.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)});
  d.IVec4("u_out", o).IVec4("u_in", in);
  d.IVec2("u_kernel", attrs->filter_h, attrs->filter_w);
  d.IVec2("u_stride", attrs->stride_h, attrs->stride_w);
  d.IVec2("u_padding", g.h().pad_before, g.w().pad_before);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
