// A TRANSPOSE of a TRANSPOSE read by it alone is one TRANSPOSE of the first
// one's input, its permutation the two composed; where that is the
// identity, the readers read the first one's input (or, for a graph
// output, the node stays as a TRANSPOSE that remove_noops may drop).
// elementwise_before_layout leaves such pairs where it moved a per-channel
// op out of an NCW view.
#include <string>
#include <vector>

#include "transforms/pass.h"
#include "transforms/rank_rewrite.h"

namespace gld {

namespace {

constexpr char kPass[] = "merge_transposes";

}  // namespace

Status MergeTransposes(Graph& graph, PassLog& log) {
  std::vector<bool> remove(graph.nodes.size(), false);
  bool any = false;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    std::vector<int64_t> second, first;
    if (remove[i] || !TransposePermutation(graph, graph.nodes[i], &second)) continue;
    const int mid = graph.nodes[i].inputs[0];
    const int p = graph.Producer(mid);
    if (p < 0 || remove[static_cast<size_t>(p)] || !TransposePermutation(graph, graph.nodes[static_cast<size_t>(p)], &first) ||
        first.size() != second.size() || !OnlyReadBy(graph, mid, i)) {
      continue;
    }
    // out[i] = mid[second[i]] = src[first[second[i]]].
    std::vector<int32_t> composed(second.size());
    bool identity = true;
    for (size_t d = 0; d < second.size(); ++d) {
      composed[d] = static_cast<int32_t>(first[static_cast<size_t>(second[d])]);
      identity = identity && composed[d] == static_cast<int32_t>(d);
    }
    const int src = graph.nodes[static_cast<size_t>(p)].inputs[0], out = graph.nodes[i].outputs[0];
    const std::string what = graph.NodeLabel(static_cast<size_t>(p)) + " and " + graph.NodeLabel(i);
    remove[static_cast<size_t>(p)] = true;
    any = true;
    if (identity && !graph.IsGraphOutput(out)) {
      RedirectReaders(graph, out, src);
      remove[i] = true;
      log.Add(kPass, what + " cancel");
      continue;
    }
    Node& node = graph.nodes[i];
    node.inputs = {src, AddInt32Constant(graph, graph.tensors[static_cast<size_t>(out)].name + "/perm", composed)};
    NoteFused(graph, node, static_cast<size_t>(p));
    log.Add(kPass, what + " as one TRANSPOSE");
  }
  if (any) EraseNodes(graph, remove);
  return OkStatus();
}

}  // namespace gld
