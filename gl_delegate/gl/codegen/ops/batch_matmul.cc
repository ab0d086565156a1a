// BATCH_MATMUL (batch_matmul.comp): both operands are GPU tensors
// (activations or constants), adj_x / adj_y read them transposed in place,
// and batch dimensions broadcast numpy-style.
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

// How operand `in` of rank ra is read at an output position: for each of its
// stored B, H, W axes, the output BHWC axis (0..2) that indexes it, -1 where
// it is 1 (inserted or broadcast), or 3 where it is the operand's own matrix
// row (its dimension ra - 2).
StatusOr<std::array<int, 4>> OperandMap(OpBuildContext& ctx, size_t in, const Shape& out) {
  const Shape& s = ShapeOf(ctx, ctx.input_index(in));
  const int ra = static_cast<int>(s.size()), ro = static_cast<int>(out.size());
  std::array<int, 4> map = {-1, -1, -1, 0};
  const std::array<int, 4> dims = DimOfBhwcAxis(ra);
  for (int axis = 0; axis < 3; ++axis) {
    const int d = dims[static_cast<size_t>(axis)];
    if (d < 0) continue;
    if (d == ra - 2) {
      map[static_cast<size_t>(axis)] = 3;
      continue;
    }
    const int od = d + (ro - ra);
    const int32_t size = s[static_cast<size_t>(d)];
    if (od < 0 || (size != 1 && size != out[static_cast<size_t>(od)])) {
      return ctx.Invalid("input " + std::to_string(in) + " " + ShapeToString(s) +
                         " does not broadcast to output " + ShapeToString(out));
    }
    if (size != 1) map[static_cast<size_t>(axis)] = BhwcAxis(ro, od);
  }
  return map;
}

}  // namespace

Status BuildBatchMatMul(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 2, 1));
  bool adj_x = false, adj_y = false;
  if (const auto* a = std::get_if<BatchMatMulAttributes>(&ctx.node().attributes)) {
    adj_x = a->adj_x;
    adj_y = a->adj_y;
  }
  GLD_ASSIGN_OR_RETURN(Bhwc x, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc y, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& xs = ShapeOf(ctx, ctx.input_index(0));
  const Shape& ys = ShapeOf(ctx, ctx.input_index(1));
  const Shape& os = ShapeOf(ctx, ctx.output_index(0));
  if (xs.size() < 2 || ys.size() < 2 || os.size() < 2) {
    return ctx.Invalid("operands " + ShapeToString(xs) + " and " + ShapeToString(ys) + " need rank >= 2");
  }
  auto dim = [](const Shape& s, size_t from_end) { return s[s.size() - from_end]; };
  const int32_t m = adj_x ? dim(xs, 1) : dim(xs, 2), k = adj_x ? dim(xs, 2) : dim(xs, 1);
  const int32_t ky = adj_y ? dim(ys, 1) : dim(ys, 2), n = adj_y ? dim(ys, 2) : dim(ys, 1);
  if (k != ky || dim(os, 2) != m || dim(os, 1) != n) {
    return ctx.Invalid(ShapeToString(xs) + " x " + ShapeToString(ys) + " -> " + ShapeToString(os) +
                       " is not a matrix product");
  }
  GLD_ASSIGN_OR_RETURN(auto x_map, OperandMap(ctx, 0, os));
  GLD_ASSIGN_OR_RETURN(auto y_map, OperandMap(ctx, 1, os));
  const int row_axis = BhwcAxis(static_cast<int>(os.size()), static_cast<int>(os.size()) - 2);
  Dispatch d;
  d.shader.template_name = "batch_matmul.comp";
  d.shader.Define("ADJ_X", adj_x ? 1 : 0).Define("ADJ_Y", adj_y ? 1 : 0);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)});
  d.IVec4("u_out", o).IVec4("u_x", x).IVec4("u_y", y);
  d.IVec4("u_x_map", x_map).IVec4("u_y_map", y_map);
  d.IVec4("u_nk", n, k, row_axis, 0);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
