// Convolutions: conv2d.comp, grouped_conv.comp (CONV_2D with groups),
// depthwise_conv.comp, transpose_conv.comp
// (TRANSPOSE_CONV and MediaPipe's Convolution2DTransposeBias). Weights and
// biases must be constants; they are repacked on the host once, when the
// segment is built.
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "gl/codegen/ops/op_util.h"
#include "graph/conv_geometry.h"
#include "graph/shape_inference.h"

namespace gld::gl {

namespace {

// Checks a constant weights tensor of rank 4 and returns its dims.
Status WeightsDims(OpBuildContext& ctx, size_t input, std::array<int32_t, 4>* dims) {
  const Tensor* w = ctx.input(input);
  if (w == nullptr) return ctx.Invalid("weights (input " + std::to_string(input) + ") missing");
  if (!w->is_constant) {
    return ctx.Unsupported("weights '" + w->name + "' are not constant (the GPU path repacks them once)");
  }
  if (w->shape.size() != 4) {
    return ctx.Invalid("weights '" + w->name + "' have shape " + ShapeToString(w->shape) + ", expected 4-D");
  }
  for (int i = 0; i < 4; ++i) {
    if (w->shape[static_cast<size_t>(i)] <= 0) {
      return ctx.Invalid("weights '" + w->name + "' have shape " + ShapeToString(w->shape));
    }
    (*dims)[static_cast<size_t>(i)] = w->shape[static_cast<size_t>(i)];
  }
  return OkStatus();
}

// A failed check of the window geometry (graph/conv_geometry.h) as Invalid.
Status Refused(OpBuildContext& ctx, const Status& s) { return s.ok() ? s : ctx.Invalid(s.message()); }

// The node's window geometry as the shape rule made it (`made`: its
// status), and the output it gives against the output's height and width.
Status CheckGeometry(OpBuildContext& ctx, const Status& made, const ConvGeometry& g, const Bhwc& o) {
  GLD_RETURN_IF_ERROR(Refused(ctx, made));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "height", o.h, g.h().out));
  return CheckOutputSize(ctx, "width", o.w, g.w().out);
}

// The buffers and window uniforms conv2d.comp, grouped_conv.comp and the
// depthwise shader share (Attrs: the node's Conv2d or DepthwiseConv2d
// attributes).
template <typename Attrs>
void BindConvWindow(const OpBuildContext& ctx, const Attrs& attrs, const ConvGeometry& g, const Bhwc& in,
                    const Bhwc& o, const std::array<int32_t, 4>& w, const DispatchBufferRef& weights,
                    const DispatchBufferRef& bias, Dispatch& d) {
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(0)})
      .Bind(2, weights)
      .Bind(3, bias);
  d.IVec4("u_out", o).IVec4("u_in", in);
  d.IVec2("u_kernel", w[1], w[2]);
  d.IVec2("u_stride", attrs.stride_h, attrs.stride_w);
  d.IVec2("u_dilation", attrs.dilation_h, attrs.dilation_w);
  d.IVec2("u_padding", g.h().pad_before, g.w().pad_before);
}

// CONV_2D with groups = in.c / w[3] > 1 (grouped_conv.comp); the node's
// checks are done.
Status GroupedConv2d(OpBuildContext& ctx, const Conv2dAttributes& attrs, const ConvGeometry& g, const Bhwc& in,
                     const Bhwc& o, const std::array<int32_t, 4>& w, const std::string& act,
                     std::vector<Dispatch>* out) {
  const int32_t group_in = w[3], group_out = w[0] / (in.c / w[3]);
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, 2, w[0]));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, w] {
    return RepackOhwiWeights(*ctx.ConstantFloats(1), w[0], w[1], w[2], w[3], 1);
  });
  Dispatch d;
  d.shader.template_name = "grouped_conv.comp";
  d.shader.Define("ALIGNED", group_in % 4 == 0 && group_out % 4 == 0 ? 1 : 0).Define("ACTIVATION", act);
  BindConvWindow(ctx, attrs, g, in, o, w, weights, bias, d);
  d.IVec2("u_group", group_in, group_out);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace

