// Elementwise ops (glsl/elementwise.comp): unary, binary with broadcasting,
// and the quantize / dequantize pair.
#include <cmath>
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
  const ElementwiseGlRow* op = LookUp(node);
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
    // Unary ops keep the shape: a broadcasting input would be a malformed node.
    GLD_ASSIGN_OR_RETURN(Bhwc in_shape, ctx.InputShape(0));
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
    return ctx.Unsupported("output " + ShapeToString(o.shape) + " is not the fused input's shape " +
                           ShapeToString(f.shape));
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

namespace {

bool IsQuantizedType(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUInt8 || t == DataType::kInt16;
}

// One scale and zero point of a tensor; per-channel quantization is refused.
Status PerTensorParams(OpBuildContext& ctx, const Tensor& t, float* scale, float* zero_point) {
  if (t.quant.scale.size() != 1 || t.quant.zero_point.size() > 1) {
    return ctx.Unsupported("tensor '" + t.name + "' has " + std::to_string(t.quant.scale.size()) +
                           " scales; the GPU path takes per-tensor quantization only");
  }
  *scale = t.quant.scale[0];
  *zero_point = t.quant.zero_point.empty() ? 0.0f : static_cast<float>(t.quant.zero_point[0]);
  if (!(*scale > 0.0f) || !std::isfinite(*scale)) {
    return ctx.Invalid("tensor '" + t.name + "' has scale " + std::to_string(*scale));
  }
  return OkStatus();
}

}  // namespace

Status BuildQuantize(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const bool quantize = ctx.node().op == OpType::kQuantize;
  if (ctx.num_inputs() < 1 || ctx.num_outputs() < 1) return ctx.Invalid("expects 1 input and 1 output");
  const int in_index = ctx.input_index(0), out_index = ctx.output_index(0);
  if (in_index < 0 || out_index < 0) return ctx.Invalid("missing input or output");
  const Tensor& in = ctx.graph().tensors[static_cast<size_t>(in_index)];
  const Tensor& o = ctx.graph().tensors[static_cast<size_t>(out_index)];
  GLD_ASSIGN_OR_RETURN(Bhwc in_shape, ctx.GpuShape(in_index, /*allow_quantized=*/true));
  GLD_ASSIGN_OR_RETURN(Bhwc out_shape, ctx.GpuShape(out_index, /*allow_quantized=*/true));
  if (in_shape.elements() != out_shape.elements()) return ctx.Invalid("input and output differ in size");
  if (in_shape != out_shape) {
    return ctx.Unsupported("input " + in_shape.ToString() + " and output " + out_shape.ToString() +
                           " differ in shape");
  }
  const bool in_int = IsQuantizedType(in.type);
  float in_scale = 1, in_zp = 0, out_scale = 1, out_zp = 0, qmin = 0, qmax = 0;
  if (in_int) GLD_RETURN_IF_ERROR(PerTensorParams(ctx, in, &in_scale, &in_zp));
  const char* output = "OUT_REAL";
  if (quantize) {
    GLD_RETURN_IF_ERROR(PerTensorParams(ctx, o, &out_scale, &out_zp));
    const DataType grid = QuantizedGridType(o.quant, o.type);  // the CPU kernel's rule
    if (o.type == DataType::kFloat32) {
      output = "OUT_FAKE";  // a float view of quantized values
    } else if (IsQuantizedType(o.type)) {
      output = "OUT_INTEGER";
    } else {
      return ctx.Unsupported(std::string(DataTypeName(o.type)) + " output '" + o.name + "'");
    }
    int64_t lo = 0, hi = 0;
    if (!IsQuantizedType(grid) || !IntegerTypeRange(grid, &lo, &hi)) {
      return ctx.Unsupported(std::string("quantization grid ") + DataTypeName(grid) + " of '" + o.name + "'");
    }
    qmin = static_cast<float>(lo);
    qmax = static_cast<float>(hi);
  } else if (o.type != DataType::kFloat32) {
    return ctx.Unsupported(std::string(DataTypeName(o.type)) + " output '" + o.name + "' (expects float32)");
  }
  Dispatch d;
  d.shader.template_name = "quantize.comp";
  d.shader.Define("DEQUANTIZE_INPUT", in_int ? 1 : 0).Define("OUTPUT", output);
  d.Bind(0, DispatchBufferRef{DispatchBufferRef::kTensor, out_index});
  d.Bind(1, DispatchBufferRef{DispatchBufferRef::kTensor, in_index});
  d.IVec4("u_shape", out_shape);
  Uniform in_q;
  in_q.name = "u_in_q";
  in_q.type = Uniform::kVec2;
  in_q.f = {in_scale, in_zp, 0, 0};
  d.uniforms.push_back(in_q);
  d.Vec4("u_out_q", out_scale, out_zp, qmin, qmax);
  d.GridOver(out_shape);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
