// Ops that only relabel the shape: RESHAPE, SQUEEZE, EXPAND_DIMS. The output
// shape is final (shape inference); the data is copied unchanged. RESHAPE
// checks a run-time shape input against that shape.
#include <cstring>
#include <string>
#include <vector>

#include "cpu_kernels/ops/op_kernels.h"

namespace gld::cpu {

namespace {
Status CopyData(KernelContext& ctx, size_t min_inputs, size_t max_inputs) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, min_inputs, max_inputs, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (in.type != out.type || in.num_elements() != out.num_elements()) {
    return KernelError(ctx, "input " + ShapeToString(in.shape) + " " + DataTypeName(in.type) + " and output " +
                                ShapeToString(out.shape) + " " + DataTypeName(out.type) +
                                " differ in element count or type");
  }
  const size_t bytes = static_cast<size_t>(in.num_elements()) * DataTypeSize(in.type);
  if (bytes > 0 && out.data != in.data) std::memmove(out.data, in.data, bytes);
  return OkStatus();
}
}  // namespace

// A shape input that is not constant and whose values shape inference could
// not compute (a model input, say) was planned with the file's stored shape:
// its values at this run must give that shape. An output shape that depends
// on values computed at run time (a dynamic tensor) is refused, not run into
// the planned shape.
Status CheckRunTimeShape(const KernelContext& ctx) {
  if (ctx.inputs.size() < 2 || ctx.inputs[1] == nullptr || ctx.InputIsConstant(1)) return OkStatus();
  const TensorData& s = *ctx.inputs[1];
  const TensorData& out = *ctx.outputs[0];
  if (s.shape.size() != 1 || s.data == nullptr || (s.type != DataType::kInt32 && s.type != DataType::kInt64)) {
    return OkStatus();
  }
  const int64_t n = s.num_elements();
  std::vector<int64_t> dims(static_cast<size_t>(n));
  for (int64_t d = 0; d < n; ++d) {
    dims[static_cast<size_t>(d)] = s.type == DataType::kInt32 ? s.as<int32_t>()[d] : s.as<int64_t>()[d];
  }
  int64_t known = 1, free_dim = -1;
  for (int64_t d = 0; d < n; ++d) {
    if (dims[static_cast<size_t>(d)] == -1 && free_dim < 0) {
      free_dim = d;
    } else {
      known *= dims[static_cast<size_t>(d)];
    }
  }
  if (free_dim >= 0 && known > 0) dims[static_cast<size_t>(free_dim)] = ctx.inputs[0]->num_elements() / known;
  bool same = dims.size() == out.shape.size();
  for (size_t d = 0; same && d < dims.size(); ++d) same = dims[d] == out.shape[d];
  if (same) return OkStatus();
  std::string held = "[";
  for (size_t d = 0; d < dims.size(); ++d) held += (d ? ", " : "") + std::to_string(dims[d]);
  return KernelUnimplemented(ctx, "the shape input asks for " + held + "] at this run, but the plan was made for " +
                              ShapeToString(out.shape) +
                              " (the file's shape): an output shape that depends on values computed at run time "
                              "is not supported");
}

Status RunReshape(KernelContext& ctx) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 2, 1));
  GLD_RETURN_IF_ERROR(CheckRunTimeShape(ctx));
  return CopyData(ctx, 1, 2);
}
Status RunSqueeze(KernelContext& ctx) { return CopyData(ctx, 1, 1); }
Status RunExpandDims(KernelContext& ctx) { return CopyData(ctx, 2, 2); }

}  // namespace gld::cpu
