// Shape rule of an app's custom op: its registration's shape function, called
// on the CustomOpNode view.
#include <string>

#include "graph/custom_node.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Custom(RuleContext& ctx) {
  const CustomAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  if (a->op == nullptr) return ctx.Unimpl(UnregisteredCustomOpMessage(*a));
  CustomOpNode view = MakeCustomOpNode(ctx.graph(), ctx.index());
  const size_t n = view.outputs.size();
  Status s = CallCustomOp([&] { return a->op->shape(&view); });
  if (!s.ok()) return Status(s.code(), ctx.graph().NodeLabel(ctx.index()) + ": shape function: " + s.message());
  if (view.outputs.size() != n) {
    return ctx.Err("shape function left " + std::to_string(view.outputs.size()) + " outputs, the node has " +
                   std::to_string(n));
  }
  for (size_t i = 0; i < n; ++i) {
    const CustomTensorType& o = view.outputs[i];
    const DataType type = FromElementType(o.type);
    if (type == DataType::kUnknown) return ctx.Err("shape function set no type for output " + std::to_string(i));
    Shape shape(o.shape.begin(), o.shape.end());
    if (!ShapeIsValid(shape)) {
      return ctx.Err("shape function gave output " + std::to_string(i) + " the invalid shape " + ShapeToString(shape));
    }
    ctx.Set(i, std::move(shape), type);
  }
  return OkStatus();
}

}  // namespace gld::shapes
