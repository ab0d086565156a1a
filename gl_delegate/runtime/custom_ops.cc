#include "runtime/custom_ops.h"

#include "graph/custom_node.h"

namespace gld {

std::shared_ptr<const CustomOp> FindCustomOp(const std::vector<std::shared_ptr<const CustomOp>>& ops,
                                             const std::string& name, int version) {
  std::shared_ptr<const CustomOp> any_version;
  for (const auto& op : ops) {
    if (op == nullptr || op->name != name) continue;
    if (op->version == version) return op;
    if (op->version == 0) any_version = op;
  }
  return any_version;
}

Status BindCustomOps(Graph& graph, const std::vector<std::shared_ptr<const CustomOp>>& ops) {
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    auto* a = std::get_if<CustomAttributes>(&node.attributes);
    if (node.op != OpType::kCustom || a == nullptr) continue;
    a->op = FindCustomOp(ops, a->name, a->version);
    if (a->op == nullptr && a->library != nullptr) {
      const std::shared_ptr<const LibraryCustomOp> library = a->library;  // a dies with the attributes
      node.op = library->op;
      node.attributes = library->attributes;
      continue;
    }
    if (a->op == nullptr) return UnimplementedError(graph.NodeLabel(i) + ": " + UnregisteredCustomOpMessage(*a));
  }
  return OkStatus();
}

}  // namespace gld
