// DENSIFY of a sparse constant becomes a dense constant: the node is removed
// and its output tensor holds the dense values (same type and quantization as
// the sparse input, so a following DEQUANTIZE can fold too).
#include "cpu_kernels/ops/densify.h"
#include "transforms/pass.h"

namespace gld {

Status FoldConstantDensify(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.op != OpType::kDensify || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
    int in_index = node.inputs[0], out_index = node.outputs[0];
    if (in_index < 0 || static_cast<size_t>(in_index) >= graph.tensors.size() || out_index < 0 ||
        static_cast<size_t>(out_index) >= graph.tensors.size() || in_index == out_index) {
      continue;
    }
    const Tensor& in = graph.tensors[in_index];
    if (!in.is_constant || !in.sparsity.has_value()) continue;
    std::vector<uint8_t> dense;
    Status s = cpu::DensifyTensor(in, &dense);
    if (!s.ok()) return s.WithContext(graph.NodeLabel(i) + ": sparse constant '" + in.name + "'");
    const size_t expected = ShapeIsValid(in.shape)
                                ? static_cast<size_t>(in.num_elements()) * DataTypeSize(in.type)
                                : 0;
    if (dense.size() != expected) {
      return InternalError(graph.NodeLabel(i) + ": densifying '" + in.name + "' gave " +
                           std::to_string(dense.size()) + " bytes, expected " + std::to_string(expected));
    }
    Tensor& out = graph.tensors[out_index];
    out.type = in.type;
    out.shape = in.shape;
    out.quant = in.quant;
    out.sparsity.reset();
    out.data = std::move(dense);
    out.is_constant = true;
    remove[i] = true;
    any = true;
    log.Add("fold_constant_densify", graph.NodeLabel(i) + " -> constant tensor " + DescribeTensor(graph, out_index));
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
