// WHILE, IF and CALL_ONCE: nodes that run other subgraphs of the model with
// TFLite's semantics. The subgraphs are prepared once, in the node's prepare
// (the runtime plans each as its own Runtime: KernelContext::model), and the
// runs copy the loop-carried values between the node's and the subgraphs'
// buffers, allocating nothing.
#include <cstring>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/model_services.h"

namespace gld::cpu {

namespace {

Status NeedModel(const KernelContext& ctx) {
  if (ctx.model != nullptr) return OkStatus();
  return UnimplementedError("control flow runs inside an interpreter only (it needs the model's subgraphs)");
}

void CopyValue(const TensorData& from, TensorData& to) {
  if (from.data != to.data && to.bytes > 0) std::memcpy(to.data, from.data, to.bytes);
}

std::string ArgLabel(const char* what, size_t i) { return std::string(what) + " " + std::to_string(i); }

// A callee's value `value` (its input or output i) must be what the node
// passes: the same type and, as plans are made for fixed shapes, shape.
Status CheckSame(const PreparedSubgraph& callee, const std::string& what, const TensorData& value,
                 const TensorData& expected, const std::string& expected_what) {
  if (value.type != expected.type) {
    return InvalidArgumentError(callee.label() + " " + what + " is " + DataTypeName(value.type) + ", " +
                                expected_what + " is " + DataTypeName(expected.type));
  }
  if (value.shape != expected.shape || value.bytes != expected.bytes) {
    return UnimplementedError(callee.label() + " " + what + " has shape " + ShapeToString(value.shape) + ", " +
                              expected_what + " has " + ShapeToString(expected.shape) +
                              " (values whose shape changes across a call are not supported yet)");
  }
  return OkStatus();
}

Status CheckArity(const PreparedSubgraph& callee, size_t inputs, size_t outputs) {
  if (callee.num_inputs() == inputs && callee.num_outputs() == outputs) return OkStatus();
  return InvalidArgumentError(callee.label() + " has " + std::to_string(callee.num_inputs()) + " inputs and " +
                              std::to_string(callee.num_outputs()) + " outputs, the node passes " +
                              std::to_string(inputs) + " and takes " + std::to_string(outputs));
}

// A condition value: one element, bool (or a number, nonzero is true).
StatusOr<bool> Truth(const TensorData& t, const std::string& what) {
  if (t.num_elements() != 1) {
    return InvalidArgumentError(what + " has shape " + ShapeToString(t.shape) + ", expected one element");
  }
  switch (t.type) {
    case DataType::kBool: return *t.as<bool>();
    case DataType::kFloat32: return *t.as<float>() != 0.f;
    case DataType::kInt32: return *t.as<int32_t>() != 0;
    case DataType::kInt64: return *t.as<int64_t>() != 0;
    default: return InvalidArgumentError(what + " is " + DataTypeName(t.type) + ", expected bool");
  }
}

struct WhileState final : KernelState {
  std::unique_ptr<PreparedSubgraph> cond, body;
};

struct IfState final : KernelState {
  std::unique_ptr<PreparedSubgraph> then_branch, else_branch;
};

struct CallOnceState final : KernelState {
  std::unique_ptr<PreparedSubgraph> init;
  bool ran = false;
  uint64_t generation = 0;  // ResourceVariables::generation() when it ran
};

template <typename A>
StatusOr<const A*> AttrsOf(const KernelContext& ctx) {
  const A* a = std::get_if<A>(&ctx.node->attributes);
  if (a == nullptr) return InvalidArgumentError("missing or wrong attributes");
  return a;
}

// Prepares the node into its state slot when it has none yet (a node run
// without the runtime's prepare stage, as EvaluateNode does).
template <typename S>
StatusOr<S*> PreparedState(KernelContext& ctx, Status (*prepare)(KernelContext&)) {
  if (S* s = StateAs<S>(ctx)) return s;
  if (ctx.state == nullptr) return InternalError("control flow needs a state slot");
  GLD_RETURN_IF_ERROR(prepare(ctx));
  S* s = StateAs<S>(ctx);
  if (s == nullptr) return InternalError("control flow prepare kept no state");
  return s;
}

}  // namespace

Status PrepareWhile(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(const WhileAttributes* attrs, AttrsOf<WhileAttributes>(ctx));
  const WhileAttributes& a = *attrs;
  const size_t n = ctx.inputs.size();
  if (ctx.outputs.size() != n) {
    return InvalidArgumentError("has " + std::to_string(n) + " inputs and " + std::to_string(ctx.outputs.size()) +
                                " outputs, expected as many");
  }
  auto state = std::make_unique<WhileState>();
  GLD_ASSIGN_OR_RETURN(state->cond, ctx.model->PrepareSubgraph(a.cond_subgraph, ctx.inputs));
  GLD_ASSIGN_OR_RETURN(state->body, ctx.model->PrepareSubgraph(a.body_subgraph, ctx.inputs));
  GLD_RETURN_IF_ERROR(CheckArity(*state->cond, n, 1));
  GLD_RETURN_IF_ERROR(CheckArity(*state->body, n, n));
  GLD_ASSIGN_OR_RETURN(bool unused, Truth(state->cond->output(0), state->cond->label() + " output 0"));
  (void)unused;
  for (size_t i = 0; i < n; ++i) {
    const std::string in = ArgLabel("input", i);
    GLD_RETURN_IF_ERROR(CheckSame(*state->cond, in, state->cond->input(i), *ctx.inputs[i], "the node's " + in));
    GLD_RETURN_IF_ERROR(CheckSame(*state->body, in, state->body->input(i), *ctx.inputs[i], "the node's " + in));
    GLD_RETURN_IF_ERROR(CheckSame(*state->body, ArgLabel("output", i), state->body->output(i), *ctx.inputs[i],
                                  "the loop variable (the node's " + in + ")"));
    GLD_RETURN_IF_ERROR(CheckSame(*state->body, ArgLabel("output", i), state->body->output(i), *ctx.outputs[i],
                                  "the node's " + ArgLabel("output", i)));
  }
  if (ctx.state != nullptr) *ctx.state = std::move(state);
  return OkStatus();
}

Status RunWhile(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(WhileState * s, PreparedState<WhileState>(ctx, PrepareWhile));
  PreparedSubgraph& cond = *s->cond;
  PreparedSubgraph& body = *s->body;
  const size_t n = ctx.inputs.size();
  for (size_t i = 0; i < n; ++i) {
    CopyValue(*ctx.inputs[i], cond.input(i));
    CopyValue(*ctx.inputs[i], body.input(i));
  }
  const int64_t limit = ctx.model->max_loop_iterations();
  for (int64_t iteration = 0;; ++iteration) {
    GLD_RETURN_IF_ERROR(cond.Invoke());
    GLD_ASSIGN_OR_RETURN(bool go_on, Truth(cond.output(0), cond.label() + " output 0"));
    if (!go_on) break;
    if (iteration >= limit) {
      return OutOfRangeError("the loop did not end within max_loop_iterations=" + std::to_string(limit) +
                                   " iterations (" + cond.label() + " was still true after " +
                                   std::to_string(iteration) + " runs of " + body.label() + ")");
    }
    if (ctx.model->cancel_requested()) {
      return InvokeCancelled("after " + std::to_string(iteration) + " runs of " + body.label());
    }
    GLD_RETURN_IF_ERROR(body.Invoke());
    for (size_t i = 0; i < n; ++i) {
      // A body run node by node (its shapes depend on values) may change a
      // loop variable's shape, which the plans around it cannot take.
      if (body.output(i).shape != body.input(i).shape) {
        return UnimplementedError(body.label() + " output " + std::to_string(i) + " has shape " +
                                  ShapeToString(body.output(i).shape) + " after iteration " +
                                  std::to_string(iteration) + ", the loop variable has " +
                                  ShapeToString(body.input(i).shape) +
                                  " (loop variables whose shape changes are not supported yet)");
      }
      CopyValue(body.output(i), body.input(i));
      CopyValue(body.output(i), cond.input(i));
    }
  }
  for (size_t i = 0; i < n; ++i) CopyValue(body.input(i), *ctx.outputs[i]);
  return OkStatus();
}

Status PrepareIf(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(const IfAttributes* attrs, AttrsOf<IfAttributes>(ctx));
  const IfAttributes& a = *attrs;
  if (ctx.inputs.empty() || ctx.inputs[0] == nullptr) return InvalidArgumentError("has no condition (input 0)");
  const std::vector<const TensorData*> args(ctx.inputs.begin() + 1, ctx.inputs.end());
  auto state = std::make_unique<IfState>();
  GLD_ASSIGN_OR_RETURN(state->then_branch, ctx.model->PrepareSubgraph(a.then_subgraph, args));
  GLD_ASSIGN_OR_RETURN(state->else_branch, ctx.model->PrepareSubgraph(a.else_subgraph, args));
  for (PreparedSubgraph* branch : {state->then_branch.get(), state->else_branch.get()}) {
    GLD_RETURN_IF_ERROR(CheckArity(*branch, args.size(), ctx.outputs.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      GLD_RETURN_IF_ERROR(CheckSame(*branch, ArgLabel("input", i), branch->input(i), *args[i],
                                    "the node's " + ArgLabel("input", i + 1)));
    }
    for (size_t i = 0; i < ctx.outputs.size(); ++i) {
      GLD_RETURN_IF_ERROR(CheckSame(*branch, ArgLabel("output", i), branch->output(i), *ctx.outputs[i],
                                    "the node's " + ArgLabel("output", i)));
    }
  }
  if (ctx.state != nullptr) *ctx.state = std::move(state);
  return OkStatus();
}

Status RunIf(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(IfState * s, PreparedState<IfState>(ctx, PrepareIf));
  GLD_ASSIGN_OR_RETURN(bool take_then, Truth(*ctx.inputs[0], "the condition (input 0)"));
  PreparedSubgraph& branch = take_then ? *s->then_branch : *s->else_branch;
  for (size_t i = 1; i < ctx.inputs.size(); ++i) CopyValue(*ctx.inputs[i], branch.input(i - 1));
  GLD_RETURN_IF_ERROR(branch.Invoke());
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const TensorData& out = branch.output(i);
    if (out.type != ctx.outputs[i]->type || out.shape != ctx.outputs[i]->shape) {  // a branch run node by node
      return CheckSame(branch, ArgLabel("output", i), out, *ctx.outputs[i], "the node's " + ArgLabel("output", i));
    }
    CopyValue(branch.output(i), *ctx.outputs[i]);
  }
  return OkStatus();
}

Status PrepareCallOnce(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(const CallOnceAttributes* attrs, AttrsOf<CallOnceAttributes>(ctx));
  const CallOnceAttributes& a = *attrs;
  auto state = std::make_unique<CallOnceState>();
  GLD_ASSIGN_OR_RETURN(state->init, ctx.model->PrepareSubgraph(a.init_subgraph, {}));
  GLD_RETURN_IF_ERROR(CheckArity(*state->init, 0, 0));
  if (ctx.state != nullptr) *ctx.state = std::move(state);
  return OkStatus();
}

Status RunCallOnce(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(CallOnceState * s, PreparedState<CallOnceState>(ctx, PrepareCallOnce));
  const uint64_t generation = ctx.model->variables().generation();
  if (s->ran && s->generation == generation) return OkStatus();
  GLD_RETURN_IF_ERROR(s->init->Invoke());
  s->ran = true;
  s->generation = generation;
  return OkStatus();
}

}  // namespace gld::cpu
