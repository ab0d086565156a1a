// Ops that only relabel the shape: RESHAPE, SQUEEZE, EXPAND_DIMS. The output
// shape is final (shape inference); the data is copied unchanged.
#include <cstring>

#include "cpu_kernels/kernels.h"

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

Status RunReshape(KernelContext& ctx) { return CopyData(ctx, 1, 2); }
Status RunSqueeze(KernelContext& ctx) { return CopyData(ctx, 1, 1); }
Status RunExpandDims(KernelContext& ctx) { return CopyData(ctx, 2, 2); }

}  // namespace gld::cpu
