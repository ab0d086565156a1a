// CONV_3D: an NDHWC input, a DHWIO filter ([kd, kh, kw, in, out]), an
// optional bias, TFLite's padding per spatial axis (graph/conv_geometry.h) and a
// fused activation. A direct loop: each output pixel's window is gathered
// taps-first and multiplied into all output channels (the filter's rows are
// contiguous in the output channel), in float as TFLite's im2col GEMM sums.
// Undilated, the width taps of one (depth, height) tap that lie inside the
// input are one run of (taps x in) values, read in place against as many
// contiguous filter rows (WindowRun).
#include <algorithm>
#include <vector>

#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

// acc[c] += sum over j < n of x[j] * w[j * oc + c], for c < oc.
inline void WindowRun(const float* __restrict__ x, const float* __restrict__ w, int64_t n, int32_t oc,
                      float* __restrict__ acc) {
  for (int64_t j = 0; j < n; ++j) {
    const float v = x[j];
    const float* wr = w + j * oc;
    for (int32_t c = 0; c < oc; ++c) acc[c] += v * wr[c];
  }
}

}  // namespace

Status RunConv3d(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  const Conv3dAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &a));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& filter = *ctx.inputs[1];
  const TensorData* bias = OptionalInput(ctx, 2);
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, filter, DataType::kFloat32, "filter"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (bias != nullptr) GLD_RETURN_IF_ERROR(CheckType(ctx, *bias, DataType::kFloat32, "bias"));
  if (in.shape.size() != 5 || filter.shape.size() != 5 || out.shape.size() != 5) {
    return KernelError(ctx, "input, filter and output must be 5-D");
  }
  const int32_t ic = in.shape[4], oc = filter.shape[4];
  if (filter.shape[3] != ic || out.shape[4] != oc || out.shape[0] != in.shape[0] ||
      (bias != nullptr && bias->num_elements() != oc)) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + ", filter " + ShapeToString(filter.shape) +
                                " and output " + ShapeToString(out.shape) + " do not match");
  }
  const int32_t strides[3] = {a->stride_d, a->stride_h, a->stride_w};
  const int32_t dilations[3] = {a->dilation_d, a->dilation_h, a->dilation_w};
  ConvGeometry geometry;
  const Status made = MakeConvGeometry(*a, in.shape, filter.shape, &geometry);
  if (!made.ok()) return KernelError(ctx, made.message());
  if (!geometry.Gives(out.shape)) {
    return KernelError(ctx, "output " + ShapeToString(out.shape) + " does not match the convolution of " +
                                ShapeToString(in.shape));
  }
  const int32_t pad[3] = {geometry.axes[0].pad_before, geometry.axes[1].pad_before, geometry.axes[2].pad_before};
  const int32_t kd = filter.shape[0], kh = filter.shape[1], kw = filter.shape[2];
  const int32_t id = in.shape[1], ih = in.shape[2], iw = in.shape[3];
  const int32_t od = out.shape[1], oh = out.shape[2], ow = out.shape[3];
  const float* x = in.as<float>();
  const float* w = filter.as<float>();
  const float* b = bias != nullptr ? bias->as<float>() : nullptr;
  float* y = out.as<float>();
  const int64_t pixels = static_cast<int64_t>(out.shape[0]) * od * oh * ow;
  ctx.ParallelFor(pixels, [&](int64_t begin, int64_t end) {
    std::vector<float> acc(static_cast<size_t>(oc));
    for (int64_t p = begin; p < end; ++p) {
      int64_t r = p;
      const int32_t ox = static_cast<int32_t>(r % ow);
      r /= ow;
      const int32_t oy = static_cast<int32_t>(r % oh);
      r /= oh;
      const int32_t oz = static_cast<int32_t>(r % od);
      const int64_t n = r / od;
      for (int32_t c = 0; c < oc; ++c) acc[static_cast<size_t>(c)] = b != nullptr ? b[c] : 0.f;
      // Undilated, the width taps inside the input are fx in [fx0, fx1).
      const int32_t x0 = ox * strides[2] - pad[2];
      int32_t fx0 = 0, fx1 = kw;
      if (dilations[2] == 1) {
        fx0 = std::max(0, -x0);
        fx1 = std::min(kw, iw - x0);
      }
      for (int32_t fz = 0; fz < kd; ++fz) {
        const int32_t z = oz * strides[0] - pad[0] + fz * dilations[0];
        if (z < 0 || z >= id) continue;
        for (int32_t fy = 0; fy < kh; ++fy) {
          const int32_t yy = oy * strides[1] - pad[1] + fy * dilations[1];
          if (yy < 0 || yy >= ih) continue;
          const float* row = x + ((n * id + z) * ih + yy) * iw * ic;
          const float* wrow = w + (static_cast<int64_t>(fz) * kh + fy) * kw * ic * oc;
          if (dilations[2] == 1) {
            if (fx1 > fx0) {
              WindowRun(row + static_cast<int64_t>(x0 + fx0) * ic, wrow + static_cast<int64_t>(fx0) * ic * oc,
                        static_cast<int64_t>(fx1 - fx0) * ic, oc, acc.data());
            }
            continue;
          }
          for (int32_t fx = 0; fx < kw; ++fx) {
            const int32_t xx = x0 + fx * dilations[2];
            if (xx < 0 || xx >= iw) continue;
            WindowRun(row + static_cast<int64_t>(xx) * ic, wrow + static_cast<int64_t>(fx) * ic * oc, ic, oc,
                      acc.data());
          }
        }
      }
      float* yp = y + p * oc;
      for (int32_t c = 0; c < oc; ++c) yp[c] = ApplyActivation(a->activation, acc[static_cast<size_t>(c)]);
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
