// Binary elementwise ops with broadcasting: arithmetic (ADD, SUB, MUL, DIV,
// MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD),
// comparisons (-> bool) and logical ops. float32, int32 and int64 where TFLite
// takes them; integer arithmetic wraps instead of overflowing.
#include <cmath>
#include <type_traits>

#include "cpu_kernels/broadcast.h"
#include "cpu_kernels/kernels.h"
#include "cpu_kernels/vector_ops.h"

namespace gld::cpu {

namespace {

enum class BinOp { kAdd, kSub, kMul, kDiv, kMax, kMin, kPow, kSquaredDiff, kFloorDiv, kFloorMod };

template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
// Truncating division; b != 0 checked by the caller. MIN / -1 wraps.
template <typename T>
T IntDiv(T a, T b) {
  if (b == -1) return WrapSub<T>(0, a);
  return a / b;
}
template <typename T>
T IntFloorDiv(T a, T b) {
  if (b == -1) return WrapSub<T>(0, a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
template <typename T>
T IntFloorMod(T a, T b) {
  if (b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T>
T IntPow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

template <typename T, typename Op>
Status SameTypeBinary(const KernelContext& ctx, const TensorData& a, const TensorData& b, TensorData& out, Op op) {
  return BroadcastBinary<T, T, T>(ctx, a, b, out, op);
}

template <typename T>
Status RunArithmetic(KernelContext& ctx, BinOp op, Activation act) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinOp::kAdd: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x + y; })); break;
      case BinOp::kSub: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x - y; })); break;
      case BinOp::kMul: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x * y; })); break;
      case BinOp::kDiv: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x / y; })); break;
      case BinOp::kMax: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x > y ? x : y; })); break;
      case BinOp::kMin: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x < y ? x : y; })); break;
      case BinOp::kPow: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return std::pow(x, y); })); break;
      case BinOp::kSquaredDiff: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return (x - y) * (x - y); })); break;
      case BinOp::kFloorDiv: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return std::floor(x / y); })); break;
      case BinOp::kFloorMod:
        GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) {
          T r = std::fmod(x, y);
          if (r != 0 && ((r < 0) != (y < 0))) r += y;
          return r;
        }));
        break;
    }
    ApplyActivationInPlace(act, out.as<float>(), out.num_elements());
  } else {
    if (op == BinOp::kDiv || op == BinOp::kFloorDiv || op == BinOp::kFloorMod || op == BinOp::kPow) {
      const T* pb = b.as<T>();
      for (int64_t i = 0; i < b.num_elements(); ++i) {
        if (op == BinOp::kPow ? pb[i] < 0 : pb[i] == 0) {
          return KernelError(ctx, op == BinOp::kPow ? "integer POW with a negative exponent (" + std::to_string(pb[i]) + ")"
                                                    : std::string("integer division by zero"));
        }
      }
    }
    switch (op) {
      case BinOp::kAdd: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return WrapAdd(x, y); })); break;
      case BinOp::kSub: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return WrapSub(x, y); })); break;
      case BinOp::kMul: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return WrapMul(x, y); })); break;
      case BinOp::kDiv: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return IntDiv(x, y); })); break;
      case BinOp::kMax: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x > y ? x : y; })); break;
      case BinOp::kMin: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return x < y ? x : y; })); break;
      case BinOp::kPow: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return IntPow(x, y); })); break;
      case BinOp::kSquaredDiff:
        GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { T d = WrapSub(x, y); return WrapMul(d, d); }));
        break;
      case BinOp::kFloorDiv: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return IntFloorDiv(x, y); })); break;
      case BinOp::kFloorMod: GLD_RETURN_IF_ERROR(SameTypeBinary<T>(ctx, a, b, out, [](T x, T y) { return IntFloorMod(x, y); })); break;
    }
    if (act != Activation::kNone) {
      if (!IsClampActivation(act)) return KernelUnimplemented(ctx, std::string("fused ") + ActivationName(act) + " on integers");
      T* p = out.as<T>();
      for (int64_t i = 0; i < out.num_elements(); ++i) p[i] = static_cast<T>(ApplyActivationInt(act, p[i]));
    }
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

// ADD, SUB, MUL and DIV of two float tensors of the output's shape: one
// vectorized pass with a clamp activation fused (vector_ops.h); false for
// anything else.
bool RunSameShapeFloat(KernelContext& ctx, BinOp op, Activation act) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (a.type != DataType::kFloat32 || a.shape != b.shape || a.shape != out.shape) return false;
  VectorOp vop;
  switch (op) {
    case BinOp::kAdd: vop = VectorOp::kAdd; break;
    case BinOp::kSub: vop = VectorOp::kSub; break;
    case BinOp::kMul: vop = VectorOp::kMul; break;
    case BinOp::kDiv: vop = VectorOp::kDiv; break;
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

Status RunBinary(KernelContext& ctx, BinOp op) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const Activation act = BinaryActivation(ctx);
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  const TensorData& out = *ctx.outputs[0];
  if (a.type != b.type || a.type != out.type) {
    return KernelError(ctx, std::string("input and output types differ: ") + DataTypeName(a.type) + ", " +
                                DataTypeName(b.type) + " -> " + DataTypeName(out.type));
  }
  if (RunSameShapeFloat(ctx, op, act)) return OkStatus();
  switch (a.type) {
    case DataType::kFloat32: return RunArithmetic<float>(ctx, op, act);
    case DataType::kInt32: return RunArithmetic<int32_t>(ctx, op, act);
    case DataType::kInt64: return RunArithmetic<int64_t>(ctx, op, act);
    default:
      return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(a.type) + " is not supported");
  }
}

}  // namespace


