// Comparisons (EQUAL ... LESS_EQUAL, -> bool) and LOGICAL_AND / LOGICAL_OR
// with broadcasting (cpu_kernels/ops/broadcast.h), on every type TFLite takes.
// Apart from elementwise_binary.cc's arithmetic rows so that the two sets of
// BroadcastBinary instantiations compile in parallel.
#include "cpu_kernels/ops/broadcast.h"
#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

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

Status RunEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kEq); }
Status RunNotEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kNe); }
Status RunGreater(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kGt); }
Status RunGreaterEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kGe); }
Status RunLess(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kLt); }
Status RunLessEqual(KernelContext& ctx) { return RunCompare(ctx, CmpOp::kLe); }
Status RunLogicalAnd(KernelContext& ctx) { return RunLogical(ctx, true); }
Status RunLogicalOr(KernelContext& ctx) { return RunLogical(ctx, false); }

}  // namespace gld::cpu
