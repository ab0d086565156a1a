// Elementwise fusion: an elementwise node (ADD, MUL, RELU, PRELU, LOGISTIC,
// HARD_SWISH, ...) whose input is the sole output of the dispatch before it
// runs as that dispatch's epilogue (glsl/epilogue.comp), so that one dispatch
// does the work of several nodes and the intermediate tensor never exists.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "gl/gl_op.h"
#include "graph/graph.h"

namespace gld::gl {

// The dispatches generated for one node of a segment, and the nodes folded
// into them.
struct NodeDispatches {
  size_t node = 0;
  std::vector<Dispatch> dispatches;
  std::vector<size_t> fused_nodes;  // elementwise nodes now in the epilogue, in order
  bool absorbed = false;            // this node was fused into another's dispatch
};

// At most this many elementwise nodes go into one epilogue.
inline constexpr int kMaxEpilogueOps = 3;

// Fuses in place, in segment order. A node N (one dispatch of a template that
// ends in finish_output(), one output) absorbs the node C reading its output
// T when: T is not in `keep` (tensors that must exist: exported ones) and C is
// T's only reader; C is elementwise with an output of T's exact shape
// (DescribeEpilogueOp); C's other operand, if any, exists before N runs (an
// input, a constant, or the output of an earlier node of the segment) and
// fits in the `max_bindings` storage blocks. Chains repeat (conv -> add ->
// relu) up to kMaxEpilogueOps. Returns the number of nodes absorbed; `log`
// gets one line per fusion.
int FuseElementwiseEpilogues(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::set<int>& keep,
                             Precision precision, int max_bindings, std::vector<std::string>* log);

}  // namespace gld::gl
