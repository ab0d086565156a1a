// The integer kernels on XNNPACK's QC8 / QS8 / QU8 operators (see
// integer_kernels.h): CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED (QC8
// convolutions: int8 weights per output channel, a per-tensor scale repeated;
// QU8 for uint8), ADD / SUB / MUL and MEAN over the spatial axes (global
// average pooling). Each prepare creates the operator once, with the weights
// packed and the fused activation as its output range; XNNPACK requantizes
// in float (scale = input scale x weight scale / output scale, rounded to
// nearest even), as LiteRT's default kernels do.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "cpu_kernels/micro/int8_depthwise/int8_depthwise.h"
#include "cpu_kernels/micro/int8_gemm/int8_gemm.h"
#include "cpu_kernels/micro/int8_rows/int8_rows.h"
#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/ops/quantized.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

TensorQuant QuantOf(const Tensor& t) {
  TensorQuant q;
  int64_t lo = 0, hi = 0;
  if (t.quant.scale.size() != 1 || t.quant.zero_point.size() > 1 || !IntegerTypeRange(t.type, &lo, &hi)) return q;
  q.scale = t.quant.scale[0];
  const int64_t zp = t.quant.zero_point.empty() ? 0 : t.quant.zero_point[0];
  if (!(q.scale > 0.f) || !std::isfinite(q.scale) || zp < lo || zp > hi) return q;
  q.zero_point = static_cast<int32_t>(zp);
  q.valid = true;
  return q;
}

bool QuantizedActivationRange(Activation a, const Tensor& out, int32_t* lo, int32_t* hi) {
  int64_t type_lo = 0, type_hi = 0;
  const TensorQuant q = QuantOf(out);
  if (!q.valid || !IntegerTypeRange(out.type, &type_lo, &type_hi) || !IsClampActivation(a)) return false;
  const ActivationRange r = GetActivationRange(a);
  auto quantize = [&](float x) { return static_cast<int64_t>(q.zero_point) + static_cast<int64_t>(std::round(x / q.scale)); };
  int64_t l = type_lo, h = type_hi;
  if (std::isfinite(r.lo)) l = std::max(l, quantize(r.lo));
  if (std::isfinite(r.hi)) h = std::min(h, quantize(r.hi));
  if (l >= h) return false;
  *lo = static_cast<int32_t>(l);
  *hi = static_cast<int32_t>(h);
  return true;
}

bool IsSpatialMean(const Tensor& axes) {
  if (!axes.is_constant || (axes.type != DataType::kInt32 && axes.type != DataType::kInt64)) return false;
  const int64_t n = axes.num_elements();
  if (n != 2) return false;
  bool seen[4] = {false, false, false, false};
  for (int64_t i = 0; i < n; ++i) {
    int64_t a = axes.type == DataType::kInt32 ? axes.DataAs<int32_t>()[i] : axes.DataAs<int64_t>()[i];
    if (a < 0) a += 4;
    if (a < 0 || a > 3) return false;
    seen[a] = true;
  }
  return seen[1] && seen[2];
}

namespace {

// The stored integers of constant input i, as T.
template <typename T>
Status ConstantIntegers(const KernelContext& ctx, size_t i, const char* what, std::vector<T>* out) {
  const Tensor* t = InputTensor(ctx, i);
  if (t == nullptr || !StoredIntegers(*t, out)) {
    return KernelError(ctx, std::string(what) + ": the stored integers of the constant cannot be recovered");
  }
  return OkStatus();
}

// One scale per output channel: the constant's own, or its one repeated.
std::vector<float> ChannelScales(const Tensor& t, int64_t channels) {
  if (t.quant.scale.size() == 1) return std::vector<float>(static_cast<size_t>(channels), t.quant.scale[0]);
  return t.quant.scale;
}

Status KeepOperator(KernelContext& ctx, xnn_status status, xnn_operator_t op, XnnOperatorState::SetupFn setup) {
  if (!XnnMayTake(ctx)) {
    if (op != nullptr) xnn_delete_operator(op);
    return KernelUnimplemented(ctx, "the integer kernel needs XNNPACK, a state slot and a non-constant input");
  }
  KeepXnnOperator(ctx, status, op, Activation::kNone, std::move(setup));
  if (FindXnnOperator(ctx) == nullptr) {
    return KernelUnimplemented(ctx, "XNNPACK did not create or set up the integer operator (status " +
                                        std::to_string(status) + ")");
  }
  return OkStatus();
}

// The operands of an integer convolution or fully connected layer.
struct IntegerLinear {
  TensorQuant in, out;
  int32_t lo = 0, hi = 0;
  std::vector<int32_t> bias;  // empty: none
  const Tensor* filter = nullptr;
};

template <typename Attrs>
Status GetIntegerLinear(KernelContext& ctx, const Attrs& attrs, IntegerLinear* l) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  l->in = QuantOf(*InputTensor(ctx, 0));
  l->out = QuantOf(*OutputTensor(ctx, 0));
  l->filter = InputTensor(ctx, 1);
  if (!l->in.valid || !l->out.valid || !QuantizedActivationRange(attrs.activation, *OutputTensor(ctx, 0), &l->lo, &l->hi)) {
    return KernelError(ctx, "input and output need one scale and zero point each and a clamp activation");
  }
  if (OptionalInput(ctx, 2) != nullptr) GLD_RETURN_IF_ERROR(ConstantIntegers(ctx, 2, "bias", &l->bias));
  return OkStatus();
}

