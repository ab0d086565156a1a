// FULLY_CONNECTED (fully_connected.comp). Weights and bias must be constants;
// they are repacked on the host once, when the segment is built.
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

Status BuildFullyConnected(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<FullyConnectedAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing FullyConnectedAttributes");
  if (ctx.num_inputs() < 2 || ctx.num_outputs() < 1) return ctx.Invalid("expects input, weights[, bias] and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Tensor* wt = ctx.input(1);
  if (wt == nullptr) return ctx.Invalid("weights missing");
  if (!wt->is_constant) return ctx.Unsupported("weights '" + wt->name + "' are not constant");
  if (wt->shape.size() != 2 || wt->shape[0] <= 0 || wt->shape[1] <= 0) {
    return ctx.Invalid("weights '" + wt->name + "' have shape " + ShapeToString(wt->shape) + ", expected [O, K]");
  }
  const int32_t units = wt->shape[0], depth = wt->shape[1];
  if (in.c != depth) {
    return ctx.Unsupported("input " + ShapeToString(ctx.input(0)->shape) + " has last dimension " +
                           std::to_string(in.c) + " != weights' K " + std::to_string(depth) +
                           " (rows spanning dimensions are not supported)");
  }
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", o.c, units));
  const int64_t rows = in.elements() / depth;
  if (o.elements() / units != rows) {
    return ctx.Invalid("output " + o.ToString() + " does not hold " + std::to_string(rows) + " rows");
  }
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  GLD_RETURN_IF_ERROR(ctx.ConstantFloats(1).status());
  const Blocking k = BlockingFor(units);
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, 2, units, k.padded_slices));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, units, depth, k] {
    return RepackOhwiWeights(*ctx.ConstantFloats(1), units, 1, 1, depth, k.block);
  });
  out->push_back(FullyConnectedDispatch(ctx.output_index(0), ctx.input_index(0), weights, bias, o, in, k, act));
  return OkStatus();
}

Dispatch FullyConnectedDispatch(int output, int input, DispatchBufferRef weights, DispatchBufferRef bias,
                                const Bhwc& o, const Bhwc& in, const Blocking& k, const std::string& act) {
  Dispatch d;
  d.shader.template_name = "fully_connected.comp";
  d.shader.Define("BLOCK", k.block).Define("ACTIVATION", act);
  d.Bind(0, {DispatchBufferRef::kTensor, output})
      .Bind(1, {DispatchBufferRef::kTensor, input})
      .Bind(2, weights)
      .Bind(3, bias);
  d.IVec4("u_out", o).IVec4("u_in", in);
  GridOverGroups(d, o, k);
  return d;
}

}  // namespace gld::gl
