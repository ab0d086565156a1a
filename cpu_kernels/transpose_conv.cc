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

#include "cpu_kernels/gemm.h"
#include "cpu_kernels/kernels.h"

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

}  // namespace

Status RunTransposeConv(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 4, 1));
  const TransposeConvAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& weights = *ctx.inputs[1];
  const TensorData& in = *ctx.inputs[2];
  const TensorData* bias = OptionalInput(ctx, 3);
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTransposeConvShapes(ctx, in, weights, bias, out));
  if (attrs->stride_h <= 0 || attrs->stride_w <= 0) return KernelError(ctx, "strides must be positive");
  const int32_t oh = out.shape[1], ow = out.shape[2];
  const int32_t kh = weights.shape[1], kw = weights.shape[2];
  // TFLite computes the padding as if the output were the input of a CONV_2D.
  int64_t pad_t = 0, pad_l = 0;
  if (attrs->padding == Padding::kSame) {
    pad_t = ComputePadding(Padding::kSame, oh, kh, attrs->stride_h, 1,
                           ConvOutputSize(Padding::kSame, oh, kh, attrs->stride_h)).before;
    pad_l = ComputePadding(Padding::kSame, ow, kw, attrs->stride_w, 1,
                           ConvOutputSize(Padding::kSame, ow, kw, attrs->stride_w)).before;
  }
  return TransposeConvCore(ctx, in, weights, bias, out, attrs->stride_h, attrs->stride_w, pad_t, pad_l,
                           attrs->activation);
}

Status RunConvolution2DTransposeBias(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const TransposeConvAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& weights = *ctx.inputs[1];
  const TensorData* bias = OptionalInput(ctx, 2);
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckTransposeConvShapes(ctx, in, weights, bias, out));
  if (attrs->stride_h <= 0 || attrs->stride_w <= 0) return KernelError(ctx, "strides must be positive");
  const TransposeConvBiasSize hs =
      MediaPipeTransposeConvSize(attrs->padding, in.shape[1], weights.shape[1], attrs->stride_h);
  const TransposeConvBiasSize ws =
      MediaPipeTransposeConvSize(attrs->padding, in.shape[2], weights.shape[2], attrs->stride_w);
  return TransposeConvCore(ctx, in, weights, bias, out, attrs->stride_h, attrs->stride_w, hs.pad_before,
                           ws.pad_before, attrs->activation);
}

}  // namespace gld::cpu