// An int8 layer whose every output reads one row of k input values in place
// (a 1x1 convolution with stride 1 and no padding, a fully connected layer)
// runs on the VNNI GEMM (int8_gemm.h) where the CPU has it: measured faster
// than the Debian XNNPACK's QC8 operators, whose AVX-512 kernels have no
// VNNI. True when it was kept.
StatusOr<bool> KeepInt8Gemm(KernelContext& ctx, const IntegerLinear& l, int64_t n, int64_t k,
                            const Int8Window* window = nullptr) {
  if (ctx.inputs[0]->type != DataType::kInt8 || !HasInt8Gemm() || ctx.state == nullptr || ctx.InputIsConstant(0)) {
    return false;
  }
  std::vector<int8_t> weights;
  GLD_RETURN_IF_ERROR(ConstantIntegers(ctx, 1, "filter", &weights));
  const std::vector<float> wscale = ChannelScales(*l.filter, n);
  std::vector<float> scale(static_cast<size_t>(n));
  for (size_t c = 0; c < scale.size(); ++c) scale[c] = l.in.scale * wscale[c] / l.out.scale;  // as XNNPACK
  auto packed = std::make_unique<Int8GemmWeights>();
  const int32_t* bias = l.bias.empty() ? nullptr : l.bias.data();
  const bool ok = window != nullptr ? PackInt8Conv(weights.data(), n, *window, bias, l.in.zero_point, scale.data(),
                                                   l.out.zero_point, l.lo, l.hi, packed.get())
                                    : PackInt8Gemm(weights.data(), n, k, bias, l.in.zero_point, scale.data(),
                                                   l.out.zero_point, l.lo, l.hi, packed.get());
  if (!ok) return false;
  *ctx.state = std::move(packed);
  return true;
}

// An int8 depthwise convolution runs on int8_depthwise.h's kernel where the
// CPU has VNNI (XNNPACK's QC8 operator elsewhere, and for windows of more
// than kInt8DepthwiseMaxDots dot products). True when it was kept.
StatusOr<bool> KeepInt8Depthwise(KernelContext& ctx, const IntegerLinear& l, const XnnWindow& w, const Shape& in,
                                 const Shape& out) {
  if (ctx.inputs[0]->type != DataType::kInt8 || !HasInt8Depthwise() || ctx.state == nullptr || in[3] <= 0 ||
      out[3] % in[3] != 0) {
    return false;
  }
  // Measured on every depthwise layer of the int8 networks (1 thread, one
  // layer at a time, median us, the machine shared): faster than Debian's
  // XNNPACK and the former own kernel (one VPDPWSSD a tap) on each, e.g.
  // 48x48x16 3x3: 7.3 against 24.6 (XNNPACK) and 16.9 (former); 24x24x72
  // 3x3: 11.0 / 24.1 / 22.8; 48x48x48 3x3 stride 2: 8.2 / 14.5 / 12.3;
  // 12x12x120 5x5: 9.2 / 37.5 / 21.9; 6x6x144 3x3: 1.9 / 2.8 / 3.7. With
  // multiplier 2 (a Keras SeparableConv2D / DepthwiseConv2D(depth_multiplier
  // = 2)), 20x20x16 3x3 stride 2: 26.6 us on XNNPACK, a grouped
  // convolution there.
  std::vector<int8_t> weights;
  GLD_RETURN_IF_ERROR(ConstantIntegers(ctx, 1, "filter", &weights));
  auto s = std::make_unique<Int8DepthwiseState>();
  const int64_t c = out[3];
  s->channels = c;
  s->multiplier = out[3] / in[3];
  s->padded = (c + 15) / 16 * 16;
  s->batch = in[0], s->ih = in[1], s->iw = in[2], s->oh = out[1], s->ow = out[2];
  s->kh = w.kh, s->kw = w.kw, s->sh = w.sh, s->sw = w.sw, s->dh = w.dh, s->dw = w.dw;
  s->pad_t = w.pad_t, s->pad_l = w.pad_l;
  s->input_zero_point = l.in.zero_point;
  s->output_zero_point = l.out.zero_point;
  s->lo = static_cast<float>(l.lo - l.out.zero_point);
  s->hi = static_cast<float>(l.hi - l.out.zero_point);
  if (!PackInt8Depthwise(weights.data(), l.bias.empty() ? nullptr : l.bias.data(), s.get())) return false;
  s->scale.assign(static_cast<size_t>(s->padded), 0.f);
  const std::vector<float> wscale = ChannelScales(*l.filter, c);
  for (int64_t k = 0; k < c; ++k) {
    s->scale[static_cast<size_t>(k)] = l.in.scale * wscale[static_cast<size_t>(k)] / l.out.scale;  // as XNNPACK
  }
  *ctx.state = std::move(s);
  return true;
}

