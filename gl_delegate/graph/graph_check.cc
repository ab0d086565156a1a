#include "graph/graph_check.h"

#include <algorithm>

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

namespace {

std::string CallerLabel(const Graph& g, size_t node) {
  const Node& n = g.nodes[node];
  const int shown = n.source_index >= 0 ? n.source_index : static_cast<int>(node);
  return g.SubgraphLabel() + " node " + std::to_string(shown) + " (" + NodeOpName(n) + ")";
}

// Types of `tensors` of `g` (graph inputs or outputs, or a node's).
std::vector<DataType> TypesOf(const Graph& g, const std::vector<int>& tensors) {
  std::vector<DataType> types;
  for (int t : tensors) {
    types.push_back(t >= 0 && static_cast<size_t>(t) < g.tensors.size() ? g.tensors[static_cast<size_t>(t)].type
                                                                         : DataType::kUnknown);
  }
  return types;
}

// `callee`'s inputs (or outputs: `what`) must have the types `expected`.
Status CheckSignature(const std::string& caller, const SubgraphCall& call, const Graph& callee, const char* what,
                      const std::vector<DataType>& actual, const std::vector<DataType>& expected,
                      const std::string& expected_what) {
  const std::string who = caller + ": " + call.role + " " + callee.SubgraphLabel();
  if (actual.size() != expected.size()) {
    return InvalidArgumentError(who + " has " + std::to_string(actual.size()) + " " + what + ", " + expected_what +
                                " has " + std::to_string(expected.size()));
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] != expected[i]) {
      return InvalidArgumentError(who + " " + what + " " + std::to_string(i) + " is " + DataTypeName(actual[i]) +
                                  ", " + expected_what + " " + std::to_string(i) + " is " + DataTypeName(expected[i]));
    }
  }
  return OkStatus();
}

Status CheckCall(const Graph& g, size_t node, const SubgraphCall& call, const Graph& callee) {
  const Node& n = g.nodes[node];
  const std::string caller = CallerLabel(g, node);
  const std::vector<DataType> in = TypesOf(g, n.inputs), out = TypesOf(g, n.outputs);
  const std::vector<DataType> callee_in = TypesOf(callee, callee.inputs), callee_out = TypesOf(callee, callee.outputs);
  switch (n.op) {
    case OpType::kWhile:
      GLD_RETURN_IF_ERROR(CheckSignature(caller, call, callee, "inputs", callee_in, in, "the node's input"));
      if (std::string(call.role) == "cond") {
        return CheckSignature(caller, call, callee, "outputs", callee_out, {DataType::kBool}, "a condition's output");
      }
      GLD_RETURN_IF_ERROR(CheckSignature(caller, call, callee, "outputs", callee_out, in, "the node's input"));
      return CheckSignature(caller, call, callee, "outputs", callee_out, out, "the node's output");
    case OpType::kIf: {
      const std::vector<DataType> args(in.begin() + (in.empty() ? 0 : 1), in.end());
      GLD_RETURN_IF_ERROR(CheckSignature(caller, call, callee, "inputs", callee_in, args,
                                         "the node's inputs after the condition: input"));
      return CheckSignature(caller, call, callee, "outputs", callee_out, out, "the node's output");
    }
    case OpType::kCallOnce:
      GLD_RETURN_IF_ERROR(CheckSignature(caller, call, callee, "inputs", callee_in, {}, "an init subgraph"));
      return CheckSignature(caller, call, callee, "outputs", callee_out, {}, "an init subgraph");
    case OpType::kStablehloComposite:
      GLD_RETURN_IF_ERROR(CheckSignature(caller, call, callee, "inputs", callee_in, in, "the node's input"));
      return CheckSignature(caller, call, callee, "outputs", callee_out, out, "the node's output");
    default: return OkStatus();
  }
}

