// Helpers of the integer kernels (integer_kernels.h) and their XNNPACK
// operators (xnnpack_quantized.cc). Internal to cpu_kernels/.
#pragma once

#include <cstdint>

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

// One scale and zero point of an int8/uint8 tensor; valid when the tensor
// has exactly one positive finite scale and a zero point in its type's range.
struct TensorQuant {
  bool valid = false;
  float scale = 0.f;
  int32_t zero_point = 0;
};
TensorQuant QuantOf(const Tensor& t);

// TFLite's fused activation range of a quantized output (its
// CalculateActivationRangeQuantized: the type's range narrowed to
// zero_point + round(bound / scale)); false for an activation that is not a
// clamp, or an empty range.
bool QuantizedActivationRange(Activation a, const Tensor& out, int32_t* lo, int32_t* hi);

// Whether a constant axes tensor names dimensions 1 and 2 of a 4-D input
// (either order, negative forms allowed) and nothing else.
bool IsSpatialMean(const Tensor& axes);

// The integer kernels. Each prepare checks the node and keeps its XNNPACK
// operator (weights packed) in the node's state slot; RunIntegerKernel runs it.
Status PrepareIntegerConv2d(KernelContext& ctx);
Status PrepareIntegerDepthwiseConv2d(KernelContext& ctx);
Status PrepareIntegerFullyConnected(KernelContext& ctx);
Status PrepareIntegerAdd(KernelContext& ctx);
Status PrepareIntegerSub(KernelContext& ctx);
Status PrepareIntegerMul(KernelContext& ctx);
Status PrepareIntegerMean(KernelContext& ctx);
Status PrepareIntegerMaxPool2d(KernelContext& ctx);
Status PrepareIntegerLogistic(KernelContext& ctx);
Status PrepareIntegerTanh(KernelContext& ctx);
// The 256 results (indexed by the input's bits) of an int8 LOGISTIC node
// that runs on its integer kernel (XNNPACK's table); false for any other.
bool Int8LogisticTable(const Graph& graph, const Node& node, int8_t table[256]);
Status RunIntegerKernel(KernelContext& ctx);

}  // namespace gld::cpu
