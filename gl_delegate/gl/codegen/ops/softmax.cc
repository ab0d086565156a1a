// SOFTMAX, LOG_SOFTMAX and L2_NORMALIZATION (softmax.comp) over the channel
// (last) axis, one invocation per pixel.
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"

namespace gld::gl {

Status BuildSoftmax(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const OpType op = ctx.node().op;
  const auto* attrs = std::get_if<SoftmaxAttributes>(&ctx.node().attributes);
  if (op == OpType::kSoftmax && attrs == nullptr) return ctx.Invalid("missing SoftmaxAttributes");
  if (ctx.num_inputs() < 1 || ctx.num_outputs() < 1) return ctx.Invalid("expects 1 input and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  if (in != o) return ctx.Invalid("input " + in.ToString() + " and output " + o.ToString() + " differ");
  if (ctx.input(0)->shape.empty()) return ctx.Unsupported("scalar input");
  Dispatch d;
  d.shader.template_name = "softmax.comp";
  d.shader.Define("MODE", std::string(op == OpType::kLogSoftmax        ? "MODE_LOG_SOFTMAX"
                          : op == OpType::kL2Normalization ? "MODE_L2"
                                                           : "MODE_SOFTMAX"));
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)}).Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)});
  d.IVec4("u_shape", o);
  d.Float("u_beta", op == OpType::kSoftmax ? attrs->beta : 1.0f);
  d.grid = {static_cast<uint32_t>(o.w), static_cast<uint32_t>(o.h), static_cast<uint32_t>(o.b)};
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
