// Removes nodes none of whose outputs reaches a graph output and that have no
// side effects (NodeHasSideEffects).
#include <string>

#include "transforms/pass.h"

namespace gld {

Status RemoveDeadNodes(Graph& graph, PassLog& log) {
  const size_t num_tensors = graph.tensors.size();
  std::vector<bool> needed(num_tensors, false);
  for (int t : graph.outputs) {
    if (t >= 0 && static_cast<size_t>(t) < num_tensors) needed[t] = true;
  }
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t k = graph.nodes.size(); k-- > 0;) {
    const Node& node = graph.nodes[k];
    // A node with side effects (assigning a variable, running subgraphs)
    // stays whatever reads its outputs.
    bool live = NodeHasSideEffects(node);
    for (int t : node.outputs) {
      // A node writing a variable tensor has an effect beyond its outputs.
      if (t >= 0 && static_cast<size_t>(t) < num_tensors && (needed[t] || graph.tensors[t].is_variable)) live = true;
    }
    if (!live) {
      remove[k] = true;
      any = true;
      continue;
    }
    for (int t : node.inputs) {
      if (t >= 0 && static_cast<size_t>(t) < num_tensors) needed[t] = true;
    }
  }
  if (!any) return OkStatus();
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!remove[k]) continue;
    std::string outs;
    for (int t : graph.nodes[k].outputs) {
      if (!outs.empty()) outs += ", ";
      outs += DescribeTensor(graph, t);
    }
    log.Add("remove_dead_nodes", graph.NodeLabel(k) + " removed: no graph output depends on " + outs);
  }
  EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