// A QC8 (int8) or QU8 (uint8) convolution over NHWC with this window.
xnn_status CreateConvolution(KernelContext& ctx, const IntegerLinear& l, const XnnWindow& w, size_t groups,
                             size_t group_ic, size_t group_oc, size_t ic, size_t oc, uint32_t flags,
                             xnn_operator_t* op) {
  const int32_t* bias = l.bias.empty() ? nullptr : l.bias.data();
  auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
  if (ctx.inputs[0]->type == DataType::kInt8) {
    std::vector<int8_t> weights;
    if (!ConstantIntegers(ctx, 1, "filter", &weights).ok()) return xnn_status_invalid_parameter;
    const std::vector<float> scales = ChannelScales(*l.filter, static_cast<int64_t>(oc));
    return xnn_create_convolution2d_nhwc_qc8(
        u32(w.pad_t), u32(w.pad_r), u32(w.pad_b), u32(w.pad_l), u32(w.kh), u32(w.kw), u32(w.sh), u32(w.sw),
        u32(w.dh), u32(w.dw), static_cast<uint32_t>(groups), group_ic, group_oc, ic, oc,
        static_cast<int8_t>(l.in.zero_point), l.in.scale, scales.data(), weights.data(), bias,
        static_cast<int8_t>(l.out.zero_point), l.out.scale, static_cast<int8_t>(l.lo), static_cast<int8_t>(l.hi),
        flags, op);
  }
  std::vector<uint8_t> weights;
  if (!ConstantIntegers(ctx, 1, "filter", &weights).ok()) return xnn_status_invalid_parameter;
  const int64_t wzp = l.filter->quant.zero_point.empty() ? 0 : l.filter->quant.zero_point[0];
  return xnn_create_convolution2d_nhwc_qu8(
      u32(w.pad_t), u32(w.pad_r), u32(w.pad_b), u32(w.pad_l), u32(w.kh), u32(w.kw), u32(w.sh), u32(w.sw),
      u32(w.dh), u32(w.dw), static_cast<uint32_t>(groups), group_ic, group_oc, ic, oc,
      static_cast<uint8_t>(l.in.zero_point), l.in.scale, static_cast<uint8_t>(wzp), l.filter->quant.scale[0],
      weights.data(), bias, static_cast<uint8_t>(l.out.zero_point), l.out.scale, static_cast<uint8_t>(l.lo),
      static_cast<uint8_t>(l.hi), flags, op);
}

// Sets a convolution up over input [batch, h, w, C].
xnn_status SetupConvolution(const KernelContext& ctx, xnn_operator_t op, pthreadpool_t pool, size_t batch, size_t h,
                            size_t w) {
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (in.type == DataType::kInt8) {
    return xnn_setup_convolution2d_nhwc_qc8(op, batch, h, w, in.as<int8_t>(), out.as<int8_t>(), pool);
  }
  return xnn_setup_convolution2d_nhwc_qu8(op, batch, h, w, in.as<uint8_t>(), out.as<uint8_t>(), pool);
}

