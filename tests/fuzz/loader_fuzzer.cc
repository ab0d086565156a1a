// libFuzzer entry: hostile bytes through the .tflite reader and gld::Model.
// Beyond "no crash", it checks the promises consumers rely on: indices in
// range, constant data sizes matching shapes, quantization params
// consistent with shapes. A broken promise traps.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/model_impl.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void CheckGraph(const gld::Graph& g) {
  const int n = static_cast<int>(g.tensors.size());
  for (int t : g.inputs) Check(t >= 0 && t < n);
  for (int t : g.outputs) Check(t >= 0 && t < n);
  for (const gld::Node& node : g.nodes) {
    for (int t : node.inputs) Check(t == gld::kNoTensor || (t >= 0 && t < n));
    for (int t : node.outputs) Check(t >= 0 && t < n);
  }
  for (const gld::Tensor& t : g.tensors) {
    Check(gld::ShapeIsValid(t.shape));
    if (t.is_constant && !t.sparsity) {
      Check(t.data.size() == static_cast<size_t>(t.num_elements()) * gld::DataTypeSize(t.type));
    }
    if (t.is_constant) Check(t.type != gld::DataType::kFloat16);
    if (t.quant.scale.size() > 1) {
      const int qd = t.quant.quantized_dimension;
      Check(qd >= 0 && static_cast<size_t>(qd) < t.shape.size());
      Check(static_cast<int64_t>(t.quant.scale.size()) == t.shape[static_cast<size_t>(qd)]);
    }
    if (!t.quant.zero_point.empty()) Check(t.quant.zero_point.size() == t.quant.scale.size());
    if (t.sparsity) {
      Check(t.sparsity->dim_metadata.size() == t.sparsity->traversal_order.size());
      Check(t.data.size() % gld::DataTypeSize(t.type) == 0);
    }
  }
}

}  // namespace

// Undefined behaviour is a finding, not a warning to scroll past.
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto impl = gld::BuildModelImpl(data, size);
  if (!impl.ok()) {
    Check(!impl.status().message().empty());
    return 0;
  }
  const gld::Model::Impl& m = **impl;
  CheckGraph(m.graph);
  Check(m.inputs.size() == m.graph.inputs.size());
  Check(m.outputs.size() == m.graph.outputs.size());
  Check(m.Nodes().size() == m.graph.nodes.size());
  Check(m.Fingerprint().size() == 16);
  return 0;
}
