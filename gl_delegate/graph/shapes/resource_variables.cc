// Shape rules of the resource-variable ops. A handle is one int32 (the
// variable's id); a read has the shape the file declares, which the kernel
// checks against the value it finds.
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status VarHandle(RuleContext& ctx) {
  const VarHandleAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  Shape shape = ctx.Out(0).shape;
  if (!ShapeIsKnown(shape) || NumElements(shape) != 1) shape = {};
  ctx.Set(0, std::move(shape), DataType::kInt32);
  return OkStatus();
}

Status ReadVariable(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  if (ctx.In(0).type != DataType::kInt32 || ctx.In(0).num_elements() != 1) {
    return ctx.Err("input 0 is " + std::string(DataTypeName(ctx.In(0).type)) + " " + ShapeToString(ctx.InShape(0)) +
                   ", expected a resource handle");
  }
  return ctx.KeepStored(0, ctx.StoredType(0, DataType::kFloat32), "the variable (input 0)");
}

Status AssignVariable(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  if (ctx.In(0).type != DataType::kInt32 || ctx.In(0).num_elements() != 1) {
    return ctx.Err("input 0 is " + std::string(DataTypeName(ctx.In(0).type)) + " " + ShapeToString(ctx.InShape(0)) +
                   ", expected a resource handle");
  }
  return OkStatus();
}

}  // namespace gld::shapes