template <typename Attrs>
Status PrepareConvolution(KernelContext& ctx, bool depthwise) {
  const Attrs* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  IntegerLinear l;
  GLD_RETURN_IF_ERROR(GetIntegerLinear(ctx, *attrs, &l));
  const Shape& in = ctx.inputs[0]->shape;
  const Shape& filter = ctx.inputs[1]->shape;
  const Shape& out = ctx.outputs[0]->shape;
  if (in.size() != 4 || filter.size() != 4 || out.size() != 4) {
    return KernelError(ctx, "input, filter and output must be 4-D");
  }
  const int64_t ic = in[3], oc = out[3];
  const int64_t fic = depthwise ? 1 : filter[3];
  const int64_t groups = depthwise ? ic : (fic > 0 ? ic / fic : 0);
  const bool consistent = fic > 0 && groups > 0 && ic % fic == 0 && oc % groups == 0 && out[0] == in[0] &&
                          (depthwise ? filter[0] == 1 && filter[3] == oc : filter[0] == oc) &&
                          (l.bias.empty() || static_cast<int64_t>(l.bias.size()) == oc);
  ConvGeometry geometry;
  if (!consistent || !MakeConvGeometry(*attrs, in, filter, &geometry).ok() || !geometry.Gives(out)) {
    return KernelError(ctx, "inconsistent shapes or window: input " + ShapeToString(in) + ", filter " +
                                ShapeToString(filter) + ", output " + ShapeToString(out));
  }
  XnnWindow w = XnnWindowOf(geometry);
  if (!CompleteXnnWindow(in, out, &w)) return KernelUnimplemented(ctx, "a window XNNPACK cannot express");
  const bool pointwise = !depthwise && groups == 1 && w.kh == 1 && w.kw == 1 && w.sh == 1 && w.sw == 1 &&
                         w.pad_t == 0 && w.pad_l == 0 && w.pad_b == 0 && w.pad_r == 0;
  if (depthwise) {
    GLD_ASSIGN_OR_RETURN(const bool own, KeepInt8Depthwise(ctx, l, w, in, out));
    if (own) return OkStatus();
  }
  if (!depthwise && groups == 1) {
    // Other windows gather their rows (im2col), padding with the input's
    // zero point.
    const Int8Window window{in[0], in[1], in[2], ic, out[1], out[2], w.kh, w.kw, w.sh, w.sw, w.dh, w.dw,
                            w.pad_t, w.pad_l, static_cast<int8_t>(l.in.zero_point)};
    GLD_ASSIGN_OR_RETURN(const bool gemm,
                         KeepInt8Gemm(ctx, l, oc, w.kh * w.kw * ic, pointwise ? nullptr : &window));
    if (gemm) return OkStatus();
  }
  xnn_operator_t op = nullptr;
  const xnn_status s = CreateConvolution(ctx, l, w, static_cast<size_t>(groups), static_cast<size_t>(fic),
                                         static_cast<size_t>(oc / groups), static_cast<size_t>(ic),
                                         static_cast<size_t>(oc), depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &op);
  return KeepOperator(ctx, s, op, [](const KernelContext& c, xnn_operator_t o, pthreadpool_t p) {
    const Shape& s_in = c.inputs[0]->shape;
    return SetupConvolution(c, o, p, static_cast<size_t>(s_in[0]), static_cast<size_t>(s_in[1]),
                            static_cast<size_t>(s_in[2]));
  });
}

// ADD, SUB, MUL: XNNPACK's create and setup for int8 and for uint8.
struct BinaryOps {
  decltype(&xnn_create_add_nd_qs8) create_s8;
  decltype(&xnn_setup_add_nd_qs8) setup_s8;
  decltype(&xnn_create_add_nd_qu8) create_u8;
  decltype(&xnn_setup_add_nd_qu8) setup_u8;
};

