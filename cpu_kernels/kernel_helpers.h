// Helpers shared by the CPU kernels (kernel_interface.h's): error messages,
// input checks, fused activation ranges, integer inputs, strides, parallel
// loops. Internal to cpu_kernels/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <functional>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "graph/shape_inference.h"
#include "util/half.h"  // gld::HalfToFloat / FloatToHalf / HalfToFloatArray

namespace gld::cpu {

// "node 12 (CONV_2D)" for the node being run.
inline std::string KernelLabel(const KernelContext& ctx) {
  if (ctx.graph != nullptr && ctx.node != nullptr) {
    const auto& nodes = ctx.graph->nodes;
    if (!nodes.empty() && ctx.node >= nodes.data() && ctx.node < nodes.data() + nodes.size()) {
      return ctx.graph->NodeLabel(static_cast<size_t>(ctx.node - nodes.data()));
    }
  }
  if (ctx.node != nullptr) return std::string(OpTypeName(ctx.node->op));
  return "cpu kernel";
}

inline Status KernelError(const KernelContext& ctx, const std::string& message) {
  return InvalidArgumentError(KernelLabel(ctx) + ": " + message);
}
inline Status KernelUnimplemented(const KernelContext& ctx, const std::string& message) {
  return UnimplementedError(KernelLabel(ctx) + ": " + message);
}

// The input at `i`, or nullptr when absent.
inline const TensorData* OptionalInput(const KernelContext& ctx, size_t i) {
  return i < ctx.inputs.size() ? ctx.inputs[i] : nullptr;
}

// Checks that the node has [min_inputs, max_inputs] inputs, of which the
// first min_inputs are present, and at least `outputs` outputs (all present),
// and that every present tensor's buffer holds its shape. Output
// `sized_by_kernel` (if below `outputs`) is left to KernelContext::SizeOutput.
// Returns at once when ctx.io_checked (a runtime step's earlier run passed
// with the same buffers).
Status CheckIo(const KernelContext& ctx, size_t min_inputs, size_t max_inputs, size_t outputs,
               size_t sized_by_kernel = SIZE_MAX);

// Typed attributes, or an error when the node carries another kind.
template <typename A>
Status GetAttrs(const KernelContext& ctx, const A** out) {
  if (ctx.node == nullptr) return InternalError("kernel run without a node");
  *out = std::get_if<A>(&ctx.node->attributes);
  if (*out == nullptr) return KernelError(ctx, "missing or wrong attributes");
  return OkStatus();
}

// "float32 input 0 expected, got int8"
Status CheckType(const KernelContext& ctx, const TensorData& t, DataType type, const char* what);

// Reads an int32/int64 tensor's values.
Status ReadInts(const KernelContext& ctx, const TensorData& t, const char* what,
                std::vector<int64_t>* out);

inline std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// PRELU's slope as one value per channel of x's last dimension (shape [C],
// [1, 1, C], ...): what the vectorized PRELU loops take.
inline bool IsPerChannelSlope(const Shape& slope, const Shape& x) {
  return !x.empty() && x.back() > 0 && NumElements(slope) == x.back() && slope.size() <= x.size() &&
         (slope.empty() || slope.back() == x.back());
}

// Whether every value of t (float32) is finite: a constant filter whose
// windows may multiply the padding's zeros instead of skipping those taps.
inline bool AllFinite(const TensorData& t) {
  const float* v = t.as<float>();
  return std::all_of(v, v + t.num_elements(), [](float x) { return std::isfinite(x); });
}

// Fused activations. Clamp-type activations get a range; the others a
// function.
struct ActivationRange {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};
inline bool IsClampActivation(Activation a) {
  return a == Activation::kNone || a == Activation::kRelu || a == Activation::kRelu6 ||
         a == Activation::kReluN1To1;
}
inline ActivationRange GetActivationRange(Activation a) {
  ActivationRange r;
  switch (a) {
    case Activation::kRelu: r.lo = 0.f; break;
    case Activation::kRelu6: r.lo = 0.f; r.hi = 6.f; break;
    case Activation::kReluN1To1: r.lo = -1.f; r.hi = 1.f; break;
    default: break;
  }
  return r;
}
// The node's window geometry (graph/conv_geometry.h), `made` with the
// shape rule's function from the kernel's shapes, and `out` sized by it:
// otherwise a KernelError (the geometry's message, or the output's shape).
inline Status CheckKernelGeometry(const KernelContext& ctx, const Status& made, const ConvGeometry& g,
                                  const Shape& out) {
  if (!made.ok()) return KernelError(ctx, made.message());
  if (!g.Gives(out)) return KernelError(ctx, "output " + ShapeToString(out) + " does not match the window's");
  return OkStatus();
}
// ApplyActivation and ApplyActivationInPlace, whose TANH and SIGMOID are
// vector_math's rows: micro/vector_math/activation.h.
// Integer fused activation (int32 ADD/MUL ...): clamps, others unsupported.
inline int64_t ApplyActivationInt(Activation a, int64_t x) {
  switch (a) {
    case Activation::kRelu: return std::max<int64_t>(x, 0);
    case Activation::kRelu6: return std::min<int64_t>(std::max<int64_t>(x, 0), 6);
    case Activation::kReluN1To1: return std::min<int64_t>(std::max<int64_t>(x, -1), 1);
    default: return x;
  }
}

// A plan S that a kernel makes from its node's shapes and a constant input
// (a TRANSPOSE's perm, a MEAN's axes) at its first run: the one kept in the
// node's state slot when an earlier run of the same buffers made it
// (KernelContext::io_checked), else make(own)'s, kept in the slot when
// input `constant_input` is a constant. The later runs read no input and
// allocate nothing.
template <typename S, typename Make>
StatusOr<const S*> KeptPlan(KernelContext& ctx, size_t constant_input, S* own, Make make) {
  if (const S* kept = StateAs<const S>(ctx); kept != nullptr && ctx.io_checked) return kept;
  GLD_RETURN_IF_ERROR(make(own));
  if (ctx.state == nullptr || !ctx.InputIsConstant(constant_input)) return static_cast<const S*>(own);
  *ctx.state = std::make_unique<S>(std::move(*own));
  return StateAs<const S>(ctx);
}

// Splits [0, n) into chunks of at least `grain` items for ctx.ParallelFor.
// Work of one chunk, or a context without threads, runs fn on the calling
// thread directly (templates: no std::function is made, so a tiny node, such
// as each step of a WHILE body, allocates nothing).
void ParallelForChunks(const KernelContext& ctx, int64_t n, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& fn);
template <typename Fn>
void ParallelForGrain(const KernelContext& ctx, int64_t n, int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  grain = grain < 1 ? 1 : grain;
  if ((n + grain - 1) / grain <= 1 || ctx.num_threads <= 1 || !ctx.parallel_for) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelForChunks(ctx, n, grain, std::function<void(int64_t, int64_t)>(std::ref(fn)));
}

// Values per chunk of ParallelForElements: a few microseconds of a pass.
constexpr int64_t kElementwiseChunk = 1 << 12;
// An elementwise pass over n values (an output check, an epilogue): on the
// calling thread alone below `min_parallel` values, where a loop on the pool
// costs more than it saves; above, in chunks of kElementwiseChunk, so that
// the threads finish together (chunks of 32K values could leave one thread
// a whole chunk, about 10-15 us, behind the other on a 150K-value output).
template <typename Fn>
void ParallelForElements(const KernelContext& ctx, int64_t n, int64_t min_parallel, Fn&& fn) {
  if (n <= 0) return;
  if (n < min_parallel) {
    fn(int64_t{0}, n);
    return;
  }
  ParallelForGrain(ctx, n, kElementwiseChunk, fn);
}

// The graph tensor behind input i / output i (for names and quant params);
// nullptr when unknown.
// The input, filter, optional bias and output of a float convolution
// (CONV_2D, DEPTHWISE_CONV_2D), checked: 2-3 inputs, float32, 4-D tensors.
struct ConvIo {
  const TensorData* in = nullptr;
  const TensorData* filter = nullptr;
  const TensorData* bias = nullptr;  // absent optional input: nullptr
  TensorData* out = nullptr;
};
Status GetConvIo(const KernelContext& ctx, ConvIo* io);

const Tensor* InputTensor(const KernelContext& ctx, size_t i);
const Tensor* OutputTensor(const KernelContext& ctx, size_t i);


}  // namespace gld::cpu
