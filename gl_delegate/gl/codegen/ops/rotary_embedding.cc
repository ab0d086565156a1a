// GLD_ROTARY_EMBEDDING (rotary_embedding.comp): one dispatch over the
// output, one invocation per vec4, reading x's partner lanes and cos / sin
// through the broadcast map of the elementwise templates.
#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"
#include "graph/shape_inference.h"

namespace gld::gl {

Status BuildRotaryEmbedding(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc x, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc table, ctx.InputShape(1));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  const Shape& x_shape = ShapeOf(ctx, ctx.input_index(0));
  const Shape& cos_shape = ShapeOf(ctx, ctx.input_index(1));
  std::string why = RotaryOperandsMismatch(x_shape, cos_shape, ShapeOf(ctx, ctx.input_index(2)));
  if (!why.empty()) return ctx.Invalid(why);
  if (o != x) return ctx.Invalid("output " + o.ToString() + " is not x's shape " + x.ToString());
  Shape half = x_shape;
  half.back() /= 2;
  std::array<int, 3> map;
  if (!MakeBroadcastMap(cos_shape, half, &map, &why)) return ctx.Invalid("cos and sin: " + why);
  Dispatch d;
  d.shader.template_name = "rotary_embedding.comp";
  d.shader.Library("elementwise_ops.comp");
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, {DispatchBufferRef::kTensor, ctx.input_index(1)})
      .Bind(3, {DispatchBufferRef::kTensor, ctx.input_index(2)});
  d.IVec4("u_out", o).IVec4("u_table", table).IVec4("u_table_map", map[0], map[1], map[2], 0);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
