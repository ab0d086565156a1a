// Shape arithmetic that the input shapes decide. The converter writes a
// Keras Reshape with a free batch dimension (EfficientNet's and MobileNetV3's
// squeeze-excite, ConvNeXt's layer scale) as SHAPE -> STRIDED_SLICE -> PACK ->
// RESHAPE, or with REDUCE_PROD / GATHER / CONCATENATION on int32. Shape
// inference computes those small integer values for the shapes being planned
// (graph/shape_inference.h, the value oracle); a node whose every output it
// computed need not run for these shapes. Its outputs become constants of the
// plan and the node goes, so a RESHAPE reads a constant shape (which the GPU
// takes) and no CPU step is left between GPU nodes. Not a default pass: the
// values hold for one set of input shapes, and the Runtime folds again when
// it plans for others.
#include <string>
#include <vector>

#include "cpu_kernels/kernel_interface.h"
#include "graph/shape_inference.h"
#include "transforms/pass.h"

namespace gld {

Status FoldKnownValues(Graph& graph, const std::map<int, std::vector<uint8_t>>& known, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& node = graph.nodes[i];
    if (node.outputs.empty()) continue;
    bool all_known = true;
    for (int t : node.outputs) {
      const auto it = known.find(t);
      all_known = all_known && ValidTensor(graph, t) && it != known.end() && !graph.IsGraphOutput(t) &&
                  !graph.tensors[static_cast<size_t>(t)].is_variable &&
                  it->second.size() == static_cast<size_t>(graph.tensors[static_cast<size_t>(t)].num_elements()) *
                                           DataTypeSize(graph.tensors[static_cast<size_t>(t)].type);
    }
    if (!all_known) continue;
    std::string values;
    for (int t : node.outputs) {
      Tensor& tensor = graph.tensors[static_cast<size_t>(t)];
      const std::vector<uint8_t>& bytes = known.at(t);
      tensor.data = ConstantData::CopyOf(bytes.data(), bytes.size());
      tensor.is_constant = true;
      values += (values.empty() ? "" : ", ") + DescribeTensor(graph, t);
    }
    log.Add("fold_known_values", graph.NodeLabel(i) + " computes " + values + " from the input shapes: constant");
    remove[i] = true;
    any = true;
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

Status InferShapesAndFold(Graph& graph, std::vector<uint8_t>* dynamic, PassLog& log) {
  std::map<int, std::vector<uint8_t>> known;
  GLD_RETURN_IF_ERROR(InferShapes(graph, cpu::KnownValueOracle(), dynamic, &known));
  return FoldKnownValues(graph, known, log);
}

}  // namespace gld