Status BuildConv2d(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<Conv2dAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing Conv2dAttributes");
  if (ctx.num_inputs() < 2 || ctx.num_outputs() < 1) return ctx.Invalid("expects input, weights[, bias] and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  std::array<int32_t, 4> w;  // O, KH, KW, I
  GLD_RETURN_IF_ERROR(WeightsDims(ctx, 1, &w));
  if (ctx.input(0)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  if (in.c % w[3] != 0 || w[0] % (in.c / w[3]) != 0) {
    return ctx.Invalid("weights " + ShapeToString(ctx.input(1)->shape) + " do not fit input channels " +
                       std::to_string(in.c) + " (groups = input channels / weights' input channels)");
  }
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", o.c, w[0]));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "batch", o.b, in.b));
  ConvGeometry g;
  const Status made = MakeConvGeometry(*attrs, ctx.input(0)->shape, ctx.input(1)->shape, &g);
  GLD_RETURN_IF_ERROR(CheckGeometry(ctx, made, g, o));
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  GLD_RETURN_IF_ERROR(ctx.ConstantFloats(1).status());
  if (w[3] != in.c) return GroupedConv2d(ctx, *attrs, g, in, o, w, act, out);
  const Blocking k = BlockingFor(w[0]);
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, 2, w[0], k.padded_slices));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, w, k] {
    return RepackOhwiWeights(*ctx.ConstantFloats(1), w[0], w[1], w[2], w[3], k.block);
  });
  // The 1x1 path reads input pixel (y * stride, x * stride) with no bounds
  // check, so it needs a window that never leaves the input: no merged PAD
  // (explicit_padding) before or after.
  const bool one_by_one = w[1] == 1 && w[2] == 1 && g.h().pad_before == 0 && g.w().pad_before == 0 &&
                          (o.h - 1) * attrs->stride_h < in.h && (o.w - 1) * attrs->stride_w < in.w;
  Dispatch d;
  d.shader.template_name = "conv2d.comp";
  d.shader.Define("KERNEL_1X1", one_by_one ? 1 : 0).Define("BLOCK", k.block).Define("ACTIVATION", act);
  BindConvWindow(ctx, *attrs, g, in, o, w, weights, bias, d);
  GridOverGroups(d, o, k);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildDepthwiseConv2d(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<DepthwiseConv2dAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing DepthwiseConv2dAttributes");
  if (ctx.num_inputs() < 2 || ctx.num_outputs() < 1) return ctx.Invalid("expects input, weights[, bias] and 1 output");
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(0));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  std::array<int32_t, 4> w;  // 1, KH, KW, O
  GLD_RETURN_IF_ERROR(WeightsDims(ctx, 1, &w));
  if (ctx.input(0)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  if (w[0] != 1 || w[3] % in.c != 0) {
    return ctx.Invalid("weights " + ShapeToString(ctx.input(1)->shape) + " do not fit input channels " +
                       std::to_string(in.c));
  }
  const int32_t multiplier = w[3] / in.c;
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", o.c, w[3]));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "batch", o.b, in.b));
  ConvGeometry g;
  const Status made = MakeConvGeometry(*attrs, ctx.input(0)->shape, ctx.input(1)->shape, &g);
  GLD_RETURN_IF_ERROR(CheckGeometry(ctx, made, g, o));
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  GLD_RETURN_IF_ERROR(ctx.ConstantFloats(1).status());
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, 2, w[3]));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, w] {
    std::vector<float> src = *ctx.ConstantFloats(1);
    const int32_t taps = w[1] * w[2], slices = (w[3] + 3) / 4;
    std::vector<float> r(static_cast<size_t>(taps) * slices * 4, 0.0f);
    for (int32_t t = 0; t < taps; ++t)
      for (int32_t c = 0; c < w[3]; ++c) {
        r[(static_cast<size_t>(t) * slices + c / 4) * 4 + c % 4] = src[static_cast<size_t>(t) * w[3] + c];
      }
    return r;
  });
  Dispatch d;
  d.shader.template_name = "depthwise_conv.comp";
  d.shader.Define("MULTIPLIER_ONE", multiplier == 1 ? 1 : 0).Define("ACTIVATION", act);
  BindConvWindow(ctx, *attrs, g, in, o, w, weights, bias, d);
  d.Int("u_multiplier", multiplier);
  d.GridOver(o);
  out->push_back(std::move(d));
  return OkStatus();
}

