// Elementwise ops (glsl/elementwise.comp): the elementwise table's rows with
// GLSL (gl/codegen/elementwise_table.h), unary, or binary with broadcasting;
// and their steps in fused epilogues. SELECT / SELECT_V2 (select.comp)
// broadcast their three operands the same way, BROADCAST_TO its one.
#include <string>
#include <vector>

#include "gl/codegen/elementwise_table.h"
#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"

namespace gld::gl {

namespace {

// The node's elementwise table row on the GPU; nullptr when it has none.
const ElementwiseGlRow* LookUp(const Node& node) {
  const auto* gelu = std::get_if<GeluAttributes>(&node.attributes);
  return FindElementwiseGlRow(node.op, gelu != nullptr && gelu->approximate);
}

// CAST's row: float32, bool or int32 in, float32 or bool out, or float32 or
// bool to int32 (trunc: the float an int32 is held as); nullptr for other
// types.
const ElementwiseGlRow* CastRow(OpBuildContext& ctx) {
  const Tensor* in = ctx.input(0);
  const int out = ctx.output_index(0);
  if (in == nullptr || out < 0) return nullptr;
  const DataType to = ctx.graph().tensors[static_cast<size_t>(out)].type;
  const bool from_ok = in->type == DataType::kFloat32 || in->type == DataType::kBool || in->type == DataType::kInt32;
  const bool to_int = to == DataType::kInt32 && in->type != DataType::kInt32;
  if (!from_ok || (to != DataType::kFloat32 && to != DataType::kBool && !to_int)) return nullptr;
  const char* code = to == DataType::kBool ? "OP_CAST_TO_BOOL" : to_int ? "OP_CAST_TO_INT" : "OP_CAST";
  for (const ElementwiseGlRow& r : ElementwiseGlRows()) {
    if (r.op == OpType::kCast && std::string(r.code) == code) return &r;
  }
  return nullptr;
}

// Sets the shader's view of operand `input` broadcast to the output.
Status BindOperand(OpBuildContext& ctx, size_t input, const char* shape_name,
                   const char* map_name, Dispatch& d) {
  const Tensor* t = ctx.input(input);
  const Tensor& out = ctx.graph().tensors[static_cast<size_t>(ctx.output_index(0))];
  GLD_ASSIGN_OR_RETURN(Bhwc stored, ctx.InputShape(input));
  std::array<int, 3> map;
  std::string why;
  if (!MakeBroadcastMap(t->shape, out.shape, &map, &why)) {
    return ctx.Invalid("input " + std::to_string(input) + " '" + t->name + "': " + why);
  }
  d.IVec4(shape_name, stored);
  d.IVec4(map_name, map[0], map[1], map[2], 0);
  d.Bind(static_cast<uint32_t>(1 + input), DispatchBufferRef{DispatchBufferRef::kTensor, ctx.input_index(input)});
  return OkStatus();
}

}  // namespace

Status BuildElementwise(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const Node& node = ctx.node();
  const ElementwiseGlRow* op = node.op == OpType::kCast ? CastRow(ctx) : LookUp(node);
  if (op == nullptr && node.op == OpType::kCast) {
    return ctx.Unsupported("the GPU path casts float32, bool or int32 to float32 or bool, and float32 or bool to int32");
  }
  if (op == nullptr) return UnimplementedError(std::string("op ") + ctx.op_name() + " has no GL kernel");
  const size_t want_inputs = op->binary ? 2 : 1;
  if (ctx.num_inputs() < want_inputs || ctx.num_outputs() < 1) {
    return ctx.Invalid("expects " + std::to_string(want_inputs) + " input(s) and 1 output, has " +
                       std::to_string(ctx.num_inputs()) + " and " + std::to_string(ctx.num_outputs()));
  }
  GLD_ASSIGN_OR_RETURN(Bhwc out_shape, ctx.OutputShape(0));
  Activation activation = Activation::kNone;
  if (const auto* a = std::get_if<BinaryAttributes>(&node.attributes)) activation = a->activation;
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(activation, ctx.op_name()));

