// Zero-copy GL I/O of the Runtime: graph inputs and outputs bound to an
// app's GL buffers and textures. A GPU segment step uses a bound object in
// place of the tensor's host storage (StepContext::gl_io); where a CPU node
// reads a bound input or writes a bound output, the runtime copies it
// through the host storage (counted in the transfer stats), so any
// placement works. A texture input needs every reader on the GPU.
#include <algorithm>

#include "gl/codegen/phwc4.h"
#include "runtime/gpu_backend.h"
#include "runtime/runtime.h"
#include "util/trace_recorder.h"

#include "util/single_user.h"

namespace gld {

void Runtime::FindHostUses() {
  if (!cpu_reader_.empty()) return;
  cpu_reader_.assign(graph_.tensors.size(), std::string());
  gpu_writes_.assign(graph_.tensors.size(), 0);
  gpu_reads_.assign(graph_.tensors.size(), 0);
  for (const auto& step : plan_.steps) {
    if (dynamic_cast<const CpuNodeStep*>(step.get()) != nullptr) {
      for (int t : step->host_inputs()) {
        if (cpu_reader_[static_cast<size_t>(t)].empty()) cpu_reader_[static_cast<size_t>(t)] = step->label();
      }
    } else {
      for (int t : step->host_outputs()) gpu_writes_[static_cast<size_t>(t)] = 1;
      for (int t : step->host_inputs()) gpu_reads_[static_cast<size_t>(t)] = 1;
    }
  }
}

StatusOr<int> Runtime::IoTensor(bool input, int index, std::string* what) const {
  const std::vector<int>& ids = input ? graph_.inputs : graph_.outputs;
  const char* kind = input ? "input" : "output";
  if (index < 0 || static_cast<size_t>(index) >= ids.size()) {
    return OutOfRangeError(std::string(kind) + " index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(ids.size()) + " " + kind + "(s)");
  }
  const int t = ids[static_cast<size_t>(index)];
  *what = DescribeIo(kind, index, graph_.tensors[static_cast<size_t>(t)]);
  return t;
}

StatusOr<int> Runtime::BindableTensor(bool input, int index, uint32_t name, std::string* what) {
  GLD_ASSIGN_OR_RETURN(const int t, IoTensor(input, index, what));
  const Tensor& tensor = graph_.tensors[static_cast<size_t>(t)];
  if (gpu_ == nullptr) {
    return FailedPreconditionError(*what + ": binding a GL object needs the GL backend; this interpreter runs "
                                   "every node on the CPU (backend " + BackendName(backend_in_use_) + ")");
  }
  if (tensor.type != DataType::kFloat32) {
    return InvalidArgumentError(*what + ": only float32 tensors can be bound to GL objects");
  }
  if (name == 0) return InvalidArgumentError(*what + ": GL name 0 names no object");
  if (!own_data_.empty() && own_data_[static_cast<size_t>(t)] != nullptr) {
    return FailedPreconditionError(*what + " is bound to host memory; unbind it before binding a GL object");
  }
  FindHostUses();
  if (gl_io_.empty()) gl_io_.assign(graph_.tensors.size(), TensorGlIo());
  return t;
}

StatusOr<uint64_t> Runtime::BoundBytes(int t, GlLayout layout, const std::string& what) const {
  if (layout == GlLayout::kBhwc) return static_cast<uint64_t>(tensors_[static_cast<size_t>(t)].bytes);
  if (report_.precision != Precision::kFp32) {
    return InvalidArgumentError(what + ": a PHWC4 buffer holds fp32 vec4s; this interpreter stores " +
                                PrecisionName(report_.precision) + " (bind it as BHWC)");
  }
  auto bhwc = gl::ToBhwc(graph_.tensors[static_cast<size_t>(t)].shape);
  if (!bhwc.ok()) return InvalidArgumentError(what + ": " + bhwc.status().message());
  return std::max<uint64_t>(gl::Phwc4Bytes(*bhwc, Precision::kFp32), 16);
}

Status Runtime::BindInputBuffer(int index, uint32_t buffer, GlLayout layout) {
  std::string what;
  GLD_ASSIGN_OR_RETURN(int t, BindableTensor(true, index, buffer, &what));
  GLD_ASSIGN_OR_RETURN(uint64_t bytes, BoundBytes(t, layout, what));
  if (layout == GlLayout::kPhwc4 && !cpu_reader_[static_cast<size_t>(t)].empty()) {
    return FailedPreconditionError(what + " is read by " + cpu_reader_[static_cast<size_t>(t)] +
                                   " on the CPU; a PHWC4 buffer needs every reader on the GPU (bind it as BHWC)");
  }
  GLD_RETURN_IF_ERROR(gpu_->CheckBuffer(buffer, bytes, what));
  TensorGlIo io;
  io.buffer = buffer;
  io.phwc4 = layout == GlLayout::kPhwc4;
  const TensorGlIo before = gl_io_[static_cast<size_t>(t)];
  gl_io_[static_cast<size_t>(t)] = io;
  Status shared = CheckSharedBuffers();
  if (!shared.ok()) gl_io_[static_cast<size_t>(t)] = before;
  return shared;
}

Status Runtime::CheckSharedBuffers() const {
  std::vector<std::pair<int, uint32_t>> ins, outs;  // bound tensor, buffer
  for (int t : graph_.inputs) {
    if (gl_io_[static_cast<size_t>(t)].buffer != 0) ins.emplace_back(t, gl_io_[static_cast<size_t>(t)].buffer);
  }
  for (int t : graph_.outputs) {
    if (gl_io_[static_cast<size_t>(t)].buffer != 0) outs.emplace_back(t, gl_io_[static_cast<size_t>(t)].buffer);
  }
  outs.insert(outs.end(), cpu_bound_outputs_.begin(), cpu_bound_outputs_.end());
  auto describe = [&](bool input, int t) {
    const std::vector<int>& ids = input ? graph_.inputs : graph_.outputs;
    const auto index = static_cast<int>(std::find(ids.begin(), ids.end(), t) - ids.begin());
    return DescribeIo(input ? "input" : "output", index, graph_.tensors[static_cast<size_t>(t)]);
  };
  std::vector<uint8_t> prove(plan_.steps.size(), 0);
  for (size_t a = 0; a < outs.size(); ++a) {
    const auto [y, buffer] = outs[a];
    const std::string shares = describe(false, y) + " and ";
    for (size_t b = a + 1; b < outs.size(); ++b) {
      if (outs[b].second != buffer) continue;
      return InvalidArgumentError(shares + describe(false, outs[b].first) + " are bound to one GL buffer (" +
                                  std::to_string(buffer) + "): two outputs cannot share a buffer");
    }
    const bool made_on_cpu = gpu_writes_[static_cast<size_t>(y)] == 0;  // uploaded after every step
    size_t writer = plan_.steps.size();
    for (size_t s = 0; s < plan_.steps.size() && !made_on_cpu; ++s) {
      const std::vector<int> made = plan_.steps[s]->host_outputs();
      if (std::find(made.begin(), made.end(), y) != made.end()) writer = s;
    }
    for (const auto& [x, in_buffer] : ins) {
      if (in_buffer != buffer) continue;
      const std::string pair = shares + describe(true, x) + " share GL buffer " + std::to_string(buffer);
      const TensorGlIo& xi = gl_io_[static_cast<size_t>(x)];
      const TensorGlIo& yo = gl_io_[static_cast<size_t>(y)];
      if (!made_on_cpu && xi.phwc4 != yo.phwc4) {
        return InvalidArgumentError(pair + ": bind both in the same layout (BHWC or PHWC4)");
      }
      if (tensors_[static_cast<size_t>(x)].bytes != tensors_[static_cast<size_t>(y)].bytes ||
          graph_.tensors[static_cast<size_t>(x)].shape != graph_.tensors[static_cast<size_t>(y)].shape) {
        return InvalidArgumentError(pair + ": an output may update an input's buffer in place only when both have "
                                    "one shape");
      }
      // Bound inputs that CPU steps read are copied to the host before the
      // steps run; GPU steps read theirs as they run.
      for (size_t s = writer + 1; s < plan_.steps.size(); ++s) {
        const std::vector<int> reads = plan_.steps[s]->host_inputs();
        if (!plan_.steps[s]->RunsOnGpu() || std::find(reads.begin(), reads.end(), x) == reads.end()) continue;
        return FailedPreconditionError(pair + ", but " + plan_.steps[s]->label() + " reads the input after " +
                                       plan_.steps[writer]->label() + " writes the output: the input would be "
                                       "read already updated; bind the output to another buffer (ping-pong)");
      }
      if (writer < plan_.steps.size()) prove[writer] = 1;
    }
  }
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    if (prove[s] == 0) continue;
    Status proved = plan_.steps[s]->CheckBoundIo(gl_io_);
    if (!proved.ok()) {
      return FailedPreconditionError("an output shares an input's GL buffer, but the run would not order the "
                                     "accesses to it: " + proved.message() + "; bind the output to another buffer "
                                     "(ping-pong)");
    }
  }
  return OkStatus();
}

Status Runtime::BindInputTexture(int index, const TextureInput& texture) {
  std::string what;
  GLD_ASSIGN_OR_RETURN(int t, BindableTensor(true, index, texture.texture, &what));
  const Shape& shape = graph_.tensors[static_cast<size_t>(t)].shape;
  if (shape.size() != 4 || shape[0] != 1 || shape[3] < 1 || shape[3] > 4) {
    return InvalidArgumentError(what + ": a texture input needs a [1, H, W, C] tensor with C from 1 to 4");
  }
  if (!cpu_reader_[static_cast<size_t>(t)].empty()) {
    return FailedPreconditionError(what + " is read by " + cpu_reader_[static_cast<size_t>(t)] +
                                   " on the CPU; a texture input needs every reader on the GPU (bind a buffer "
                                   "or use SetInput)");
  }
  GLD_RETURN_IF_ERROR(
      gpu_->CheckTexture(texture.texture, static_cast<int>(shape[2]), static_cast<int>(shape[1]), what));
  TensorGlIo io;
  io.texture = texture.texture;
  std::copy(texture.scale, texture.scale + 4, io.scale);
  std::copy(texture.offset, texture.offset + 4, io.offset);
  gl_io_[static_cast<size_t>(t)] = io;
  return OkStatus();
}

Status Runtime::BindOutputBuffer(int index, uint32_t buffer, GlLayout layout) {
  std::string what;
  GLD_ASSIGN_OR_RETURN(int t, BindableTensor(false, index, buffer, &what));
  GLD_ASSIGN_OR_RETURN(uint64_t bytes, BoundBytes(t, layout, what));
  if (layout == GlLayout::kPhwc4 && (gpu_writes_[static_cast<size_t>(t)] == 0 ||
                                     !cpu_reader_[static_cast<size_t>(t)].empty() ||
                                     gpu_reads_[static_cast<size_t>(t)] != 0)) {
    return FailedPreconditionError(what + ": a PHWC4 output must be made by a GPU segment and read by no other "
                                   "step (bind it as BHWC)");
  }
  GLD_RETURN_IF_ERROR(gpu_->CheckBuffer(buffer, bytes, what));
  GLD_RETURN_IF_ERROR(UnbindOutput(index));
  if (gpu_writes_[static_cast<size_t>(t)] == 0) {
    // Made on the CPU (or an input passed through): uploaded after the run.
    cpu_bound_outputs_.emplace_back(t, buffer);
  } else {
    TensorGlIo io;
    io.buffer = buffer;
    io.phwc4 = layout == GlLayout::kPhwc4;
    io.host_too = !cpu_reader_[static_cast<size_t>(t)].empty();
    gl_io_[static_cast<size_t>(t)] = io;
  }
  // A refused buffer leaves the output unbound.
  Status shared = CheckSharedBuffers();
  if (!shared.ok()) GLD_RETURN_IF_ERROR(UnbindOutput(index));
  return shared;
}

Status Runtime::KeepOutputOnGpu(int index) {
  std::string what;
  GLD_ASSIGN_OR_RETURN(int t, BindableTensor(false, index, ~0u, &what));
  uint32_t buffer = 0;
  for (const auto& step : plan_.steps) buffer = buffer != 0 ? buffer : step->OutputGlBuffer(t);
  if (buffer == 0) {
    return FailedPreconditionError(what + " is made on the CPU, so it has no GPU buffer to keep; bind one of the "
                                   "app's (BindOutputBuffer) instead");
  }
  GLD_RETURN_IF_ERROR(gpu_->CheckBuffer(buffer, tensors_[static_cast<size_t>(t)].bytes, what));
  GLD_RETURN_IF_ERROR(UnbindOutput(index));
  TensorGlIo io;
  io.keep_on_gpu = true;
  io.host_too = !cpu_reader_[static_cast<size_t>(t)].empty() || gpu_reads_[static_cast<size_t>(t)] != 0;
  gl_io_[static_cast<size_t>(t)] = io;
  return OkStatus();
}

StatusOr<uint32_t> Runtime::OutputGlBuffer(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= graph_.outputs.size()) {
    return OutOfRangeError("output index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(graph_.outputs.size()) + " output(s)");
  }
  const int t = graph_.outputs[static_cast<size_t>(index)];
  if (gl_io_.empty() || !gl_io_[static_cast<size_t>(t)].keep_on_gpu) {
    return FailedPreconditionError(DescribeIo("output", index, graph_.tensors[static_cast<size_t>(t)]) +
                                   " is not kept on the GPU (KeepOutputOnGpu)");
  }
  uint32_t buffer = 0;
  for (const auto& step : plan_.steps) buffer = buffer != 0 ? buffer : step->OutputGlBuffer(t);
  return buffer;
}

Status Runtime::UnbindInput(int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph_.inputs.size()) {
    return OutOfRangeError("input index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(graph_.inputs.size()) + " input(s)");
  }
  if (!gl_io_.empty()) gl_io_[static_cast<size_t>(graph_.inputs[static_cast<size_t>(index)])] = TensorGlIo();
  UnbindHostBuffer(graph_.inputs[static_cast<size_t>(index)]);
  return OkStatus();
}

Status Runtime::UnbindOutput(int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph_.outputs.size()) {
    return OutOfRangeError("output index " + std::to_string(index) + " is out of range: the model has " +
                           std::to_string(graph_.outputs.size()) + " output(s)");
  }
  const int t = graph_.outputs[static_cast<size_t>(index)];
  if (!gl_io_.empty()) gl_io_[static_cast<size_t>(t)] = TensorGlIo();
  UnbindHostBuffer(t);
  cpu_bound_outputs_.erase(std::remove_if(cpu_bound_outputs_.begin(), cpu_bound_outputs_.end(),
                                          [t](const std::pair<int, uint32_t>& b) { return b.first == t; }),
                           cpu_bound_outputs_.end());
  return OkStatus();
}

