// The declarations of every CPU kernel in kernel_list.inc (what an op
// kernel's file defines; services/registry.cc lists them), and the few
// functions op kernels share across files. Internal to cpu_kernels/.
#pragma once

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

#define GLD_CPU_KERNEL(Name) Status Run##Name(KernelContext& ctx);
#define GLD_CPU_KERNEL_PREPARED(Name) Status Run##Name(KernelContext& ctx); Status Prepare##Name(KernelContext& ctx);
#include "cpu_kernels/ops/kernel_list.inc"
#undef GLD_CPU_KERNEL_PREPARED
#undef GLD_CPU_KERNEL

// Whether DEPTHWISE_CONV_2D of these shapes runs on the kernel's own fixed
// 3x3 / 5x5 code (multiplier 1, strides 1 or 2, no dilation), which was
// measured faster than XNNPACK's operator on every such layer of the shared
// models: its prepare then makes no operator.
bool DepthwiseRunsFixedKernel(const Shape& in, const Shape& filter, const Shape& out,
                              const DepthwiseConv2dAttributes& attrs);
// What that prepare keeps for the fixed kernels: whether every weight is
// finite (constant weights only), so that edge windows may multiply the
// padding's zeros instead of skipping those taps.
struct DepthwiseFixedState final : KernelState {
  bool finite_weights = false;
};

// CONV_2D with a clamp activation and constant weights (where the window
// is not 1x1 over every pixel: finite ones, at most 1024 values per window
// and, with one group, more than 16 output channels; with groups, at least
// 4 input channels per group), where the CPU has AVX-512F or AVX2 with
// FMA: prepare keeps the filter packed for pointwise_gemm.h's GEMM, one
// filter per group (true; a failed allocation sets *status) instead of an
// XNNPACK operator.
bool PrepareConvGemm(KernelContext& ctx, const ConvIo& io, const Conv2dAttributes& attrs, Status* status);
// Runs the node on that GEMM (and its epilogue) when its prepare kept one;
// false otherwise. FULLY_CONNECTED's prepare keeps the same state (a 1x1
// window over every row: fully_connected.cc) and runs through it too.
bool RunConvGemm(KernelContext& ctx);

}  // namespace gld::cpu
