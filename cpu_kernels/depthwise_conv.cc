// DEPTHWISE_CONV_2D: input [N, H, W, IC], filter [1, KH, KW, IC * M], optional
// bias [IC * M]; output channel ic * M + m reads input channel ic. The inner
// loops run over contiguous channels; rows are split across threads.
#include <algorithm>

#include "cpu_kernels/kernels.h"

namespace gld::cpu {

Status RunDepthwiseConv2d(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const DepthwiseConv2dAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& filter = *ctx.inputs[1];
  const TensorData* bias = OptionalInput(ctx, 2);
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, filter, DataType::kFloat32, "filter"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (bias) GLD_RETURN_IF_ERROR(CheckType(ctx, *bias, DataType::kFloat32, "bias"));
  if (in.shape.size() != 4 || filter.shape.size() != 4 || out.shape.size() != 4) {
    return KernelError(ctx, "input, filter and output must be 4-D, got " + ShapeToString(in.shape) +
                                ", " + ShapeToString(filter.shape) + ", " + ShapeToString(out.shape));
  }
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ic = in.shape[3];
  const int64_t kh = filter.shape[1], kw = filter.shape[2], oc = filter.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  if (filter.shape[0] != 1 || ic <= 0 || oc % ic != 0 || out.shape[0] != batch || out.shape[3] != oc ||
      (bias && bias->num_elements() != oc)) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", filter " +
                                ShapeToString(filter.shape) + ", output " + ShapeToString(out.shape) +
                                (bias ? ", bias " + ShapeToString(bias->shape) : std::string()));
  }
  if (attrs->stride_h <= 0 || attrs->stride_w <= 0 || attrs->dilation_h <= 0 || attrs->dilation_w <= 0) {
    return KernelError(ctx, "strides and dilations must be positive");
  }
  const int64_t mult = oc / ic;
  const int64_t sh = attrs->stride_h, sw = attrs->stride_w;
  const int64_t dh = attrs->dilation_h, dw = attrs->dilation_w;
  const int64_t pad_t = ComputePadding(attrs->padding, static_cast<int32_t>(ih), static_cast<int32_t>(kh),
                                       attrs->stride_h, attrs->dilation_h, static_cast<int32_t>(oh)).before;
  const int64_t pad_l = ComputePadding(attrs->padding, static_cast<int32_t>(iw), static_cast<int32_t>(kw),
                                       attrs->stride_w, attrs->dilation_w, static_cast<int32_t>(ow)).before;
  const float* w = filter.as<float>();
  const float* b = bias ? bias->as<float>() : nullptr;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  const Activation act = attrs->activation;

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
        for (int64_t fy = 0; fy < kh; ++fy) {
          const int64_t iy = oy * sh - pad_t + fy * dh;
          if (iy < 0 || iy >= ih) continue;
          for (int64_t fx = 0; fx < kw; ++fx) {
            const int64_t ix = ox * sw - pad_l + fx * dw;
            if (ix < 0 || ix >= iw) continue;
            const float* __restrict__ ip = x + ((n * ih + iy) * iw + ix) * ic;
            const float* __restrict__ wp = w + (fy * kw + fx) * oc;
            if (mult == 1) {
              for (int64_t c = 0; c < oc; ++c) o[c] += ip[c] * wp[c];
            } else {
              for (int64_t c = 0; c < ic; ++c) {
                const float v = ip[c];
                for (int64_t m = 0; m < mult; ++m) o[c * mult + m] += v * wp[c * mult + m];
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

}  // namespace gld::cpu
