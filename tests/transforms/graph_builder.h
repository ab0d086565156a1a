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