Status BuildTransposeConv(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  const auto* attrs = std::get_if<TransposeConvAttributes>(&ctx.node().attributes);
  if (attrs == nullptr) return ctx.Invalid("missing TransposeConvAttributes");
  const bool mediapipe = ctx.node().op == OpType::kConvolution2DTransposeBias;
  // TRANSPOSE_CONV: (output_shape, weights, input[, bias]);
  // Convolution2DTransposeBias: (input, weights, bias).
  const size_t input = mediapipe ? 0 : 2, bias_input = mediapipe ? 2 : 3;
  if (ctx.num_inputs() < (mediapipe ? 2u : 3u) || ctx.num_outputs() < 1) {
    return ctx.Invalid("too few inputs or outputs");
  }
  GLD_ASSIGN_OR_RETURN(Bhwc in, ctx.InputShape(input));
  GLD_ASSIGN_OR_RETURN(Bhwc o, ctx.OutputShape(0));
  std::array<int32_t, 4> w;  // O, KH, KW, I
  GLD_RETURN_IF_ERROR(WeightsDims(ctx, 1, &w));
  if (ctx.input(input)->shape.size() != 4) return ctx.Unsupported("input is not 4-D");
  if (w[3] != in.c) {
    return ctx.Invalid("weights " + ShapeToString(ctx.input(1)->shape) + " do not fit input channels " +
                       std::to_string(in.c));
  }
  GLD_RETURN_IF_ERROR(Refused(ctx, CheckConvSteps(*attrs)));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "channels", o.c, w[0]));
  GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "batch", o.b, in.b));
  GLD_ASSIGN_OR_RETURN(std::string act, ActivationDefine(attrs->activation, ctx.op_name()));
  ConvGeometry g;
  if (mediapipe) {
    GLD_RETURN_IF_ERROR(
        Refused(ctx, MakeTransposeConvBiasGeometry(*attrs, ctx.input(input)->shape, ctx.input(1)->shape, &g)));
    GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "height", o.h, g.h().in));
    GLD_RETURN_IF_ERROR(CheckOutputSize(ctx, "width", o.w, g.w().in));
  } else {
    g = TransposeConvGeometry(*attrs, ctx.input(input)->shape, ctx.input(1)->shape, {o.b, o.h, o.w, o.c});
  }
  GLD_RETURN_IF_ERROR(ctx.ConstantFloats(1).status());
  const Blocking k = BlockingFor(w[0]);
  GLD_ASSIGN_OR_RETURN(DispatchBufferRef bias, BiasBuffer(ctx, bias_input, w[0], k.padded_slices));
  DispatchBufferRef weights = ctx.AddConstant("weights", [&ctx, w, k] {
    return RepackOhwiWeights(*ctx.ConstantFloats(1), w[0], w[1], w[2], w[3], k.block);
  });
  Dispatch d;
  d.shader.template_name = "transpose_conv.comp";
  d.shader.Define("BLOCK", k.block).Define("ACTIVATION", act);
  d.Bind(0, {DispatchBufferRef::kTensor, ctx.output_index(0)})
      .Bind(1, {DispatchBufferRef::kTensor, ctx.input_index(input)})
      .Bind(2, weights)
      .Bind(3, bias);
  d.IVec4("u_out", o).IVec4("u_in", in);
  d.IVec2("u_kernel", w[1], w[2]);
  d.IVec2("u_stride", attrs->stride_h, attrs->stride_w);
  d.IVec2("u_padding", g.h().pad_before, g.w().pad_before);
  GridOverGroups(d, o, k);
  out->push_back(std::move(d));
  return OkStatus();
}

}  // namespace gld::gl
