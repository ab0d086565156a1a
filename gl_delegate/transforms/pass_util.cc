#include "transforms/pass.h"

#include <algorithm>
#include <cstring>
#include <utility>

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

bool ValidTensor(const Graph& graph, int tensor) {
  return tensor >= 0 && static_cast<size_t>(tensor) < graph.tensors.size();
}

int SoleReader(const Graph& graph, int tensor) {
  if (!ValidTensor(graph, tensor) || graph.IsGraphOutput(tensor)) return -1;
  const std::vector<size_t> readers = graph.Consumers(tensor);
  return readers.size() == 1 ? static_cast<int>(readers[0]) : -1;
}

bool DimsFixed(const Graph& graph, int tensor, std::initializer_list<size_t> dims) {
  if (!ValidTensor(graph, tensor)) return false;
  const Shape& signature = SignatureOf(graph.tensors[static_cast<size_t>(tensor)]);
  for (size_t d : dims) {
    if (d >= signature.size() || signature[d] < 0) return false;
  }
  return true;
}

bool TransposePermutation(const Graph& graph, const Node& node, std::vector<int64_t>* perm) {
  if (node.op != OpType::kTranspose || node.inputs.size() != 2 || node.outputs.size() != 1 ||
      !ConstantInts(graph, node.inputs[1], perm)) {
    return false;
  }
  const int64_t rank = static_cast<int64_t>(perm->size());
  std::vector<bool> seen(perm->size(), false);
  for (int64_t& p : *perm) {
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return false;
    seen[static_cast<size_t>(p)] = true;
  }
  return true;
}

bool OnlyReadBy(const Graph& graph, int tensor, size_t node) {
  if (!ValidTensor(graph, tensor) || graph.IsGraphOutput(tensor)) return false;
  const Tensor& t = graph.tensors[static_cast<size_t>(tensor)];
  if (t.is_constant || t.is_variable) return false;
  const std::vector<size_t> readers = graph.Consumers(tensor);
  return readers.size() == 1 && readers[0] == node;
}

namespace {

// The tensor's bytes, when it is a constant of `type` whose size matches its shape.
const Tensor* ConstantOfType(const Graph& graph, int tensor, DataType type) {
  if (!ValidTensor(graph, tensor)) return nullptr;
  const Tensor& t = graph.tensors[static_cast<size_t>(tensor)];
  if (!t.is_constant || t.type != type || t.sparsity.has_value() || !ShapeIsValid(t.shape)) return nullptr;
  if (t.data.size() != static_cast<size_t>(t.num_elements()) * DataTypeSize(type)) return nullptr;
  return &t;
}

}  // namespace

bool ConstantFloats(const Graph& graph, int tensor, std::vector<float>* values) {
  const Tensor* t = ConstantOfType(graph, tensor, DataType::kFloat32);
  if (t == nullptr) return false;
  values->resize(static_cast<size_t>(t->num_elements()));
  if (!values->empty()) std::memcpy(values->data(), t->data.data(), t->data.size());
  return true;
}

bool ConstantInts(const Graph& graph, int tensor, std::vector<int64_t>* values) {
  if (const Tensor* t = ConstantOfType(graph, tensor, DataType::kInt32)) {
    values->resize(static_cast<size_t>(t->num_elements()));
    for (size_t i = 0; i < values->size(); ++i) (*values)[i] = t->DataAs<int32_t>()[i];
    return true;
  }
  if (const Tensor* t = ConstantOfType(graph, tensor, DataType::kInt64)) {
    values->resize(static_cast<size_t>(t->num_elements()));
    if (!values->empty()) std::memcpy(values->data(), t->data.data(), t->data.size());
    return true;
  }
  return false;
}

int AddFloatConstant(Graph& graph, const std::string& name, const Shape& shape, const std::vector<float>& values) {
  Tensor t;
  t.name = name;
  t.type = DataType::kFloat32;
  t.shape = shape;
  t.is_constant = true;
  t.data = ConstantData::CopyOf(values.data(), values.size() * sizeof(float));
  graph.tensors.push_back(std::move(t));
  return static_cast<int>(graph.tensors.size()) - 1;
}

void RedirectReaders(Graph& graph, int from, int to) {
  for (Node& node : graph.nodes) std::replace(node.inputs.begin(), node.inputs.end(), from, to);
}

void NoteFused(const Graph& graph, Node& into, size_t absorbed) {
  const Node& a = graph.nodes[absorbed];
  into.fused_names.push_back(graph.NodeLabel(absorbed));
  into.fused_names.insert(into.fused_names.end(), a.fused_names.begin(), a.fused_names.end());
}

std::string ReplaceChain(Graph& graph, size_t at, Node fused, const std::vector<size_t>& chain,
                         std::vector<bool>& remove) {
  std::string labels;
  for (size_t n : chain) {
    NoteFused(graph, fused, n);
    labels += (labels.empty() ? "" : ", ") + graph.NodeLabel(n);
    remove[n] = true;
  }
  graph.nodes[at] = std::move(fused);
  remove[at] = false;
  return labels;
}

bool AnyTaken(const std::vector<size_t>& chain, const std::vector<bool>& remove) {
  for (size_t n : chain) {
    if (remove[n]) return true;
  }
  return false;
}

}  // namespace gld
