// The prepare stage of CONV_2D and DEPTHWISE_CONV_2D: checks the node and,
// when XNNPACK can take it, creates its convolution operator with the weights
// packed (see xnnpack_op.h), clamped when its input bounds it.
#include <memory>
#include <type_traits>

#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {

xnn_status SetupConvolution(const KernelContext& ctx, xnn_operator_t op, pthreadpool_t pool) {
  const TensorData& in = *ctx.inputs[0];
  return xnn_setup_convolution2d_nhwc_f32(op, static_cast<size_t>(in.shape[0]), static_cast<size_t>(in.shape[1]),
                                          static_cast<size_t>(in.shape[2]), in.as<float>(),
                                          ctx.outputs[0]->as<float>(), pool);
}

// Whether XNNPACK (Debian's, 2022) runs a multiplier-1 depthwise window of
// `taps` = kh * kw on a depthwise microkernel: it has them for exactly 3, 4,
// 9 and 25 taps and runs other windows as a grouped GEMM of one channel per
// group, measured 7-12x slower than the kernel's own rows (1x8 over 49x64,
// keyword spotting: 15 -> 1.3 us; 7x7 over 28x28x64: 1196 -> 112 us).
bool XnnHasDepthwiseKernel(int64_t taps) { return taps == 3 || taps == 4 || taps == 9 || taps == 25; }

// CONV_2D (groups = IC / filter IC) and DEPTHWISE_CONV_2D (depthwise).
template <typename Attrs>
Status PrepareConvolution(KernelContext& ctx, bool depthwise) {
  ConvIo io;
  GLD_RETURN_IF_ERROR(GetConvIo(ctx, &io));
  const Attrs* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const Shape& in = io.in->shape;
  const Shape& filter = io.filter->shape;
  const Shape& out = io.out->shape;
  const int64_t ic = in[3], oc = out[3];
  const int64_t fic = depthwise ? 1 : filter[3];
  const int64_t groups = depthwise ? ic : (fic > 0 ? ic / fic : 0);
  const bool consistent = fic > 0 && groups > 0 && ic % fic == 0 && oc % groups == 0 && out[0] == in[0] &&
                          (depthwise ? filter[0] == 1 && filter[3] == oc : filter[0] == oc) &&
                          (io.bias == nullptr || io.bias->num_elements() == oc);
  if (!consistent) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in) + ", filter " +
                                ShapeToString(filter) + ", output " + ShapeToString(out) +
                                (io.bias ? ", bias " + ShapeToString(io.bias->shape) : std::string()));
  }
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckKernelGeometry(ctx, MakeConvGeometry(*attrs, in, filter, &geometry), geometry, out));
  if constexpr (std::is_same_v<Attrs, DepthwiseConv2dAttributes>) {
    if (DepthwiseRunsFixedKernel(in, filter, out, *attrs)) {
      if (ctx.state != nullptr && ctx.InputIsConstant(1)) {
        auto fixed = std::make_unique<DepthwiseFixedState>();
        fixed->finite_weights = AllFinite(*io.filter);
        *ctx.state = std::move(fixed);
      }
      return OkStatus();
    }
  }
  if constexpr (std::is_same_v<Attrs, Conv2dAttributes>) {
    Status packed;
    if (PrepareConvGemm(ctx, io, *attrs, &packed)) return OkStatus();
    GLD_RETURN_IF_ERROR(packed);
  }
  if (depthwise && oc == ic && !XnnHasDepthwiseKernel(filter[1] * filter[2])) return OkStatus();
  XnnWindow w = XnnWindowOf(geometry);
  if (!XnnMayTake(ctx) || !XnnWeightsAreConstant(ctx, 1, 2) || !CompleteXnnWindow(in, out, &w) ||
      io.out->num_elements() == 0) {
    return OkStatus();
  }
  // A convolution that widens its input decides each run from the input
  // (XnnLinearBound); the others check their output.
  std::optional<XnnLinearBound> bound;
  if (!depthwise && IsClampActivation(attrs->activation) && ctx.epilogue == nullptr &&
      io.out->num_elements() > io.in->num_elements()) {
    bound = LinearBoundOf(io.filter->as<float>(), oc, filter[1] * filter[2] * fic,
                          io.bias != nullptr ? io.bias->as<float>() : nullptr);
  }
  const ActivationRange range = bound.has_value() ? GetActivationRange(attrs->activation) : XnnOutputRange();
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_convolution2d_nhwc_f32(
      static_cast<uint32_t>(w.pad_t), static_cast<uint32_t>(w.pad_r), static_cast<uint32_t>(w.pad_b),
      static_cast<uint32_t>(w.pad_l), static_cast<uint32_t>(w.kh), static_cast<uint32_t>(w.kw),
      static_cast<uint32_t>(w.sh), static_cast<uint32_t>(w.sw), static_cast<uint32_t>(w.dh),
      static_cast<uint32_t>(w.dw), static_cast<uint32_t>(groups), static_cast<size_t>(fic),
      static_cast<size_t>(oc / groups), static_cast<size_t>(ic), static_cast<size_t>(oc), io.filter->as<float>(),
      io.bias != nullptr ? io.bias->as<float>() : nullptr, range.lo, range.hi, depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0, &op);
  KeepXnnOperator(ctx, s, op, attrs->activation, SetupConvolution, bound);
  return OkStatus();
}

}  // namespace

Status PrepareConv2d(KernelContext& ctx) { return PrepareConvolution<Conv2dAttributes>(ctx, false); }
Status PrepareDepthwiseConv2d(KernelContext& ctx) {
  return PrepareConvolution<DepthwiseConv2dAttributes>(ctx, true);
}

}  // namespace gld::cpu
