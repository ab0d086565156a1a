// TRANSPOSE_CONV (inputs: output_shape, weights OHWI, input[, bias]) and
// MediaPipe's Convolution2DTransposeBias (inputs: input, weights OHWI, bias).
// Both scatter input (iy, ix) to output (iy * stride - pad + ky, ...); here it
// is computed as a gather per output pixel so rows split across threads
// without write conflicts. The taps that reach each output row and column
// are listed once per run, so the pixel loop does no division. With several
// output channels the inner loop runs over contiguous output channels (weights
// as [ky][kx][ic][oc]); with few it is a dot product over contiguous input
// channels (weights as given, [oc][ky][kx][ic]).
#include <algorithm>

#include "cpu_kernels/micro/gemm/gemm.h"
#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {

// Below this many output channels an output-channel inner loop is too short
// to pay for itself.
constexpr int64_t kMinChannelsForAxpy = 8;

// For each output coordinate o in [0, out_size): the kernel taps k (and input
// coordinates i = (o + pad - k) / stride) that reach it.
struct AxisTaps {
  std::vector<int64_t> begin;  // taps of o: [begin[o], begin[o + 1])
  std::vector<int64_t> k, i;
};

AxisTaps ListTaps(int64_t out_size, int64_t in_size, int64_t kernel, int64_t stride, int64_t pad) {
  AxisTaps t;
  t.begin.reserve(static_cast<size_t>(out_size + 1));
  for (int64_t o = 0; o < out_size; ++o) {
    t.begin.push_back(static_cast<int64_t>(t.k.size()));
    for (int64_t k = 0; k < kernel; ++k) {
      const int64_t v = o + pad - k;
      if (v < 0 || v % stride != 0 || v / stride >= in_size) continue;
      t.k.push_back(k);
      t.i.push_back(v / stride);
    }
  }
  t.begin.push_back(static_cast<int64_t>(t.k.size()));
  return t;
}

Status TransposeConvCore(KernelContext& ctx, const TensorData& in, const TensorData& weights,
                         const TensorData* bias, TensorData& out, int64_t stride_h, int64_t stride_w,
                         int64_t pad_t, int64_t pad_l, Activation act) {
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ic = in.shape[3];
  const int64_t oc = weights.shape[0], kh = weights.shape[1], kw = weights.shape[2];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const AxisTaps ty = ListTaps(oh, ih, kh, stride_h, pad_t);
  const AxisTaps tx = ListTaps(ow, iw, kw, stride_w, pad_l);
  const float* w = weights.as<float>();
  const bool axpy = oc >= kMinChannelsForAxpy;
  // axpy: wt[ky][kx][ic][oc] = weights[oc][ky][kx][ic].
  std::vector<float> wt;
  if (axpy) {
    wt.resize(static_cast<size_t>(kh * kw * ic * oc));
    for (int64_t o = 0; o < oc; ++o)
      for (int64_t t = 0; t < kh * kw; ++t)
        for (int64_t c = 0; c < ic; ++c)
          wt[static_cast<size_t>((t * ic + c) * oc + o)] = w[(o * kh * kw + t) * ic + c];
  }
  const float* x = in.as<float>();
  const float* b = bias ? bias->as<float>() : nullptr;
  float* y = out.as<float>();

  ParallelForGrain(ctx, batch * oh, 1, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t n = row / oh;
      const int64_t oy = row % oh;
      for (int64_t ox = 0; ox < ow; ++ox) {
        float* __restrict__ o = y + ((n * oh + oy) * ow + ox) * oc;
        if (b) {
          std::copy(b, b + oc, o);
        } else {
          std::fill(o, o + oc, 0.f);
        }
        for (int64_t a = ty.begin[static_cast<size_t>(oy)]; a < ty.begin[static_cast<size_t>(oy + 1)]; ++a) {
          const int64_t ky = ty.k[static_cast<size_t>(a)], iy = ty.i[static_cast<size_t>(a)];
          for (int64_t e = tx.begin[static_cast<size_t>(ox)]; e < tx.begin[static_cast<size_t>(ox + 1)];
               ++e) {
            const int64_t kx = tx.k[static_cast<size_t>(e)], ix = tx.i[static_cast<size_t>(e)];
            const float* __restrict__ ip = x + ((n * ih + iy) * iw + ix) * ic;
            const int64_t tap = ky * kw + kx;
            if (axpy) {
              const float* wp = wt.data() + tap * ic * oc;
              for (int64_t c = 0; c < ic; ++c) {
                const float v = ip[c];
                const float* __restrict__ wc = wp + c * oc;
                for (int64_t j = 0; j < oc; ++j) o[j] += v * wc[j];
              }
            } else {
              for (int64_t j = 0; j < oc; ++j) {
                o[j] += Dot(ip, w + (j * kh * kw + tap) * ic, ic);
              }
            }
          }
        }
        ApplyActivationInPlace(act, o, oc);
      }
    }
  });
  return OkStatus();
}

