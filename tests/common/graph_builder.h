// Tiny helpers to build IR graphs for pass tests.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace gld::testing {

inline int AddTensor(Graph& g, const std::string& name, Shape shape, DataType type = DataType::kFloat32) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  g.tensors.push_back(std::move(t));
  return static_cast<int>(g.tensors.size()) - 1;
}

template <typename T>
int AddConstant(Graph& g, const std::string& name, Shape shape, DataType type, const std::vector<T>& values) {
  int t = AddTensor(g, name, std::move(shape), type);
  Tensor& tensor = g.tensors[t];
  tensor.is_constant = true;
  tensor.data = ConstantData::CopyOf(values.data(), values.size() * sizeof(T));
  return t;
}

// Per-tensor quantization parameters.
inline QuantizationParams Quant(float scale, int64_t zero_point, DataType storage = DataType::kUnknown) {
  QuantizationParams q;
  q.scale = {scale};
  q.zero_point = {zero_point};
  q.storage_type = storage;
  return q;
}

inline int AddQuantized(Graph& g, const std::string& name, Shape shape, DataType type, QuantizationParams q) {
  const int t = AddTensor(g, name, std::move(shape), type);
  g.tensors[static_cast<size_t>(t)].quant = std::move(q);
  return t;
}

// The graph's ops in order.
inline std::vector<OpType> Ops(const Graph& g) {
  std::vector<OpType> ops;
  for (const Node& n : g.nodes) ops.push_back(n.op);
  return ops;
}

inline int AddNode(Graph& g, OpType op, std::vector<int> inputs, std::vector<int> outputs, int source_index = -1,
                   Attributes attributes = {}) {
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.source_index = source_index < 0 ? static_cast<int>(g.nodes.size()) : source_index;
  n.attributes = std::move(attributes);
  g.nodes.push_back(std::move(n));
  return static_cast<int>(g.nodes.size()) - 1;
}

template <typename T>
std::vector<T> ConstantValues(const Tensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), t.data.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace gld::testing