Status PrepareBinary(KernelContext& ctx, const BinaryOps& ops) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const BinaryAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorQuant a = QuantOf(*InputTensor(ctx, 0)), b = QuantOf(*InputTensor(ctx, 1));
  const TensorQuant o = QuantOf(*OutputTensor(ctx, 0));
  int32_t lo = 0, hi = 0;
  if (!a.valid || !b.valid || !o.valid || !QuantizedActivationRange(attrs->activation, *OutputTensor(ctx, 0), &lo, &hi)) {
    return KernelError(ctx, "inputs and output need one scale and zero point each and a clamp activation");
  }
  xnn_operator_t op = nullptr;
  xnn_status s;
  if (ctx.inputs[0]->type == DataType::kInt8) {
    s = ops.create_s8(static_cast<int8_t>(a.zero_point), a.scale, static_cast<int8_t>(b.zero_point), b.scale,
                      static_cast<int8_t>(o.zero_point), o.scale, static_cast<int8_t>(lo), static_cast<int8_t>(hi), 0,
                      &op);
  } else {
    s = ops.create_u8(static_cast<uint8_t>(a.zero_point), a.scale, static_cast<uint8_t>(b.zero_point), b.scale,
                      static_cast<uint8_t>(o.zero_point), o.scale, static_cast<uint8_t>(lo), static_cast<uint8_t>(hi),
                      0, &op);
  }
  return KeepOperator(ctx, s, op, [ops](const KernelContext& c, xnn_operator_t op, pthreadpool_t pool) {
    const TensorData& x = *c.inputs[0];
    const TensorData& y = *c.inputs[1];
    std::vector<size_t> xs(x.shape.begin(), x.shape.end()), ys(y.shape.begin(), y.shape.end());
    if (xs.empty()) xs.push_back(1);
    if (ys.empty()) ys.push_back(1);
    if (x.type == DataType::kInt8) {
      return ops.setup_s8(op, xs.size(), xs.data(), ys.size(), ys.data(), x.as<int8_t>(), y.as<int8_t>(),
                          c.outputs[0]->as<int8_t>(), pool);
    }
    return ops.setup_u8(op, xs.size(), xs.data(), ys.size(), ys.data(), x.as<uint8_t>(), y.as<uint8_t>(),
                        c.outputs[0]->as<uint8_t>(), pool);
  });
}

}  // namespace

Status PrepareIntegerConv2d(KernelContext& ctx) { return PrepareConvolution<Conv2dAttributes>(ctx, false); }
Status PrepareIntegerDepthwiseConv2d(KernelContext& ctx) {
  return PrepareConvolution<DepthwiseConv2dAttributes>(ctx, true);
}

Status PrepareIntegerFullyConnected(KernelContext& ctx) {
  const FullyConnectedAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  IntegerLinear l;
  GLD_RETURN_IF_ERROR(GetIntegerLinear(ctx, *attrs, &l));
  const Shape& w = ctx.inputs[1]->shape;
  if (w.size() != 2 || w[1] <= 0 || ctx.inputs[0]->num_elements() % w[1] != 0 ||
      ctx.outputs[0]->num_elements() != ctx.inputs[0]->num_elements() / w[1] * w[0] ||
      (!l.bias.empty() && static_cast<int64_t>(l.bias.size()) != w[0])) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(ctx.inputs[0]->shape) + ", weights " +
                                ShapeToString(w) + ", output " + ShapeToString(ctx.outputs[0]->shape));
  }
  GLD_ASSIGN_OR_RETURN(const bool gemm, KeepInt8Gemm(ctx, l, w[0], w[1]));
  if (gemm) return OkStatus();
  // A 1x1 convolution over rows x 1 x 1 pixels: XNNPACK's QC8 fully
  // connected operator is the convolution's (per-channel weights).
  const XnnWindow window{1, 1, 1, 1, 1, 1, 0, 0};
  xnn_operator_t op = nullptr;
  const size_t k = static_cast<size_t>(w[1]), n = static_cast<size_t>(w[0]);
  const xnn_status s = CreateConvolution(ctx, l, window, 1, k, n, k, n, 0, &op);
  return KeepOperator(ctx, s, op, [k](const KernelContext& c, xnn_operator_t o, pthreadpool_t p) {
    return SetupConvolution(c, o, p, static_cast<size_t>(c.inputs[0]->num_elements()) / k, 1, 1);
  });
}

Status PrepareIntegerAdd(KernelContext& ctx) {
  return PrepareBinary(ctx, {xnn_create_add_nd_qs8, xnn_setup_add_nd_qs8, xnn_create_add_nd_qu8, xnn_setup_add_nd_qu8});
}
Status PrepareIntegerSub(KernelContext& ctx) {
  return PrepareBinary(ctx, {xnn_create_subtract_nd_qs8, xnn_setup_subtract_nd_qs8, xnn_create_subtract_nd_qu8,
                             xnn_setup_subtract_nd_qu8});
}
Status PrepareIntegerMul(KernelContext& ctx) {
  return PrepareBinary(ctx, {xnn_create_multiply_nd_qs8, xnn_setup_multiply_nd_qs8, xnn_create_multiply_nd_qu8,
                             xnn_setup_multiply_nd_qu8});
}