  Dispatch d;
  d.shader.template_name = "elementwise.comp";
  d.shader.Define("OP", op->code).Define("BINARY", op->binary ? 1 : 0).Define("ACTIVATION", act);
  d.shader.Library("elementwise_ops.comp").Library(std::string(kElementwiseTableLibrary));
  d.Bind(0, DispatchBufferRef{DispatchBufferRef::kTensor, ctx.output_index(0)});
  d.IVec4("u_out", out_shape);
  GLD_RETURN_IF_ERROR(BindOperand(ctx, 0, "u_in0", "u_in0_map", d));
  if (op->binary) {
    GLD_RETURN_IF_ERROR(BindOperand(ctx, 1, "u_in1", "u_in1_map", d));
  } else {
    // Unary ops keep the shape: a broadcasting input would be a malformed node
    // (BindOperand checked the input's type and shape).
    GLD_ASSIGN_OR_RETURN(Bhwc in_shape, ToBhwc(ShapeOf(ctx, ctx.input_index(0))));
    if (in_shape.elements() != out_shape.elements()) {
      return ctx.Invalid("input " + in_shape.ToString() + " and output " + out_shape.ToString() +
                         " differ in size");
    }
  }
  float alpha = 0.0f;
  if (node.op == OpType::kLeakyRelu) {
    const auto* a = std::get_if<LeakyReluAttributes>(&node.attributes);
    if (a == nullptr) return ctx.Invalid("missing LeakyReluAttributes");
    alpha = a->alpha;
  }
  d.Vec4("u_params", alpha, 0, 0, 0);
  d.GridOver(out_shape);
  out->push_back(std::move(d));
  return OkStatus();
}

// BROADCAST_TO: elementwise.comp's identity (CAST's row) over the output,
// reading its input through the broadcast map; the shape input is not read
// (the output's shape is known when the segment is built).
Status BuildBroadcastTo(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 1, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc out_shape, ctx.OutputShape(0));
  const Tensor* x = ctx.input(0);
  if (x == nullptr || x->type != ctx.graph().tensors[static_cast<size_t>(ctx.output_index(0))].type) {
    return ctx.Invalid("input and output types differ");
  }
  const ElementwiseGlRow* identity = nullptr;
  for (const ElementwiseGlRow& r : ElementwiseGlRows()) {
    if (r.op == OpType::kCast && std::string(r.code) == "OP_CAST") identity = &r;
  }
  if (identity == nullptr) return ctx.Unsupported("no identity row in the elementwise table");
  Dispatch d;
  d.shader.template_name = "elementwise.comp";
  d.shader.Define("OP", identity->code).Define("BINARY", 0).Define("ACTIVATION", "ACT_NONE");
  d.shader.Library("elementwise_ops.comp").Library(std::string(kElementwiseTableLibrary));
  d.Bind(0, DispatchBufferRef{DispatchBufferRef::kTensor, ctx.output_index(0)});
  d.IVec4("u_out", out_shape);
  GLD_RETURN_IF_ERROR(BindOperand(ctx, 0, "u_in0", "u_in0_map", d));
  d.Vec4("u_params", 0, 0, 0, 0);
  d.GridOver(out_shape);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildSelect(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  GLD_RETURN_IF_ERROR(NeedIo(ctx, 3, 1));
  GLD_ASSIGN_OR_RETURN(Bhwc out_shape, ctx.OutputShape(0));
  const Tensor* cond = ctx.input(0);
  const Tensor* x = ctx.input(1);
  if (cond == nullptr || x == nullptr) return ctx.Invalid("condition or x missing");
  if (ctx.node().op == OpType::kSelect && cond->shape != x->shape) {
    return ctx.Unsupported("condition " + ShapeToString(cond->shape) + " picks whole rows of x " +
                           ShapeToString(x->shape) + " (the GPU path takes a condition of x's shape)");
  }
  Dispatch d;
  d.shader.template_name = "select.comp";
  d.shader.Library("elementwise_ops.comp");
  d.Bind(0, DispatchBufferRef{DispatchBufferRef::kTensor, ctx.output_index(0)});
  d.IVec4("u_out", out_shape);
  GLD_RETURN_IF_ERROR(BindOperand(ctx, 0, "u_in0", "u_in0_map", d));
  GLD_RETURN_IF_ERROR(BindOperand(ctx, 1, "u_in1", "u_in1_map", d));
  GLD_RETURN_IF_ERROR(BindOperand(ctx, 2, "u_in2", "u_in2_map", d));
  d.GridOver(out_shape);
  out->push_back(std::move(d));
  return OkStatus();
}

