// Binary elementwise ops with broadcasting: the binary rows of the
// elementwise table (graph/elementwise_ops.inc: ADD, SUB, MUL, DIV, MAXIMUM,
// ...). float32, int32 and int64 where TFLite takes them; integer arithmetic
// wraps instead of overflowing. Comparisons and logical ops are in
// elementwise_compare.cc (a file of their own, so that the two sets of
// broadcast instantiations compile in parallel).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/ops/elementwise_math.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/vector_ops/vector_ops.h"

namespace gld::cpu {

namespace {

// Refuses integer right operands the op is undefined for (the row's int_rhs).
template <typename T>
Status CheckIntegerRhs(KernelContext& ctx, const TensorData& b, IntRhs rule) {
  if (rule == IntRhs::kAny) return OkStatus();
  const T* pb = b.as<T>();
  for (int64_t i = 0; i < b.num_elements(); ++i) {
    if (rule == IntRhs::kNonNegative && pb[i] < 0) {
      return KernelError(ctx, std::string("integer ") + OpTypeName(ctx.node->op) + " with a negative exponent (" +
                                  std::to_string(pb[i]) + ")");
    }
    if (rule == IntRhs::kNonZero && pb[i] == 0) return KernelError(ctx, "integer division by zero");
  }
  return OkStatus();
}

// One element type: out = fn(a, b) broadcast, then the fused activation.
template <typename T, typename Fn>
Status RunArithmetic(KernelContext& ctx, Fn fn, Activation act) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR((BroadcastBinary<T, T, T>(ctx, a, b, out, [&fn](T x, T y) { return static_cast<T>(fn(x, y)); })));
  if constexpr (std::is_floating_point_v<T>) {
    ApplyActivationInPlace(act, out.as<float>(), out.num_elements());
  } else if (act != Activation::kNone) {
    if (!IsClampActivation(act)) return KernelUnimplemented(ctx, std::string("fused ") + ActivationName(act) + " on integers");
    T* p = out.as<T>();
    for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = static_cast<T>(ApplyActivationInt(act, p[i]));
  }
  return OkStatus();
}

// The node's fused activation (none for ops without BinaryAttributes).
Activation BinaryActivation(const KernelContext& ctx) {
  const auto* attrs = std::get_if<BinaryAttributes>(&ctx.node->attributes);
  return attrs != nullptr ? attrs->activation : Activation::kNone;
}

// Elements per chunk of a same-shape float op on the pool.
constexpr int64_t kVectorGrain = 16384;

// Whether `s` is `out` but for leading 1s on either (a [128] bias against
// a [1, 128] output): the same elements in the same order.
bool SameLayout(const Shape& s, const Shape& out) {
  size_t i = 0, j = 0;
  while (i < s.size() && s[i] == 1) ++i;
  while (j < out.size() && out[j] == 1) ++j;
  return s.size() - i == out.size() - j && std::equal(s.begin() + static_cast<std::ptrdiff_t>(i), s.end(),
                                                       out.begin() + static_cast<std::ptrdiff_t>(j));
}

// ADD, SUB, MUL and DIV of two float tensors laid out as the output
// (SameLayout): one vectorized pass with a clamp activation fused
// (vector_ops.h); false for anything else.
bool RunSameShapeFloat(KernelContext& ctx, Activation act) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (a.type != DataType::kFloat32 || !SameLayout(a.shape, out.shape) || !SameLayout(b.shape, out.shape)) {
    return false;
  }
  VectorOp vop;
  switch (ctx.node->op) {
    case OpType::kAdd: vop = VectorOp::kAdd; break;
    case OpType::kSub: vop = VectorOp::kSub; break;
    case OpType::kMul: vop = VectorOp::kMul; break;
    case OpType::kDiv: vop = VectorOp::kDiv; break;
    default: return false;
  }
  const bool clamp = act != Activation::kNone && IsClampActivation(act);
  const ActivationRange r = GetActivationRange(act);
  const float* pa = a.as<float>();
  const float* pb = b.as<float>();
  float* po = out.as<float>();
  ParallelForGrain(ctx, out.num_elements(), kVectorGrain, [&](int64_t begin, int64_t end) {
    VectorBinary(vop, pa + begin, pb + begin, po + begin, end - begin, clamp, r.lo, r.hi);
    if (!IsClampActivation(act)) ApplyActivationInPlace(act, po + begin, end - begin);
  });
  return true;
}

// An elementwise table row: float_fn for float32, int_fn (unless it is
// GLD_EW_NONE) for int32 and int64.
template <typename FloatFn, typename IntFn>
Status RunBinary(KernelContext& ctx, FloatFn float_fn, IntFn int_fn, IntRhs int_rhs) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Activation act = BinaryActivation(ctx);
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  const TensorData& out = *ctx.outputs[0];
  if (a.type != b.type || a.type != out.type) {
    return KernelError(ctx, std::string("input and output types differ: ") + DataTypeName(a.type) + ", " +
                                DataTypeName(b.type) + " -> " + DataTypeName(out.type));
  }
  if (RunSameShapeFloat(ctx, act)) return OkStatus();
  constexpr bool kIntegers = !std::is_same_v<decltype(int_fn(int32_t{}, int32_t{})), NoInteger>;
  switch (a.type) {
    case DataType::kFloat32: return RunArithmetic<float>(ctx, float_fn, act);
    case DataType::kInt32:
      if constexpr (kIntegers) {
        GLD_RETURN_IF_ERROR(CheckIntegerRhs<int32_t>(ctx, b, int_rhs));
        return RunArithmetic<int32_t>(ctx, int_fn, act);
      }
      break;
    case DataType::kInt64:
      if constexpr (kIntegers) {
        GLD_RETURN_IF_ERROR(CheckIntegerRhs<int64_t>(ctx, b, int_rhs));
        return RunArithmetic<int64_t>(ctx, int_fn, act);
      }
      break;
    default: break;
  }
  return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(a.type) + " is not supported");
}

}  // namespace

// The kernels of the elementwise table's binary rows.
#define GLD_EW_NONE NoInteger{}
#define GLD_EW_UNARY(...)
#define GLD_EW_GL(...)
#define GLD_EW_BINARY(Name, tflite_name, known_values, cpu_float, cpu_int, int_rhs, glsl)              \
  Status Run##Name(KernelContext& ctx) {                                                                \
    return RunBinary(                                                                                   \
        ctx, []([[maybe_unused]] auto x, [[maybe_unused]] auto y) { return cpu_float; },              \
        []([[maybe_unused]] auto x, [[maybe_unused]] auto y) { return cpu_int; }, IntRhs::int_rhs);    \
  }
#include "graph/elementwise_ops.inc"
#undef GLD_EW_BINARY
#undef GLD_EW_GL
#undef GLD_EW_UNARY
#undef GLD_EW_NONE

}  // namespace gld::cpu