Status CheckTransposeConvShapes(const KernelContext& ctx, const TensorData& in, const TensorData& weights,
                                const TensorData* bias, const TensorData& out) {
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, weights, DataType::kFloat32, "weights"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (bias) GLD_RETURN_IF_ERROR(CheckType(ctx, *bias, DataType::kFloat32, "bias"));
  if (in.shape.size() != 4 || weights.shape.size() != 4 || out.shape.size() != 4 ||
      weights.shape[3] != in.shape[3] || out.shape[0] != in.shape[0] || out.shape[3] != weights.shape[0] ||
      (bias && bias->num_elements() != weights.shape[0])) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", weights " +
                                ShapeToString(weights.shape) + ", output " + ShapeToString(out.shape) +
                                (bias ? ", bias " + ShapeToString(bias->shape) : std::string()));
  }
  return OkStatus();
}

// One transpose convolution node, checked, with TFLite's (or MediaPipe's)
// leading padding.
struct TransposeConvArgs {
  const TensorData* in = nullptr;
  const TensorData* weights = nullptr;
  const TensorData* bias = nullptr;
  TensorData* out = nullptr;
  size_t input_index = 0, bias_index = 0;
  int64_t stride_h = 1, stride_w = 1, pad_t = 0, pad_l = 0;
  Activation activation = Activation::kNone;
};

// TRANSPOSE_CONV: inputs output_shape, weights, input[, bias].
// Convolution2DTransposeBias (mediapipe): input, weights, bias.
Status GetTransposeConvArgs(const KernelContext& ctx, bool mediapipe, TransposeConvArgs* a) {
  GLD_RETURN_IF_ERROR(mediapipe ? CheckIo(ctx, 2, 3, 1) : CheckIo(ctx, 3, 4, 1));
  const TransposeConvAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  a->input_index = mediapipe ? 0 : 2;
  a->bias_index = mediapipe ? 2 : 3;
  a->in = ctx.inputs[a->input_index];
  a->weights = ctx.inputs[1];
  a->bias = OptionalInput(ctx, a->bias_index);
  a->out = ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTransposeConvShapes(ctx, *a->in, *a->weights, a->bias, *a->out));
  const Status steps = CheckConvSteps(*attrs);
  if (!steps.ok()) return KernelError(ctx, steps.message());
  a->stride_h = attrs->stride_h;
  a->stride_w = attrs->stride_w;
  a->activation = attrs->activation;
  ConvGeometry g;
  if (mediapipe) {
    const Status made = MakeTransposeConvBiasGeometry(*attrs, a->in->shape, a->weights->shape, &g);
    if (!made.ok()) return KernelError(ctx, made.message());
  } else {
    g = TransposeConvGeometry(*attrs, a->in->shape, a->weights->shape, a->out->shape);
  }
  a->pad_t = g.h().pad_before;
  a->pad_l = g.w().pad_before;
  return OkStatus();
}