Status Runtime::CopyBoundInputsToHost() {
  if (gl_io_.empty()) return OkStatus();
  for (int t : graph_.inputs) {
    const TensorGlIo& io = gl_io_[static_cast<size_t>(t)];
    if (io.buffer == 0 || cpu_reader_[static_cast<size_t>(t)].empty()) continue;
    cpu::TensorData& d = tensors_[static_cast<size_t>(t)];
    Status s = gpu_->ReadBuffer(io.buffer, d.data, d.bytes);
    if (!s.ok()) return s.WithContext("reading bound GL buffer " + std::to_string(io.buffer) + " of tensor '" +
                                      graph_.tensors[static_cast<size_t>(t)].name + "' for the CPU");
    downloaded_[static_cast<size_t>(t)] += d.bytes;
  }
  return OkStatus();
}

Status Runtime::CopyBoundOutputsFromHost() {
  for (const auto& [t, buffer] : cpu_bound_outputs_) {
    const cpu::TensorData& d = tensors_[static_cast<size_t>(t)];
    Status s = gpu_->WriteBuffer(buffer, d.data, d.bytes);
    if (!s.ok()) return s.WithContext("writing bound GL buffer " + std::to_string(buffer) + " of tensor '" +
                                      graph_.tensors[static_cast<size_t>(t)].name + "'");
    uploaded_[static_cast<size_t>(t)] += d.bytes;
  }
  return OkStatus();
}

