#include "transforms/pass.h"

namespace gld {

std::string DescribeTensor(const Graph& graph, int tensor) {
  if (tensor < 0 || static_cast<size_t>(tensor) >= graph.tensors.size()) {
    return "tensor #" + std::to_string(tensor);
  }
  const Tensor& t = graph.tensors[static_cast<size_t>(tensor)];
  return "'" + t.name + "' " + ShapeToString(t.shape) + " " + DataTypeName(t.type);
}

void EraseNodes(Graph& graph, const std::vector<bool>& remove) {
  std::vector<Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (i >= remove.size() || !remove[i]) kept.push_back(std::move(graph.nodes[i]));
  }
  graph.nodes = std::move(kept);
}

}  // namespace gld
