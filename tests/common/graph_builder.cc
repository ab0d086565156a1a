#include "common/graph_builder.h"

#include <utility>

namespace gld::testing {

int AddTensor(Graph& g, const std::string& name, Shape shape, DataType type) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  g.tensors.push_back(std::move(t));
  return static_cast<int>(g.tensors.size()) - 1;
}

QuantizationParams Quant(float scale, int64_t zero_point, DataType storage) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  q.storage_type = storage;
  return q;
}

QuantizationParams Quant(std::vector<float> scale, std::vector<int64_t> zero_point, int32_t dim, DataType storage) {
  QuantizationParams q;
  q.scale = std::move(scale);
  q.zero_point = std::move(zero_point);
  q.quantized_dimension = dim;
  q.storage_type = storage;
  return q;
}

int AddQuantized(Graph& g, const std::string& name, Shape shape, DataType type, QuantizationParams q) {
  const int t = AddTensor(g, name, std::move(shape), type);
  g.tensors[static_cast<size_t>(t)].quant = std::move(q);
  return t;
}

std::vector<OpType> Ops(const Graph& g) {
  std::vector<OpType> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

int AddNode(Graph& g, OpType op, std::vector<int> inputs, std::vector<int> outputs, int source_index,
            Attributes attributes) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.source_index = source_index < 0 ? static_cast<int>(g.nodes.size()) : source_index;
  n.attributes = std::move(attributes);
  g.nodes.push_back(std::move(n));
  return static_cast<int>(g.nodes.size()) - 1;
}

}  // namespace gld::testing