Status PrepareIntegerMean(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorQuant in = QuantOf(*InputTensor(ctx, 0)), out = QuantOf(*OutputTensor(ctx, 0));
  const Shape& s = ctx.inputs[0]->shape;
  if (!in.valid || !out.valid || s.size() != 4 || !IsSpatialMean(*InputTensor(ctx, 1)) ||
      ctx.outputs[0]->num_elements() != s[0] * s[3]) {
    return KernelError(ctx, "an integer MEAN over the spatial axes of a 4-D tensor needs one scale and zero point "
                            "per tensor, got input " + ShapeToString(s));
  }
  const size_t channels = static_cast<size_t>(s[3]);
  xnn_operator_t op = nullptr;
  xnn_status status;
  if (ctx.inputs[0]->type == DataType::kInt8) {
    status = xnn_create_global_average_pooling_nwc_qs8(channels, channels, channels, static_cast<int8_t>(in.zero_point),
                                                       in.scale, static_cast<int8_t>(out.zero_point), out.scale,
                                                       std::numeric_limits<int8_t>::min(),
                                                       std::numeric_limits<int8_t>::max(), 0, &op);
  } else {
    status = xnn_create_global_average_pooling_nwc_qu8(channels, channels, channels,
                                                       static_cast<uint8_t>(in.zero_point), in.scale,
                                                       static_cast<uint8_t>(out.zero_point), out.scale, 0, 255, 0, &op);
  }
  return KeepOperator(ctx, status, op, [](const KernelContext& c, xnn_operator_t o, pthreadpool_t p) {
    const TensorData& x = *c.inputs[0];
    const size_t batch = static_cast<size_t>(x.shape[0]), width = static_cast<size_t>(x.shape[1] * x.shape[2]);
    if (x.type == DataType::kInt8) {
      return xnn_setup_global_average_pooling_nwc_qs8(o, batch, width, x.as<int8_t>(), c.outputs[0]->as<int8_t>(), p);
    }
    return xnn_setup_global_average_pooling_nwc_qu8(o, batch, width, x.as<uint8_t>(), c.outputs[0]->as<uint8_t>(), p);
  });
}

Status PrepareIntegerMaxPool2d(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const Pool2dAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  int32_t lo = 0, hi = 0;
  if (!QuantizedActivationRange(attrs->activation, *OutputTensor(ctx, 0), &lo, &hi)) {
    return KernelError(ctx, "the output needs one scale and zero point and a clamp activation");
  }
  const Shape& in = ctx.inputs[0]->shape;
  const Shape& out = ctx.outputs[0]->shape;
  if (in.size() != 4 || out.size() != 4 || in[3] != out[3] || in[0] != out[0]) {
    return KernelError(ctx, "input " + ShapeToString(in) + " and output " + ShapeToString(out) + " do not match");
  }
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckKernelGeometry(ctx, MakePoolGeometry(*attrs, in, &geometry), geometry, out));
  XnnWindow w = XnnWindowOf(geometry);
  // A window wholly in the padding has no element: TFLite's result there is
  // not XNNPACK's.
  if (!CompleteXnnWindow(in, out, &w) || w.pad_t >= w.kh || w.pad_b >= w.kh || w.pad_l >= w.kw || w.pad_r >= w.kw) {
    return KernelUnimplemented(ctx, "a window XNNPACK cannot express");
  }
  const auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  const size_t ch = static_cast<size_t>(in[3]);
  xnn_operator_t op = nullptr;
  xnn_status status;
  if (ctx.inputs[0]->type == DataType::kInt8) {
    status = xnn_create_max_pooling2d_nhwc_s8(u(w.pad_t), u(w.pad_r), u(w.pad_b), u(w.pad_l), u(w.kh), u(w.kw),
                                              u(w.sh), u(w.sw), 1, 1, ch, ch, ch, static_cast<int8_t>(lo),
                                              static_cast<int8_t>(hi), 0, &op);
  } else {
    status = xnn_create_max_pooling2d_nhwc_u8(u(w.pad_t), u(w.pad_r), u(w.pad_b), u(w.pad_l), u(w.kh), u(w.kw),
                                              u(w.sh), u(w.sw), 1, 1, ch, ch, ch, static_cast<uint8_t>(lo),
                                              static_cast<uint8_t>(hi), 0, &op);
  }
  return KeepOperator(ctx, status, op, [](const KernelContext& c, xnn_operator_t o, pthreadpool_t p) {
    const TensorData& x = *c.inputs[0];
    const auto z = [](int64_t v) { return static_cast<size_t>(v); };
    if (x.type == DataType::kInt8) {
      return xnn_setup_max_pooling2d_nhwc_s8(o, z(x.shape[0]), z(x.shape[1]), z(x.shape[2]), x.as<int8_t>(),
                                             c.outputs[0]->as<int8_t>(), p);
    }
    return xnn_setup_max_pooling2d_nhwc_u8(o, z(x.shape[0]), z(x.shape[1]), z(x.shape[2]), x.as<uint8_t>(),
                                           c.outputs[0]->as<uint8_t>(), p);
  });
}

