// Shape rules of QUANTIZE and DEQUANTIZE: the input's shape, the output type
// the file stores (int8 when none) or float32.
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Quantize(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  ctx.Set(0, ctx.InShape(0), ctx.StoredType(0, DataType::kInt8));
  return OkStatus();
}

Status Dequantize(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  ctx.Set(0, ctx.InShape(0), DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes
