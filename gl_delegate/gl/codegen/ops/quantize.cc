// QUANTIZE and DEQUANTIZE (quantize.comp): int8 / uint8 / int16 tensors with
// one scale and zero point (int16 at fp32 precision), and QUANTIZE's float32
// "fake" output, rounded to its grid.
#include <cmath>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"

namespace gld::gl {

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