Status RunTransposeConvNode(KernelContext& ctx, bool mediapipe) {
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  TransposeConvArgs a;
  GLD_RETURN_IF_ERROR(GetTransposeConvArgs(ctx, mediapipe, &a));
  return TransposeConvCore(ctx, *a.in, *a.weights, a.bias, *a.out, a.stride_h, a.stride_w, a.pad_t, a.pad_l,
                           a.activation);
}

// XNNPACK's deconvolution: out = stride * (in - 1) + adjustment + kernel
// - pad_top - pad_bottom, with 0 <= adjustment < stride.
bool DeconvolutionTail(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t before, int64_t* after,
                       int64_t* adjustment) {
  const int64_t rest = stride * (in - 1) + kernel - before - out;
  *after = std::max<int64_t>(rest, 0);
  *adjustment = std::max<int64_t>(-rest, 0);
  return before >= 0 && *adjustment < stride;
}

Status PrepareTransposeConvNode(KernelContext& ctx, bool mediapipe) {
  TransposeConvArgs a;
  GLD_RETURN_IF_ERROR(GetTransposeConvArgs(ctx, mediapipe, &a));
  const Shape& in = a.in->shape;
  const Shape& w = a.weights->shape;
  const Shape& out = a.out->shape;
  int64_t pad_b = 0, pad_r = 0, adj_h = 0, adj_w = 0;
  if (!XnnAvailable() || ctx.state == nullptr || ctx.InputIsConstant(a.input_index) || !ctx.InputIsConstant(1) ||
      (a.bias != nullptr && !ctx.InputIsConstant(a.bias_index)) || a.out->num_elements() == 0 ||
      !DeconvolutionTail(in[1], out[1], w[1], a.stride_h, a.pad_t, &pad_b, &adj_h) ||
      !DeconvolutionTail(in[2], out[2], w[2], a.stride_w, a.pad_l, &pad_r, &adj_w)) {
    return OkStatus();
  }
  const ActivationRange range = XnnOutputRange();
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_deconvolution2d_nhwc_f32(
      static_cast<uint32_t>(a.pad_t), static_cast<uint32_t>(pad_r), static_cast<uint32_t>(pad_b),
      static_cast<uint32_t>(a.pad_l), static_cast<uint32_t>(w[1]), static_cast<uint32_t>(w[2]),
      static_cast<uint32_t>(a.stride_h), static_cast<uint32_t>(a.stride_w), 1, 1, 1, static_cast<size_t>(in[3]),
      static_cast<size_t>(w[0]), static_cast<size_t>(in[3]), static_cast<size_t>(w[0]), a.weights->as<float>(),
      a.bias != nullptr ? a.bias->as<float>() : nullptr, range.lo, range.hi, 0, &op);
  const size_t input_index = a.input_index;
  KeepXnnOperator(ctx, s, op, a.activation,
                  [input_index, adj_h, adj_w](const KernelContext& c, xnn_operator_t o, pthreadpool_t pool) {
                    const TensorData& x = *c.inputs[input_index];
                    return xnn_setup_deconvolution2d_nhwc_f32(
                        o, static_cast<size_t>(x.shape[0]), static_cast<size_t>(x.shape[1]),
                        static_cast<size_t>(x.shape[2]), static_cast<uint32_t>(adj_h), static_cast<uint32_t>(adj_w),
                        x.as<float>(), c.outputs[0]->as<float>(), pool);
                  });
  return OkStatus();
}

}  // namespace

Status RunTransposeConv(KernelContext& ctx) { return RunTransposeConvNode(ctx, false); }
Status RunConvolution2DTransposeBias(KernelContext& ctx) { return RunTransposeConvNode(ctx, true); }
Status PrepareTransposeConv(KernelContext& ctx) { return PrepareTransposeConvNode(ctx, false); }
Status PrepareConvolution2DTransposeBias(KernelContext& ctx) { return PrepareTransposeConvNode(ctx, true); }

}  // namespace gld::cpu
