// The CPU side of an app's custom op (OpType::kCustom): the registration
// the Interpreter bound to the node (CustomAttributes::op) does the work.
#include <new>

#include "cpu_kernels/ops/op_kernels.h"
#include "graph/custom_node.h"

namespace gld::cpu {

namespace {

// The node as the op's callbacks see it (final shapes), the state its
// prepare made, and the run whose buffer pointers each run refills (no
// allocation per run).
struct CustomKernelState final : KernelState {
  CustomOpNode node;
  std::shared_ptr<void> user_state;
  CustomCpuRun run;
};

StatusOr<const CustomOp*> BoundOp(const KernelContext& ctx) {
  const CustomAttributes* a = GetCustomAttributes(*ctx.node);
  if (a == nullptr) return InternalError("custom node without its attributes");
  if (a->op == nullptr) return UnimplementedError(UnregisteredCustomOpMessage(*a));
  return a->op.get();
}

StatusOr<std::unique_ptr<CustomKernelState>> MakeState(const KernelContext& ctx, const CustomOp& op) {
  auto state = std::make_unique<CustomKernelState>();
  const size_t index = static_cast<size_t>(ctx.node - ctx.graph->nodes.data());
  state->node = MakeCustomOpNode(*ctx.graph, index);
  if (op.prepare) {
    Status s = CallCustomOp([&] { return op.prepare(state->node, &state->user_state); });
    if (!s.ok()) return Status(s.code(), "prepare: " + s.message());
  }
  state->run.node = &state->node;
  state->run.state = state->user_state.get();
  state->run.inputs.assign(ctx.inputs.size(), nullptr);
  state->run.outputs.assign(ctx.outputs.size(), nullptr);
  return state;
}

}  // namespace

Status PrepareCustom(KernelContext& ctx) {
  GLD_ASSIGN_OR_RETURN(const CustomOp* op, BoundOp(ctx));
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<CustomKernelState> state, MakeState(ctx, *op));
  if (ctx.state != nullptr) *ctx.state = std::move(state);
  return OkStatus();
}

Status RunCustom(KernelContext& ctx) {
  GLD_ASSIGN_OR_RETURN(const CustomOp* op, BoundOp(ctx));
  CustomKernelState* state = StateAs<CustomKernelState>(ctx);
  std::unique_ptr<CustomKernelState> local;  // without a slot: prepared for this run alone
  if (state == nullptr) {
    GLD_ASSIGN_OR_RETURN(local, MakeState(ctx, *op));
    state = local.get();
  }
  CustomCpuRun& run = state->run;
  if (run.inputs.size() != ctx.inputs.size() || run.outputs.size() != ctx.outputs.size()) {
    return InternalError("custom node's buffers changed in number since prepare");
  }
  for (size_t i = 0; i < ctx.inputs.size(); ++i) run.inputs[i] = ctx.inputs[i] == nullptr ? nullptr : ctx.inputs[i]->data;
  for (size_t i = 0; i < ctx.outputs.size(); ++i) run.outputs[i] = ctx.outputs[i]->data;
  Status s = CallCustomOp([&] { return op->run(run); });
  if (!s.ok()) return Status(s.code(), "run: " + s.message());
  return OkStatus();
}

}  // namespace gld::cpu
