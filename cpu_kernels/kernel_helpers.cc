#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

namespace {
Status CheckBuffer(const KernelContext& ctx, const TensorData& t, const char* role, size_t i) {
  // Every kernel checks every buffer on every run: the element count comes
  // from the same pass as ShapeIsValid's test (no overflow, at most 2^40).
  constexpr int64_t kMaxElements = int64_t{1} << 40;
  int64_t n = 1;
  bool valid = true;
  for (int32_t d : t.shape) {
    if (d < 0 || __builtin_mul_overflow(n, static_cast<int64_t>(d), &n) || n > kMaxElements) {
      valid = false;
      break;
    }
  }
  if (!valid) {
    return KernelError(ctx, std::string(role) + " " + std::to_string(i) + " has invalid shape " +
                                ShapeToString(t.shape));
  }
  const size_t need = static_cast<size_t>(n) * DataTypeSize(t.type);
  if (t.bytes < need || (need > 0 && t.data == nullptr)) {
    return KernelError(ctx, std::string(role) + " " + std::to_string(i) + " buffer holds " +
                                std::to_string(t.bytes) + " bytes, shape " +
                                ShapeToString(t.shape) + " of " + DataTypeName(t.type) +
                                " needs " + std::to_string(need));
  }
  return OkStatus();
}
}  // namespace

Status CheckIo(const KernelContext& ctx, size_t min_inputs, size_t max_inputs, size_t outputs,
               size_t sized_by_kernel) {
  if (ctx.io_checked) return OkStatus();  // an earlier run of the same buffers passed
  if (ctx.inputs.size() < min_inputs || ctx.inputs.size() > max_inputs) {
    return KernelError(ctx, "expected " + std::to_string(min_inputs) +
                                (max_inputs != min_inputs ? ".." + std::to_string(max_inputs) : "") +
                                " inputs, got " + std::to_string(ctx.inputs.size()));
  }
  if (ctx.outputs.size() < outputs) {
    return KernelError(ctx, "expected " + std::to_string(outputs) + " outputs, got " +
                                std::to_string(ctx.outputs.size()));
  }
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i] == nullptr) {
      if (i < min_inputs) return KernelError(ctx, "input " + std::to_string(i) + " is missing");
      continue;
    }
    GLD_RETURN_IF_ERROR(CheckBuffer(ctx, *ctx.inputs[i], "input", i));
  }
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    if (ctx.outputs[i] == nullptr) return KernelError(ctx, "output " + std::to_string(i) + " is missing");
    if (i == sized_by_kernel) continue;
    GLD_RETURN_IF_ERROR(CheckBuffer(ctx, *ctx.outputs[i], "output", i));
  }
  return OkStatus();
}

Status CheckType(const KernelContext& ctx, const TensorData& t, DataType type, const char* what) {
  if (t.type != type) {
    return KernelUnimplemented(ctx, std::string(what) + ": expected " + DataTypeName(type) + ", got " +
                                        DataTypeName(t.type));
  }
  return OkStatus();
}

Status ReadInts(const KernelContext& ctx, const TensorData& t, const char* what,
                std::vector<int64_t>* out) {
  const int64_t n = t.num_elements();
  out->clear();
  if (t.type == DataType::kInt32) {
    const int32_t* p = t.as<int32_t>();
    out->assign(p, p + n);
  } else if (t.type == DataType::kInt64) {
    const int64_t* p = t.as<int64_t>();
    out->assign(p, p + n);
  } else {
    return KernelError(ctx, std::string(what) + " must be int32 or int64, got " + DataTypeName(t.type));
  }
  return OkStatus();
}

void ParallelForChunks(const KernelContext& ctx, int64_t n, int64_t grain,
                       const std::function<void(int64_t, int64_t)>& fn) {
  const int64_t chunks = (n + grain - 1) / grain;
  ctx.ParallelFor(chunks, [&](int64_t b, int64_t e) {
    const int64_t lo = b * grain;
    const int64_t hi = std::min(n, e * grain);
    if (lo < hi) fn(lo, hi);
  });
}

const Tensor* InputTensor(const KernelContext& ctx, size_t i) {
  if (ctx.graph == nullptr || ctx.node == nullptr || i >= ctx.node->inputs.size()) return nullptr;
  const int t = ctx.node->inputs[i];
  if (t < 0 || static_cast<size_t>(t) >= ctx.graph->tensors.size()) return nullptr;
  return &ctx.graph->tensors[static_cast<size_t>(t)];
}

const Tensor* OutputTensor(const KernelContext& ctx, size_t i) {
  if (ctx.graph == nullptr || ctx.node == nullptr || i >= ctx.node->outputs.size()) return nullptr;
  const int t = ctx.node->outputs[i];
  if (t < 0 || static_cast<size_t>(t) >= ctx.graph->tensors.size()) return nullptr;
  return &ctx.graph->tensors[static_cast<size_t>(t)];
}

Status GetConvIo(const KernelContext& ctx, ConvIo* io) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 2, 3, 1));
  io->in = ctx.inputs[0];
  io->filter = ctx.inputs[1];
  io->bias = OptionalInput(ctx, 2);
  io->out = ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, *io->in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, *io->filter, DataType::kFloat32, "filter"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, *io->out, DataType::kFloat32, "output"));
  if (io->bias) GLD_RETURN_IF_ERROR(CheckType(ctx, *io->bias, DataType::kFloat32, "bias"));
  const Shape& in = io->in->shape;
  const Shape& filter = io->filter->shape;
  const Shape& out = io->out->shape;
  if (in.size() != 4 || filter.size() != 4 || out.size() != 4) {
    return KernelError(ctx, "input, filter and output must be 4-D, got " + ShapeToString(in) + ", " +
                                ShapeToString(filter) + ", " + ShapeToString(out));
  }
  return OkStatus();
}

// KernelContext's own member (kernel_interface.h).
Status KernelContext::SizeOutput(size_t k, const Shape& shape) {
  if (size_output) return size_output(k, shape);
  if (outputs[k]->shape == shape) return OkStatus();
  const std::string name =
      graph != nullptr && node != nullptr ? graph->tensors[static_cast<size_t>(node->outputs[k])].name : "";
  return InvalidArgumentError("output " + std::to_string(k) + " '" + name + "' has shape " + ShapeToString(shape) +
                              " in this run, but the model fixes it to " + ShapeToString(outputs[k]->shape));
}

}  // namespace gld::cpu