StatusOr<void*> Runtime::InvokeAsync() {
  GLD_HOLD_SINGLE_USER(in_use_, "InvokeAsync");
  if (gpu_ == nullptr) {
    return FailedPreconditionError("InvokeAsync needs the GL backend; this interpreter runs every node on the CPU "
                                   "(backend " + std::string(BackendName(backend_in_use_)) + ")");
  }
  GLD_RETURN_IF_ERROR(gpu_->CheckSharesAppObjects("InvokeAsync"));
  Status s = RunSteps(true);
  if (trace_ != nullptr) trace_->EndRun();  // one run of the trace's ring, as Invoke's
  GLD_RETURN_IF_ERROR(s);
  return gpu_->InsertFence();
}

TransferStats Runtime::transfer_stats() const {
  TransferStats stats;
  for (size_t t = 0; t < uploaded_.size(); ++t) {
    stats.uploaded_bytes += uploaded_[t];
    stats.downloaded_bytes += downloaded_[t];
  }
  for (int t : graph_.inputs) stats.input_uploaded_bytes.push_back(uploaded_[static_cast<size_t>(t)]);
  for (int t : graph_.outputs) stats.output_downloaded_bytes.push_back(downloaded_[static_cast<size_t>(t)]);
  return stats;
}

}  // namespace gld
