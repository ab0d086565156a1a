// GLD_LAYER_NORM (layer_norm.comp): one dispatch per layer norm, one
// invocation per row of the last axis; gamma and beta are constants (the
// pass that makes the op takes only constant ones).
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

// Input `i`'s values as a vec4 per slice over `channels` (one value repeated).
StatusOr<DispatchBufferRef> ChannelBuffer(OpBuildContext& ctx, size_t i, const char* what, int32_t channels) {
  GLD_ASSIGN_OR_RETURN(std::vector<float> v, ctx.ConstantFloats(i));
  if (v.size() != 1 && v.size() != static_cast<size_t>(channels)) {
    return ctx.Invalid(std::string(what) + " holds " + std::to_string(v.size()) + " values for " +
                       std::to_string(channels) + " channels");
  }
  return ctx.AddConstant(what, [v, channels] {
    std::vector<float> full(static_cast<size_t>(channels), v[0]);
    if (v.size() == full.size()) full = v;
    return RepackVector(full, channels);
  });
}

}  // namespace

Status BuildLayerNorm(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<LayerNormAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing LayerNormAttributes");
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (in != o || ctx.input(0)->shape.empty()) {
    return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " differ");
  }
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef gamma, ChannelBuffer(ctx, 1, "gamma", o.c));
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef beta, ChannelBuffer(ctx, 2, "beta", o.c));
  Dispatch d;
  d.shader.template_name = "layer_norm.comp";
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, gamma)
      .Bind(3, beta);
  d.IVec4("u_shape", o);
  d.Float("u_epsilon", attrs->epsilon);
  d.grid = {static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h), static_cast<uint32_t>(o.b)};
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