bool IsEpilogueOp(const Node& node) { return LookUp(node) != nullptr; }

StatusOr<EpilogueOp> DescribeEpilogueOp(const Graph& graph, size_t node, int fused, Precision precision) {
  OpBuildContext ctx(graph, node, precision, /*dry_run=*/true);
  const Node& n = ctx.node();
  const ElementwiseGlRow* op = LookUp(n);
  if (op == nullptr) return UnimplementedError(std::string(ctx.op_name()) + " is not elementwise");
  const int out = ctx.output_index(0);
  if (n.outputs.size() != 1 || out < 0 || fused < 0 || static_cast<size_t>(fused) >= graph.tensors.size()) {
    return ctx.Unsupported("not a single-output node on a valid tensor");
  }
  const Tensor& o = graph.tensors[static_cast<size_t>(out)];
  const Tensor& f = graph.tensors[static_cast<size_t>(fused)];
  if (o.shape != f.shape || o.type != f.type || o.type != DataType::kFloat32) {
    if (o.shape != f.shape) {
      return ctx.Unsupported("output " + ShapeToString(o.shape) + " is not the fused input's shape " +
                             ShapeToString(f.shape));
    }
    return ctx.Unsupported("output " + ShapeToString(o.shape) + " " + DataTypeName(o.type) +
                           " is not the fused input's shape and type " + ShapeToString(f.shape) + " " +
                           DataTypeName(f.type) + " (an epilogue keeps float32 values)");
  }
  EpilogueOp e;
  e.op = op->code;
  Activation activation = Activation::kNone;
  if (const auto* a = std::get_if<BinaryAttributes>(&n.attributes)) activation = a->activation;
  GLD_ASSIGN_OR_RETURN(e.act, ActivationDefine(activation, ctx.op_name()));
  if (n.op == OpType::kLeakyRelu) {
    const auto* a = std::get_if<LeakyReluAttributes>(&n.attributes);
    if (a == nullptr) return ctx.Invalid("missing LeakyReluAttributes");
    e.params[0] = a->alpha;
  }
  if (!op->binary) {
    if (ctx.input_index(0) != fused) return ctx.Unsupported("the fused tensor is not the input");
    return e;
  }
  const int in0 = ctx.input_index(0), in1 = ctx.input_index(1);
  if (in0 == fused && in1 == fused) return ctx.Unsupported("the fused tensor is both operands");
  if (in0 != fused && in1 != fused) return ctx.Unsupported("the fused tensor is not an operand");
  if (n.op == OpType::kPrelu && in0 != fused) return ctx.Unsupported("the fused tensor is PRELU's alpha");
  e.operand_first = in1 == fused;
  const size_t other = e.operand_first ? 0 : 1;
  e.operand = ctx.input_index(other);
  GLD_ASSIGN_OR_RETURN(e.operand_shape, ctx.InputShape(other));
  std::string why;
  if (!MakeBroadcastMap(graph.tensors[static_cast<size_t>(e.operand)].shape, o.shape, &e.map, &why)) {
    return ctx.Unsupported(why);
  }
  return e;
}

}  // namespace gld::gl
