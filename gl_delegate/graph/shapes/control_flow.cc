// Shape rules of the control-flow ops. Their callees are planned by the
// runtime for the shapes set here, and their prepare checks the callees'
// shapes against them (values whose shape changes across a call are not
// supported yet).
#include <algorithm>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

// WHILE: output i is loop variable i, as it came in.
Status While(RuleContext& ctx) {
  const WhileAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  if (ctx.node().outputs.size() != ctx.NumInputs()) {
    return ctx.Err("has " + std::to_string(ctx.NumInputs()) + " inputs and " +
                   std::to_string(ctx.node().outputs.size()) + " outputs, expected as many (the loop variables)");
  }
  for (size_t i = 0; i < ctx.NumInputs(); ++i) ctx.Set(i, ctx.InShape(i), ctx.In(i).type);
  return OkStatus();
}

// IF: the outputs the file declares; both branches must produce them.
Status If(RuleContext& ctx) {
  const IfAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, std::max<size_t>(1, ctx.NumInputs())));
  if (ctx.In(0).num_elements() != 1) {
    return ctx.Err("the condition (input 0) has shape " + ShapeToString(ctx.InShape(0)) + ", expected one element");
  }
  for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
    GLD_RETURN_IF_ERROR(ctx.KeepStored(i, ctx.StoredType(i, DataType::kFloat32), "the branch taken"));
  }
  return OkStatus();
}

Status CallOnce(RuleContext& ctx) {
  const CallOnceAttributes* a = nullptr;
  return ctx.Attrs(&a);
}

}  // namespace gld::shapes

namespace gld::shapes {

// STABLEHLO_COMPOSITE: the outputs the file declares (its decomposition's).
Status Composite(RuleContext& ctx) {
  const CompositeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  for (size_t i = 0; i < ctx.node().outputs.size(); ++i) {
    GLD_RETURN_IF_ERROR(ctx.KeepStored(i, ctx.StoredType(i, DataType::kFloat32), "the decomposition"));
  }
  return OkStatus();
}

}  // namespace gld::shapes
