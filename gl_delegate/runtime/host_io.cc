// Host buffers of the app's bound as graph inputs and outputs
// (Interpreter::BindInputHostBuffer / BindOutputHostBuffer): the app's
// memory takes the place of the tensor's own storage, so a state the model
// takes in and gives back (a decoder's KV cache) needs no copy per run.
// An input and an output bound to the same bytes are one state updated in
// place: allowed only where the output's producer is the input's last
// reader and reads it before writing (a GPU segment, or a
// DYNAMIC_UPDATE_SLICE / STABLEHLO_SCATTER whose operand it is).
#include <algorithm>
#include <cstdint>
#include <string>

#include "runtime/runtime.h"
#include "util/single_user.h"

namespace gld {

namespace {

bool UpdatesOperandInPlace(const Node& node, int operand) {
  return (node.op == OpType::kDynamicUpdateSlice || node.op == OpType::kStablehloScatter) && !node.inputs.empty() &&
         node.inputs[0] == operand &&
         std::count(node.inputs.begin(), node.inputs.end(), operand) == 1;
}

}  // namespace

Status Runtime::BindHostBuffer(bool input, int index, void* data, size_t bytes) {
  GLD_HOLD_SINGLE_USER(in_use_, input ? "BindInputHostBuffer" : "BindOutputHostBuffer");
  std::string what;
  GLD_ASSIGN_OR_RETURN(const int t, IoTensor(input, index, &what));
  const auto ut = static_cast<size_t>(t);
  if (!gl_io_.empty() && (gl_io_[ut].buffer != 0 || gl_io_[ut].texture != 0 || gl_io_[ut].keep_on_gpu)) {
    return FailedPreconditionError(what + " is bound to a GL object; unbind it before binding host memory");
  }
  for (const auto& bound : cpu_bound_outputs_) {
    if (bound.first == t) return FailedPreconditionError(what + " is bound to a GL buffer; unbind it first");
  }
  if (memory_.storage[ut] != TensorStorage::kDedicated || graph_.IsGraphInput(t) == graph_.IsGraphOutput(t)) {
    return FailedPreconditionError(what + " has no storage of its own to replace (a constant, a tensor whose size "
                                   "is known only at run time, or an input passed through as an output)");
  }
  if (bytes != tensors_[ut].bytes) {
    return InvalidArgumentError(what + " needs " + std::to_string(tensors_[ut].bytes) + " bytes, got " +
                                std::to_string(bytes));
  }
  const size_t align = std::max<size_t>(DataTypeSize(graph_.tensors[ut].type), 1);
  if (data == nullptr || reinterpret_cast<uintptr_t>(data) % align != 0) {
    return InvalidArgumentError(what + ": host memory must be non-null and aligned to " + std::to_string(align) +
                                " bytes");
  }
  if (own_data_.empty()) own_data_.assign(graph_.tensors.size(), nullptr);
  if (own_data_[ut] == nullptr) own_data_[ut] = tensors_[ut].data;
  void* before = tensors_[ut].data;
  tensors_[ut].data = data;
  ++storage_version_;
  Status shared = CheckSharedHostMemory();
  if (!shared.ok()) tensors_[ut].data = before;
  return shared;
}

void Runtime::UnbindHostBuffer(int t) {
  const auto ut = static_cast<size_t>(t);
  if (own_data_.empty() || own_data_[ut] == nullptr) return;
  tensors_[ut].data = own_data_[ut];
  own_data_[ut] = nullptr;
  ++storage_version_;
}

bool Runtime::HasHostBindings() const {
  return std::any_of(own_data_.begin(), own_data_.end(), [](const void* p) { return p != nullptr; });
}

Status Runtime::CheckSharedHostMemory() const {
  auto bound = [&](int t) { return !own_data_.empty() && own_data_[static_cast<size_t>(t)] != nullptr; };
  auto overlap = [&](int a, int b) {
    const auto* pa = static_cast<const uint8_t*>(tensors_[static_cast<size_t>(a)].data);
    const auto* pb = static_cast<const uint8_t*>(tensors_[static_cast<size_t>(b)].data);
    return pa < pb + tensors_[static_cast<size_t>(b)].bytes && pb < pa + tensors_[static_cast<size_t>(a)].bytes;
  };
  auto describe = [&](bool input, int t) {
    const std::vector<int>& ids = input ? graph_.inputs : graph_.outputs;
    const auto index = static_cast<int>(std::find(ids.begin(), ids.end(), t) - ids.begin());
    return DescribeIo(input ? "input" : "output", index, graph_.tensors[static_cast<size_t>(t)]);
  };
  for (size_t a = 0; a < graph_.outputs.size(); ++a) {
    const int y = graph_.outputs[a];
    if (!bound(y)) continue;
    for (size_t b = a + 1; b < graph_.outputs.size(); ++b) {
      if (bound(graph_.outputs[b]) && overlap(y, graph_.outputs[b])) {
        return InvalidArgumentError(describe(false, y) + " and " + describe(false, graph_.outputs[b]) +
                                    " are bound to overlapping host memory: two outputs cannot share it");
      }
    }
    for (int x : graph_.inputs) {
      if (!bound(x) || !overlap(x, y)) continue;
      GLD_RETURN_IF_ERROR(CheckInPlaceUpdate(x, y, describe(false, y) + " and " + describe(true, x) +
                                                       " share host memory"));
    }
  }
  return OkStatus();
}

Status Runtime::CheckInPlaceUpdate(int x, int y, const std::string& pair) const {
  const cpu::TensorData& dx = tensors_[static_cast<size_t>(x)];
  const cpu::TensorData& dy = tensors_[static_cast<size_t>(y)];
  if (dx.data != dy.data || dx.bytes != dy.bytes || dx.shape != dy.shape || dx.type != dy.type) {
    return InvalidArgumentError(pair + ": an output may update an input in place only at the same address, with "
                                "one shape and type");
  }
  size_t writer = plan_.steps.size();
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const std::vector<int> made = plan_.steps[s]->host_outputs();
    if (std::find(made.begin(), made.end(), y) != made.end()) writer = s;
  }
  if (writer == plan_.steps.size()) return InvalidArgumentError(pair + ", but no step makes the output");
  const Step& w = *plan_.steps[writer];
  for (size_t s = 0; s < plan_.steps.size(); ++s) {
    const std::vector<int> reads = plan_.steps[s]->host_inputs();
    if (std::find(reads.begin(), reads.end(), x) == reads.end()) continue;
    if (s > writer) {
      return FailedPreconditionError(pair + ", but " + plan_.steps[s]->label() + " reads the input after " +
                                     w.label() + " writes the output: it would read it already updated; bind the "
                                     "output to other memory (ping-pong)");
    }
    if (s < writer || w.RunsOnGpu()) continue;  // a GPU segment uploads its inputs before it writes
    const auto* cpu_step = dynamic_cast<const CpuNodeStep*>(&w);
    const Node* node = cpu_step != nullptr ? &graph_.nodes[cpu_step->node_index()] : nullptr;
    if (node == nullptr || node->outputs.empty() || node->outputs[0] != y || !UpdatesOperandInPlace(*node, x)) {
      return FailedPreconditionError(pair + ", but " + w.label() + " reads the input while it writes the output; "
                                     "only a DYNAMIC_UPDATE_SLICE or STABLEHLO_SCATTER whose operand is the input "
                                     "updates it in place; bind the output to other memory (ping-pong)");
    }
  }
  return OkStatus();
}

}  // namespace gld
