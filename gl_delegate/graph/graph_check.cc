#include "graph/graph_check.h"

namespace gld {

namespace {
std::string TensorRef(const Graph& g, int t) { return "tensor " + std::to_string(t) + " '" + g.tensors[t].name + "'"; }
}  // namespace

Status CheckGraphStructure(const Graph& graph) {
  const int num_tensors = static_cast<int>(graph.tensors.size());
  // available[t]: a value exists for t at the current point of execution.
  std::vector<bool> available(graph.tensors.size(), false);
  std::vector<bool> written(graph.tensors.size(), false);
  for (int t = 0; t < num_tensors; ++t) {
    const Tensor& tensor = graph.tensors[t];
    available[t] = tensor.is_constant || tensor.is_variable;
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    int t = graph.inputs[i];
    if (t < 0 || t >= num_tensors) {
      return InvalidArgumentError("graph input " + std::to_string(i) + " refers to tensor " + std::to_string(t) +
                                  ", but the graph has " + std::to_string(num_tensors) + " tensors");
    }
    if (graph.tensors[t].is_constant) {
      return InvalidArgumentError("graph input " + std::to_string(i) + " (" + TensorRef(graph, t) +
                                  ") is a constant");
    }
    available[t] = true;
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    int t = graph.outputs[i];
    if (t < 0 || t >= num_tensors) {
      return InvalidArgumentError("graph output " + std::to_string(i) + " refers to tensor " + std::to_string(t) +
                                  ", but the graph has " + std::to_string(num_tensors) + " tensors");
    }
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      int t = node.inputs[k];
      if (t == kNoTensor) continue;
      if (t < 0 || t >= num_tensors) {
        return InvalidArgumentError(graph.NodeLabel(n) + ": input " + std::to_string(k) + " refers to tensor " +
                                    std::to_string(t) + ", but the graph has " + std::to_string(num_tensors) +
                                    " tensors");
      }
      if (!available[t]) {
        return InvalidArgumentError(graph.NodeLabel(n) + ": input " + std::to_string(k) + " (" +
                                    TensorRef(graph, t) +
                                    ") is not a graph input or constant and no earlier node writes it");
      }
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      int t = node.outputs[k];
      if (t < 0 || t >= num_tensors) {
        return InvalidArgumentError(graph.NodeLabel(n) + ": output " + std::to_string(k) + " refers to tensor " +
                                    std::to_string(t) + ", but the graph has " + std::to_string(num_tensors) +
                                    " tensors");
      }
      const Tensor& tensor = graph.tensors[t];
      if (tensor.is_constant || graph.IsGraphInput(t)) {
        return InvalidArgumentError(graph.NodeLabel(n) + ": output " + std::to_string(k) + " (" +
                                    TensorRef(graph, t) + ") is a " +
                                    (tensor.is_constant ? "constant" : "graph input"));
      }
      if (written[t] && !tensor.is_variable) {
        return InvalidArgumentError(graph.NodeLabel(n) + ": output " + std::to_string(k) + " (" +
                                    TensorRef(graph, t) + ") is written by an earlier node too");
      }
      written[t] = true;
      available[t] = true;
    }
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    int t = graph.outputs[i];
    if (!available[t]) {
      return InvalidArgumentError("graph output " + std::to_string(i) + " (" + TensorRef(graph, t) +
                                  ") is never written");
    }
  }
  return OkStatus();
}

}  // namespace gld
