// VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE: an interpreter's resource
// variables (ResourceVariables, lent through KernelContext::model), with
// LiteRT's semantics: a handle is the int32 id of the variable its
// (container, shared_name) names, a read copies the value last assigned.
#include <cstring>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/model_services.h"

namespace gld::cpu {

namespace {

Status NeedModel(const KernelContext& ctx) {
  if (ctx.model != nullptr) return OkStatus();
  return UnimplementedError("resource variables live in an interpreter only");
}

StatusOr<int32_t> HandleOf(const TensorData& t) {
  if (t.type != DataType::kInt32 || t.num_elements() != 1 || t.data == nullptr) {
    return InvalidArgumentError("the resource handle (input 0) is " + std::string(DataTypeName(t.type)) + " " +
                                ShapeToString(t.shape) + ", expected one resource id");
  }
  return *t.as<int32_t>();
}

struct VarHandleState final : KernelState {
  int32_t id = 0;
};

}  // namespace

Status PrepareVarHandle(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  const auto* a = std::get_if<VarHandleAttributes>(&ctx.node->attributes);
  if (a == nullptr) return InvalidArgumentError("missing or wrong attributes");
  auto state = std::make_unique<VarHandleState>();
  state->id = ctx.model->variables().Handle(a->container, a->shared_name);
  if (ctx.state != nullptr) *ctx.state = std::move(state);
  return OkStatus();
}

Status RunVarHandle(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  TensorData& out = *ctx.outputs[0];
  if (out.type != DataType::kInt32 || out.num_elements() != 1) {
    return InvalidArgumentError("output 0 is " + std::string(DataTypeName(out.type)) + " " + ShapeToString(out.shape) +
                                ", expected one resource id");
  }
  const auto* state = StateAs<const VarHandleState>(ctx);
  if (state != nullptr) {
    *out.as<int32_t>() = state->id;
  } else {
    const auto* a = std::get_if<VarHandleAttributes>(&ctx.node->attributes);
    if (a == nullptr) return InvalidArgumentError("missing or wrong attributes");
    *out.as<int32_t>() = ctx.model->variables().Handle(a->container, a->shared_name);
  }
  return OkStatus();
}

Status RunReadVariable(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(int32_t id, HandleOf(*ctx.inputs[0]));
  ResourceVariables& vars = ctx.model->variables();
  const TensorData* value = vars.Value(id);
  if (value == nullptr) {
    return FailedPreconditionError(vars.Label(id) + " is read before any ASSIGN_VARIABLE gave it a value");
  }
  TensorData& out = *ctx.outputs[0];
  if (value->type != out.type) {
    return InvalidArgumentError(vars.Label(id) + " holds " + DataTypeName(value->type) + ", the output is " +
                                DataTypeName(out.type));
  }
  if (value->shape != out.shape || value->bytes != out.bytes) {
    return UnimplementedError(vars.Label(id) + " holds shape " + ShapeToString(value->shape) +
                              ", the output was planned for " + ShapeToString(out.shape) +
                              " (variables whose shape differs from the model's declared shape are not supported)");
  }
  if (out.bytes > 0) std::memcpy(out.data, value->data, out.bytes);
  return OkStatus();
}

Status RunAssignVariable(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(NeedModel(ctx));
  GLD_ASSIGN_OR_RETURN(int32_t id, HandleOf(*ctx.inputs[0]));
  return ctx.model->variables().Assign(id, *ctx.inputs[1]);
}

}  // namespace gld::cpu