namespace {

// A node's 256-entry table of output bytes, indexed by the input's bits.
struct Int8LookupState final : KernelState {
  int8_t table[256];
};

// LOGISTIC and TANH: XNNPACK's table-driven operators. Each output byte is
// a function of its input byte alone, so the operator is run once at prepare
// over the 256 byte values and the node runs that table (int8_rows.h:
// Int8TableLookup, VBMI's byte permutes where the CPU has them): XNNPACK's
// integers by construction, one lookup pass.
struct UnaryOps {
  decltype(&xnn_create_sigmoid_nc_qs8) create_s8;
  decltype(&xnn_setup_sigmoid_nc_qs8) setup_s8;
  decltype(&xnn_create_sigmoid_nc_qu8) create_u8;
  decltype(&xnn_setup_sigmoid_nc_qu8) setup_u8;
};

// The operator's output for each of the 256 byte values (the table's
// index: the input's bits), run once.
xnn_status UnaryTable(const UnaryOps& ops, DataType type, const TensorQuant& in, const TensorQuant& out,
                      uint8_t table[256]) {
  // XNNPACK may read and write 16 bytes past each buffer.
  alignas(64) uint8_t bytes[256 + 16] = {};
  alignas(64) uint8_t values[256 + 16] = {};
  for (int i = 0; i < 256; ++i) bytes[i] = static_cast<uint8_t>(i);
  xnn_operator_t op = nullptr;
  xnn_status status;
  if (type == DataType::kInt8) {
    status = ops.create_s8(256, 256, 256, static_cast<int8_t>(in.zero_point), in.scale,
                           static_cast<int8_t>(out.zero_point), out.scale, -128, 127, 0, &op);
    if (status == xnn_status_success) {
      status = ops.setup_s8(op, 1, reinterpret_cast<const int8_t*>(bytes), reinterpret_cast<int8_t*>(values), nullptr);
    }
  } else {
    status = ops.create_u8(256, 256, 256, static_cast<uint8_t>(in.zero_point), in.scale,
                           static_cast<uint8_t>(out.zero_point), out.scale, 0, 255, 0, &op);
    if (status == xnn_status_success) status = ops.setup_u8(op, 1, bytes, values, nullptr);
  }
  if (status == xnn_status_success) status = xnn_run_operator(op, nullptr);
  if (op != nullptr) xnn_delete_operator(op);
  std::memcpy(table, values, 256);
  return status;
}

constexpr UnaryOps kSigmoidOps{xnn_create_sigmoid_nc_qs8, xnn_setup_sigmoid_nc_qs8, xnn_create_sigmoid_nc_qu8,
                               xnn_setup_sigmoid_nc_qu8};

Status PrepareUnary(KernelContext& ctx, const UnaryOps& ops) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const TensorQuant in = QuantOf(*InputTensor(ctx, 0)), out = QuantOf(*OutputTensor(ctx, 0));
  if (!in.valid || !out.valid || ctx.inputs[0]->num_elements() != ctx.outputs[0]->num_elements()) {
    return KernelError(ctx, "input and output need one scale and zero point each and one size");
  }
  if (!XnnAvailable() || ctx.state == nullptr) {
    return KernelUnimplemented(ctx, "the integer kernel needs XNNPACK and a state slot");
  }
  uint8_t values[256];
  const xnn_status status = UnaryTable(ops, ctx.inputs[0]->type, in, out, values);
  if (status != xnn_status_success) {
    return KernelUnimplemented(ctx, "XNNPACK did not create or run the integer operator (status " +
                                        std::to_string(status) + ")");
  }
  auto state = std::make_unique<Int8LookupState>();
  std::memcpy(state->table, values, 256);
  *ctx.state = std::move(state);
  return OkStatus();
}

}  // namespace

Status PrepareIntegerLogistic(KernelContext& ctx) { return PrepareUnary(ctx, kSigmoidOps); }