namespace {

enum class CmpOp { kEq, kNe, kGt, kGe, kLt, kLe };

template <typename T>
Status RunCompareT(KernelContext& ctx, CmpOp op) {
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  switch (op) {
    case CmpOp::kEq: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x == y; });
    case CmpOp::kNe: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x != y; });
    case CmpOp::kGt: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x > y; });
    case CmpOp::kGe: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x >= y; });
    case CmpOp::kLt: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x < y; });
    case CmpOp::kLe: return BroadcastBinary<T, T, bool>(ctx, a, b, out, [](T x, T y) { return x <= y; });
  }
  return OkStatus();
}

Status RunCompare(KernelContext& ctx, CmpOp op) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  const TensorData& a = *ctx.inputs[0];
  const TensorData& b = *ctx.inputs[1];
  GLD_RETURN_IF_ERROR(CheckType(ctx, *ctx.outputs[0], DataType::kBool, "output"));
  if (a.type != b.type) {
    return KernelError(ctx, std::string("input types differ: ") + DataTypeName(a.type) + " and " + DataTypeName(b.type));
  }
  switch (a.type) {
    case DataType::kFloat32: return RunCompareT<float>(ctx, op);
    case DataType::kInt32: return RunCompareT<int32_t>(ctx, op);
    case DataType::kInt64: return RunCompareT<int64_t>(ctx, op);
    case DataType::kInt8: return RunCompareT<int8_t>(ctx, op);
    case DataType::kUInt8: return RunCompareT<uint8_t>(ctx, op);
    case DataType::kInt16: return RunCompareT<int16_t>(ctx, op);
    case DataType::kBool:
      if (op == CmpOp::kEq || op == CmpOp::kNe) return RunCompareT<bool>(ctx, op);
      break;
    default: break;
  }
  return KernelUnimplemented(ctx, std::string("type ") + DataTypeName(a.type) + " is not supported");
}

Status RunLogical(KernelContext& ctx, bool is_and) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 2, 1));
  for (const TensorData* t : {ctx.inputs[0], ctx.inputs[1], static_cast<const TensorData*>(ctx.outputs[0])}) {
    GLD_RETURN_IF_ERROR(CheckType(ctx, *t, DataType::kBool, "operand"));
  }
  if (is_and) {
    return BroadcastBinary<bool, bool, bool>(ctx, *ctx.inputs[0], *ctx.inputs[1], *ctx.outputs[0],
                                             [](bool x, bool y) { return x && y; });
  }
  return BroadcastBinary<bool, bool, bool>(ctx, *ctx.inputs[0], *ctx.inputs[1], *ctx.outputs[0],
                                           [](bool x, bool y) { return x || y; });
}

}  // namespace

Status RunAdd(KernelContext& ctx) { return RunBinary(ctx, BinOp::kAdd); }
Status RunSub(KernelContext& ctx) { return RunBinary(ctx, BinOp::kSub); }
Status RunMul(KernelContext& ctx) { return RunBinary(ctx, BinOp::kMul); }
Status RunDiv(KernelContext& ctx) { return RunBinary(ctx, BinOp::kDiv); }
Status RunMaximum(KernelContext& ctx) { return RunBinary(ctx, BinOp::kMax); }
Status RunMinimum(KernelContext& ctx) { return RunBinary(ctx, BinOp::kMin); }
Status RunPow(KernelContext& ctx) { return RunBinary(ctx, BinOp::kPow); }
Status RunSquaredDifference(KernelContext& ctx) { return RunBinary(ctx, BinOp::kSquaredDiff); }
Status RunFloorDiv(KernelContext& ctx) { return RunBinary(ctx, BinOp::kFloorDiv); }
Status RunFloorMod(KernelContext& ctx) { return RunBinary(ctx, BinOp::kFloorMod); }
Status RunEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kEq); }
Status RunNotEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kNe); }
Status RunGreater(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kGt); }
Status RunGreaterEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kGe); }
Status RunLess(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kLt); }
Status RunLessEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kLe); }
Status RunLogicalAnd(KernelContext& ctx) { return RunLogical(ctx, true); }
Status RunLogicalOr(KernelContext& ctx) { return RunLogical(ctx, false); }

}  // namespace gld::cpu
