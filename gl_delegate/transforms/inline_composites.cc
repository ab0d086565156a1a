// STABLEHLO_COMPOSITE nodes replaced by the nodes of their decomposition
// subgraph (a composite is defined as its decomposition; LiteRT runs it so).
// The callee's inputs become the node's inputs, its outputs the node's
// outputs; its other tensors are appended (constants shared, not copied).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "transforms/pass.h"

namespace gld {
namespace {

// A composite may call another; a chain longer than this is refused.
constexpr int kMaxRounds = 16;

Status InlineOne(Graph& graph, size_t k, PassLog& log) {
  const Node node = graph.nodes[k];  // a copy: graph.nodes changes below
  const auto& a = node.attrs<CompositeAttributes>();
  const std::string who = graph.NodeLabel(k) + " ('" + a.name + "')";
  if (graph.subgraphs == nullptr || a.decomposition_subgraph < 0 ||
      static_cast<size_t>(a.decomposition_subgraph) >= graph.subgraphs->size()) {
    return InvalidArgumentError(who + ": decomposition subgraph " + std::to_string(a.decomposition_subgraph) +
                                " is not in the model");
  }
  const Graph& callee = (*graph.subgraphs)[static_cast<size_t>(a.decomposition_subgraph)];
  if (callee.inputs.size() != node.inputs.size() || callee.outputs.size() != node.outputs.size()) {
    return InvalidArgumentError(who + ": decomposition " + callee.SubgraphLabel() + " takes " +
                                std::to_string(callee.inputs.size()) + " inputs and gives " +
                                std::to_string(callee.outputs.size()) + " outputs, the node has " +
                                std::to_string(node.inputs.size()) + " and " + std::to_string(node.outputs.size()));
  }
  std::vector<int> map(callee.tensors.size(), kNoTensor);
  for (size_t i = 0; i < callee.inputs.size(); ++i) map[static_cast<size_t>(callee.inputs[i])] = node.inputs[i];
  std::vector<char> produced(callee.tensors.size(), 0);
  for (const Node& n : callee.nodes) {
    for (int t : n.outputs) produced[static_cast<size_t>(t)] = 1;
  }
  std::vector<std::pair<int, int>> redirect;  // node output -> the tensor a pass-through output is
  for (size_t j = 0; j < callee.outputs.size(); ++j) {
    const auto t = static_cast<size_t>(callee.outputs[j]);
    if (produced[t] && map[t] == kNoTensor) {
      map[t] = node.outputs[j];
    } else {
      redirect.emplace_back(node.outputs[j], static_cast<int>(t));
    }
  }
  for (size_t t = 0; t < callee.tensors.size(); ++t) {
    if (map[t] != kNoTensor) continue;
    Tensor copy = callee.tensors[t];
    copy.name = a.name + "/" + copy.name;
    map[t] = static_cast<int>(graph.tensors.size());
    graph.tensors.push_back(std::move(copy));
  }
  for (const auto& [from, callee_tensor] : redirect) {
    for (int out : graph.outputs) {
      if (out == from) {
        return UnimplementedError(who + ": output '" + graph.tensors[static_cast<size_t>(from)].name +
                                  "' is a graph output its decomposition passes through unchanged");
      }
    }
    RedirectReaders(graph, from, map[static_cast<size_t>(callee_tensor)]);
  }
  std::vector<Node> body;
  for (const Node& n : callee.nodes) {
    Node copy = n;
    for (int& t : copy.inputs) t = t == kNoTensor ? kNoTensor : map[static_cast<size_t>(t)];
    for (int& t : copy.outputs) t = map[static_cast<size_t>(t)];
    copy.source_index = node.source_index;
    copy.fused_names.push_back(a.name);
    body.push_back(std::move(copy));
  }
  log.Add("inline_composites", who + " replaced by the " + std::to_string(body.size()) + " nodes of " +
                                   callee.SubgraphLabel());
  graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(k));
  graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(k), body.begin(), body.end());
  return OkStatus();
}

}  // namespace

Status InlineComposites(Graph& graph, PassLog& log) {
  for (int round = 0; round < kMaxRounds; ++round) {
    bool any = false;
    for (size_t k = graph.nodes.size(); k-- > 0;) {
      if (graph.nodes[k].op != OpType::kStablehloComposite) continue;
      GLD_RETURN_IF_ERROR(InlineOne(graph, k, log));
      any = true;
    }
    if (!any) return OkStatus();
  }
  return UnimplementedError("composites nested more than " + std::to_string(kMaxRounds) + " deep");
}

}  // namespace gld
