#include "graph/custom_node.h"

namespace gld {

namespace {

CustomTensorType TypeOf(const Graph& graph, int tensor) {
  CustomTensorType t;
  if (tensor < 0) {
    t.type = ElementType::kUnknown;
    return t;
  }
  const Tensor& src = graph.tensors[static_cast<size_t>(tensor)];
  t.type = ToElementType(src.type);
  t.shape.assign(src.shape.begin(), src.shape.end());
  return t;
}

}  // namespace

const CustomAttributes* GetCustomAttributes(const Node& node) {
  return std::get_if<CustomAttributes>(&node.attributes);
}

CustomOpNode MakeCustomOpNode(const Graph& graph, size_t node_index) {
  const Node& node = graph.nodes[node_index];
  CustomOpNode out;
  out.label = graph.NodeLabel(node_index);
  if (const CustomAttributes* a = GetCustomAttributes(node)) {
    out.name = a->name;
    out.version = a->version;
    if (a->options != nullptr && !a->options->empty()) {
      out.options = a->options->data();
      out.options_size = a->options->size();
    }
  }
  for (int t : node.inputs) out.inputs.push_back(TypeOf(graph, t));
  for (int t : node.outputs) out.outputs.push_back(TypeOf(graph, t));
  return out;
}

std::string UnregisteredCustomOpMessage(const CustomAttributes& attrs) {
  return "custom op '" + attrs.name + "' (version " + std::to_string(attrs.version) +
         ") is not registered: register it on the Options (gld::RegisterCustomOp, GldOptionsAddCustomOp) or load "
         "a library that does (gld::LoadCustomOpLibrary, the tools' --custom_ops=lib.so)";
}

}  // namespace gld
