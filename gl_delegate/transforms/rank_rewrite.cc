#include "transforms/rank_rewrite.h"

#include <utility>

namespace gld {

bool FullyFixed(const Graph& graph, int tensor) {
  if (!ValidTensor(graph, tensor)) return false;
  const Tensor& t = graph.tensors[static_cast<size_t>(tensor)];
  if (!ShapeIsValid(t.shape)) return false;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (!DimsFixed(graph, tensor, {d})) return false;
  }
  return true;
}

int AddActivationLike(Graph& graph, int like, const std::string& name, const Shape& shape) {
  const Tensor& src = graph.tensors[static_cast<size_t>(like)];
  Tensor t;
  t.name = name;
  t.type = src.type;
  t.quant = src.quant;
  t.shape = shape;
  graph.tensors.push_back(std::move(t));
  return static_cast<int>(graph.tensors.size()) - 1;
}

int AddInt32Constant(Graph& graph, const std::string& name, const std::vector<int32_t>& values) {
  Tensor t;
  t.name = name;
  t.type = DataType::kInt32;
  t.shape = {static_cast<int>(values.size())};
  t.is_constant = true;
  t.data = ConstantData::CopyOf(values.data(), values.size() * sizeof(int32_t));
  graph.tensors.push_back(std::move(t));
  return static_cast<int>(graph.tensors.size()) - 1;
}

Node MakeReshape(Graph& graph, int in, int out) {
  const Tensor& o = graph.tensors[static_cast<size_t>(out)];
  ReshapeAttributes attrs;
  attrs.new_shape.assign(o.shape.begin(), o.shape.end());
  attrs.has_new_shape = true;
  const int shape = AddInt32Constant(graph, o.name + "/shape", attrs.new_shape);
  Node node;
  node.op = OpType::kReshape;
  node.inputs = {in, shape};
  node.outputs = {out};
  node.attributes = std::move(attrs);
  return node;
}

void ReplaceNodes(Graph& graph, std::vector<std::vector<Node>>& replacements) {
  std::vector<Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (i < replacements.size() && !replacements[i].empty()) {
      for (Node& n : replacements[i]) nodes.push_back(std::move(n));
    } else {
      nodes.push_back(std::move(graph.nodes[i]));
    }
  }
  graph.nodes = std::move(nodes);
}

}  // namespace gld
