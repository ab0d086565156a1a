// An app's custom op with a GL kernel (gldelegate/custom_op.hpp): one
// dispatch of the op's own source over the accessors of custom_op.comp.
#include "gl/codegen/gl_op.h"
#include "graph/custom_node.h"

namespace gld::gl {

namespace {

constexpr size_t kMaxInputs = 8, kMaxOutputs = 4;
constexpr uint32_t kMaxInvocations = 128;  // GLES 3.1's minimum per workgroup

// The dispatch's grid and params from the op's configure, if it has one.
StatusOr<CustomGlDispatch> Configure(const OpBuildContext& ctx, const CustomOp& op, const Bhwc& out0) {
  CustomGlDispatch cd;
  cd.grid = {static_cast<uint32_t>(out0.w), static_cast<uint32_t>(out0.h), static_cast<uint32_t>(out0.b * out0.slices())};
  if (!op.gl.configure) return cd;
  const CustomOpNode view = MakeCustomOpNode(ctx.graph(), ctx.node_index());
  Status s = CallCustomOp([&] { return op.gl.configure(view, &cd); });
  if (!s.ok()) return ctx.Unsupported("GL configure: " + s.message());
  if (cd.grid[0] == 0 || cd.grid[1] == 0 || cd.grid[2] == 0) return ctx.Invalid("GL configure set an empty grid");
  const auto& wg = cd.workgroup;
  const bool wg_default = wg[0] == 0 && wg[1] == 0 && wg[2] == 0;
  if (!wg_default && (wg[0] == 0 || wg[1] == 0 || wg[2] == 0 ||
                      uint64_t{wg[0]} * wg[1] * wg[2] > kMaxInvocations || wg[2] > 64)) {
    return ctx.Invalid("GL configure set workgroup " + std::to_string(wg[0]) + "x" + std::to_string(wg[1]) + "x" +
                       std::to_string(wg[2]) + " (each side at least 1, z at most 64, at most " +
                       std::to_string(kMaxInvocations) + " invocations)");
  }
  return cd;
}

}  // namespace

Status BuildCustom(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const CustomAttributes* a = GetCustomAttributes(ctx.node());
  if (a == nullptr) return ctx.Invalid("missing CustomAttributes");
  if (a->op == nullptr) return ctx.Unsupported(UnregisteredCustomOpMessage(*a));
  const CustomOp& op = *a->op;
  if (op.gl.source.empty()) return ctx.Unsupported("custom op registered without a GL kernel (CPU only)");
  if (ctx.num_outputs() < 1 || ctx.num_outputs() > kMaxOutputs || ctx.num_inputs() > kMaxInputs) {
    return ctx.Unsupported("a custom op's GL kernel takes at most " + std::to_string(kMaxInputs) + " inputs and 1 to " +
                           std::to_string(kMaxOutputs) + " outputs, this node has " +
                           std::to_string(ctx.num_inputs()) + " and " + std::to_string(ctx.num_outputs()));
  }
  Dispatch d;
  d.shader.template_name = "custom op '" + a->name + "'";
  // Shares the registration's text (the program cache keys on the full source).
  d.shader.source = std::shared_ptr<const std::string>(a->op, &op.gl.source);
  d.shader.Library("custom_op.comp");
  const int outputs = static_cast<int>(ctx.num_outputs()), inputs = static_cast<int>(ctx.num_inputs());
  d.shader.Define("NUM_OUTPUTS", outputs).Define("NUM_INPUTS", inputs);
  Bhwc out0;
  for (int i = 0; i < outputs; ++i) {
    GLD_ASSIGN_OR_RETURN(Bhwc shape, ctx.OutputShape(static_cast<size_t>(i)));
    if (i == 0) out0 = shape;
    d.Bind(static_cast<uint32_t>(i), {DispatchBufferRef::kTensor, ctx.output_index(static_cast<size_t>(i))});
    d.IVec4("u_out" + std::to_string(i), shape);
  }
  for (int i = 0; i < inputs; ++i) {
    if (ctx.input_index(static_cast<size_t>(i)) < 0) return ctx.Unsupported("an absent input on the GPU");
    GLD_ASSIGN_OR_RETURN(Bhwc shape, ctx.InputShape(static_cast<size_t>(i)));
    d.shader.Define("BINDING_IN" + std::to_string(i), outputs + i);
    d.Bind(static_cast<uint32_t>(outputs + i), {DispatchBufferRef::kTensor, ctx.input_index(static_cast<size_t>(i))});
    d.IVec4("u_in" + std::to_string(i), shape);
  }
  GLD_ASSIGN_OR_RETURN(CustomGlDispatch cd, Configure(ctx, op, out0));
  d.grid = cd.grid;
  d.workgroup = cd.workgroup;
  for (int k = 0; k < 4; ++k) {
    d.Vec4("u_params[" + std::to_string(k) + "]", cd.params[4 * k], cd.params[4 * k + 1], cd.params[4 * k + 2],
           cd.params[4 * k + 3]);
  }
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