// Each level of nested calls prepares and runs its callee inside its
// caller's frames (Runtime::CreateCallee, the control-flow kernels), so a
// chain deeper than kMaxSubgraphNesting is refused before it can exhaust a
// thread's stack.
Status CheckCallNesting(const std::vector<Graph>& subgraphs, const std::vector<int>& nesting,
                        const std::vector<int>& deepest) {
  const auto worst = std::max_element(nesting.begin(), nesting.end());
  if (worst == nesting.end() || *worst <= kMaxSubgraphNesting) return OkStatus();
  const size_t top = static_cast<size_t>(worst - nesting.begin());
  std::string chain;
  int shown = 0;
  for (int s = static_cast<int>(top); s >= 0; s = deepest[static_cast<size_t>(s)], ++shown) {
    if (shown == 4 && *worst > 6) {
      chain += "... -> ";
      while (nesting[static_cast<size_t>(s)] > 1) s = deepest[static_cast<size_t>(s)];
    }
    chain += std::to_string(s) + (deepest[static_cast<size_t>(s)] >= 0 ? " -> " : "");
  }
  return InvalidArgumentError(subgraphs[top].SubgraphLabel() + " starts a chain of " + std::to_string(*worst) +
                              " nested subgraph calls (WHILE, IF, CALL_ONCE: subgraphs " + chain +
                              "), more than the " + std::to_string(kMaxSubgraphNesting) +
                              " gldelegate allows (each level prepares and runs inside the one that calls it, "
                              "on one thread's stack)");
}

}  // namespace

Status CheckSubgraphCalls(const std::vector<Graph>& subgraphs) {
  const int count = static_cast<int>(subgraphs.size());
  // Each subgraph's callees, for the recursion check below.
  std::vector<std::vector<std::pair<int, size_t>>> calls(subgraphs.size());
  for (size_t s = 0; s < subgraphs.size(); ++s) {
    const Graph& g = subgraphs[s];
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const SubgraphCall& call : CalledSubgraphs(g.nodes[i])) {
        if (call.subgraph < 0 || call.subgraph >= count) {
          return InvalidArgumentError(CallerLabel(g, i) + ": " + call.role + " subgraph index " +
                                      std::to_string(call.subgraph) + " is out of range, the model has " +
                                      std::to_string(count) + " subgraphs");
        }
        calls[s].push_back({call.subgraph, i});
      }
    }
  }
  // Depth-first over the calls (before the signatures: a subgraph calling
  // itself is told as a recursion); a subgraph met again on the current path is
  // a recursion (TFLite would never return from it).
  enum : uint8_t { kNew, kOnPath, kDone };
  std::vector<uint8_t> mark(subgraphs.size(), kNew);
  // Per subgraph: the longest chain of nested calls it starts, and the
  // callee it goes on to (known once the subgraph is done: in a graph without
  // recursion its callees are done before it).
  std::vector<int> nesting(subgraphs.size(), 0), deepest(subgraphs.size(), -1);
  struct Frame {
    size_t subgraph;
    size_t next;
  };
  for (size_t root = 0; root < subgraphs.size(); ++root) {
    if (mark[root] != kNew) continue;
    std::vector<Frame> path = {{root, 0}};
    mark[root] = kOnPath;
    while (!path.empty()) {
      Frame& f = path.back();
      if (f.next == calls[f.subgraph].size()) {
        for (const auto& [callee, node] : calls[f.subgraph]) {
          if (nesting[static_cast<size_t>(callee)] + 1 > nesting[f.subgraph]) {
            nesting[f.subgraph] = nesting[static_cast<size_t>(callee)] + 1;
            deepest[f.subgraph] = callee;
          }
        }
        mark[f.subgraph] = kDone;
        path.pop_back();
        continue;
      }
      const auto [callee, node] = calls[f.subgraph][f.next++];
      if (mark[static_cast<size_t>(callee)] == kOnPath) {
        std::string cycle;
        bool on = false;
        for (const Frame& p : path) {
          on = on || p.subgraph == static_cast<size_t>(callee);
          if (on) cycle += std::to_string(p.subgraph) + " -> ";
        }
        return InvalidArgumentError(CallerLabel(subgraphs[f.subgraph], node) + " calls " +
                                    subgraphs[static_cast<size_t>(callee)].SubgraphLabel() +
                                    ", which is already running: recursion (subgraphs " + cycle +
                                    std::to_string(callee) + ")");
      }
      if (mark[static_cast<size_t>(callee)] == kNew) {
        mark[static_cast<size_t>(callee)] = kOnPath;
        path.push_back({static_cast<size_t>(callee), 0});
      }
    }
  }
  GLD_RETURN_IF_ERROR(CheckCallNesting(subgraphs, nesting, deepest));
  // Then what each call passes and takes.
  for (const Graph& g : subgraphs) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const SubgraphCall& call : CalledSubgraphs(g.nodes[i])) {
        GLD_RETURN_IF_ERROR(CheckCall(g, i, call, subgraphs[static_cast<size_t>(call.subgraph)]));
      }
    }
  }
  return OkStatus();
}

}  // namespace gld
