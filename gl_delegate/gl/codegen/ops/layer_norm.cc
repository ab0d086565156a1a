// GLD_LAYER_NORM and GLD_RMS_NORM (layer_norm.comp): one dispatch per norm, one
// invocation per row of the last axis; gamma and beta are constants (the
// pass that makes GLD_LAYER_NORM takes only constant ones; a GLD_RMS_NORM
// whose gamma is not one stays on the CPU).
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

// GLD_LAYER_NORM and GLD_RMS_NORM (x, gamma: RMS 1 in the template).
Status BuildLayerNorm(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const bool rms = ctx.node().op == OpType::kRmsNorm;
  const auto* layer = std::get_if<LayerNormAttributes>(&ctx.node().attributes);
  const auto* rms_attrs = std::get_if<RmsNormAttributes>(&ctx.node().attributes);
  if (rms ? rms_attrs == nullptr : layer == nullptr) return ctx.Invalid("missing its norm attributes");
  GLD_RETURN_IF_ERROR(NeedIo(ctx, rms ? 2 : 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (in != o || ctx.input(0)->shape.empty()) {
    return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " differ");
  }
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef gamma, ChannelBuffer(ctx, 1, "gamma", o.c));
  DispatchBufferRef beta = gamma;
  if (!rms) {
    GLD_ASSIGN_OR_RETURN(beta, ChannelBuffer(ctx, 2, "beta", o.c));
  }
  Dispatch d;
  d.shader.template_name = "layer_norm.comp";
  d.shader.Define("RMS", rms ? 1 : 0);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, gamma)
      .Bind(3, beta);
  d.IVec4("u_shape", o);
  d.Float("u_epsilon", rms ? rms_attrs->epsilon : layer->epsilon);
  d.grid = {static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h), static_cast<uint32_t>(o.b)};
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