bool Int8LogisticTable(const Graph& graph, const Node& node, int8_t table[256]) {
  if (node.op != OpType::kLogistic || node.inputs.size() != 1 || node.outputs.size() != 1 || !XnnAvailable() ||
      FindIntegerKernel(graph, node) == nullptr) {
    return false;
  }
  const Tensor& in = graph.tensors[static_cast<size_t>(node.inputs[0])];
  if (in.type != DataType::kInt8) return false;
  const TensorQuant qi = QuantOf(in), qo = QuantOf(graph.tensors[static_cast<size_t>(node.outputs[0])]);
  uint8_t values[256];
  if (UnaryTable(kSigmoidOps, DataType::kInt8, qi, qo, values) != xnn_status_success) return false;
  std::memcpy(table, values, 256);
  return true;
}
Status PrepareIntegerTanh(KernelContext& ctx) {
  return PrepareUnary(ctx, {xnn_create_tanh_nc_qs8, xnn_setup_tanh_nc_qs8, xnn_create_tanh_nc_qu8,
                            xnn_setup_tanh_nc_qu8});
}

Status RunIntegerKernel(KernelContext& ctx) {
  if (const auto* lut = StateAs<const Int8LookupState>(ctx)) {
    const int64_t n = ctx.inputs[0]->num_elements();
    if (n != ctx.outputs[0]->num_elements()) return KernelError(ctx, "input and output sizes differ");
    const int8_t* x = ctx.inputs[0]->as<int8_t>();
    int8_t* y = ctx.outputs[0]->as<int8_t>();
    ParallelForElements(ctx, n, 4 * kElementwiseChunk,
                        [&](int64_t b, int64_t e) { Int8TableLookup(lut->table, x + b, e - b, y + b); });
    return OkStatus();
  }
  if (const auto* dw = StateAs<const Int8DepthwiseState>(ctx)) {
    const int8_t* x = ctx.inputs[0]->as<int8_t>();
    int8_t* y = ctx.outputs[0]->as<int8_t>();
    thread_local std::vector<int8_t> repeated;  // kept: no allocation per run
    if (dw->multiplier > 1) {
      const int64_t n = ctx.inputs[0]->num_elements();
      if (n * dw->multiplier != dw->batch * dw->ih * dw->iw * dw->channels) {
        return KernelError(ctx, "the input's size changed since prepare");
      }
      // 64 bytes of slack: the kernel's 16-channel loads may pass the end.
      repeated.resize(static_cast<size_t>(n * dw->multiplier + 64));
      Int8RepeatBytes(x, n, dw->multiplier, repeated.data());
      x = repeated.data();
    }
    const uint64_t loop = NewInt8DepthwiseLoop();
    ParallelForGrain(ctx, dw->batch * dw->oh, 1,
                     [&](int64_t b, int64_t e) { Int8DepthwiseRows(x, *dw, b, e, y, loop); });
    return OkStatus();
  }
  if (const auto* gemm = StateAs<const Int8GemmWeights>(ctx)) {
    const int8_t* x = ctx.inputs[0]->as<int8_t>();
    int8_t* y = ctx.outputs[0]->as<int8_t>();
    if (gemm->gathers) {
      // Chunks of 64 pixels (a gathered block), fewer where the output has
      // too few for each thread to take several.
      const int64_t pixels = ctx.outputs[0]->num_elements() / gemm->n;
      const int64_t grain = std::clamp<int64_t>(pixels / (4 * ctx.num_threads) / 8 * 8, 8, 64);
      ParallelForGrain(ctx, pixels, grain, [&](int64_t b, int64_t e) {
        thread_local std::vector<int8_t> scratch;  // kept: no allocation per run
        Int8ConvPixels(x, b, e, *gemm, y, &scratch);
      });
      return OkStatus();
    }
    // Row blocks times output-channel panels (int8_gemm.h), at least ~16K
    // multiply-adds a chunk: a 6x6 map's 36 rows still split evenly.
    const int64_t rows = ctx.inputs[0]->num_elements() / gemm->k;
    ParallelForGrain(ctx, Int8GemmItemCount(rows, *gemm), std::max<int64_t>(1, 16384 / Int8GemmItemWork(*gemm)),
                     [&](int64_t b, int64_t e) { Int8GemmItems(x, rows, *gemm, b, e, y); });
    return OkStatus();
  }
  GLD_ASSIGN_OR_RETURN(const bool ran, RunXnnOperator(ctx));
  if (!ran) return KernelUnimplemented(ctx, "the integer kernel runs only after its prepare (no XNNPACK operator)");
  return OkStatus();
}

}  // namespace gld::cpu
