// Shape rule of BATCH_MATMUL: [..., M, N], batch dimensions broadcast.
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status BatchMatMul(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  bool adj_x = false, adj_y = false;
  if (const auto* a = std::get_if<BatchMatMulAttributes>(&ctx.node().attributes)) {
    adj_x = a->adj_x;
    adj_y = a->adj_y;
  }
  const Shape& x = ctx.InShape(0);
  const Shape& y = ctx.InShape(1);
  if (x.size() < 2 || y.size() < 2) {
    return ctx.Err("inputs must have rank >= 2, got " + ShapeToString(x) + " and " + ShapeToString(y));
  }
  const int32_t m = adj_x ? x[x.size() - 1] : x[x.size() - 2];
  const int32_t kx = adj_x ? x[x.size() - 2] : x[x.size() - 1];
  const int32_t ky = adj_y ? y[y.size() - 1] : y[y.size() - 2];
  const int32_t n = adj_y ? y[y.size() - 2] : y[y.size() - 1];
  if (kx != ky) {
    return ctx.Err("inner dimensions differ: " + ShapeToString(x) + (adj_x ? " (adj_x)" : "") + " x " +
                   ShapeToString(y) + (adj_y ? " (adj_y)" : ""));
  }
  Shape bx(x.begin(), x.end() - 2), by(y.begin(), y.end() - 2), batch;
  if (!BroadcastShapes(bx, by, &batch)) {
    return ctx.Err("batch dimensions of " + ShapeToString(x) + " and " + ShapeToString(y) + " do not broadcast");
  }
  batch.push_back(m);
  batch.push_back(n);
  ctx.Set(0, batch, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
