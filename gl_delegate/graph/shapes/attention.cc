// Shape rule of GLD_SCALED_DOT_PRODUCT_ATTENTION: q [B, T, N, H], k and v
// [B, S, K, H] with K dividing N, an optional mask that broadcasts to
// [B, N, T, S] (rank <= 4); the output is q's shape.
#include <string>

#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Attention(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 4));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  for (size_t i = 0; i < 3; ++i) {
    GLD_RETURN_IF_ERROR(ctx.Rank(i, 4));
    if (ctx.In(i).type != DataType::kFloat32) return ctx.Err(ctx.Name(i) + " must be float32");
  }
  const Shape& q = ctx.InShape(0);
  const Shape& k = ctx.InShape(1);
  const Shape& v = ctx.InShape(2);
  if (k != v || k[0] != q[0] || k[3] != q[3] || k[2] < 1 || q[2] % k[2] != 0) {
    return ctx.Err("q " + ShapeToString(q) + ", k " + ShapeToString(k) + " and v " + ShapeToString(v) +
                   " are not [B, T, N, H], [B, S, K, H] twice with K dividing N");
  }
  if (ctx.Has(3)) {
    const Shape& m = ctx.InShape(3);
    const Shape full = {q[0], q[2], q[1], k[1]};
    bool ok = ctx.In(3).type == DataType::kFloat32 && m.size() <= 4;
    for (size_t d = 0; ok && d < m.size(); ++d) {
      const int64_t want = full[4 - m.size() + d];
      ok = m[d] == want || m[d] == 1;
    }
    if (!ok) return ctx.Err("mask " + ShapeToString(m) + " does not broadcast to " + ShapeToString(full));
  }
  ctx.Set(0, q, DataType::kFloat32);
  return OkStatus();
}

}  // namespace gld::shapes
