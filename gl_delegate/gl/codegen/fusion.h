// Elementwise fusion: an elementwise node (ADD, MUL, RELU, PRELU, LOGISTIC,
// HARD_SWISH, ...) whose input is the sole output of the dispatch before it
// runs as that dispatch's epilogue (glsl/epilogue.comp), so that one dispatch
// does the work of several nodes and the intermediate tensor never exists.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "graph/graph.h"

namespace gld::gl {

// The dispatches generated for one node of a segment, and the nodes folded
// into them.
struct NodeDispatches {
  size_t node = 0;
  std::vector<Dispatch> dispatches;
  // Nodes now done by this dispatch: elementwise nodes in its epilogue, in
  // order, and channel PADs merged into their operands.
  std::vector<size_t> fused_nodes;
  int epilogue_steps = 0;           // elementwise nodes in the epilogue
  // Segment position after which this dispatch runs: its own, or that of
  // the last node in its epilogue when an operand is made in between.
  size_t run_after = 0;
  bool absorbed = false;            // this node was fused into another's dispatch
  // For an elementwise node that keeps a dispatch of its own: why none of
  // its inputs' producers could take it ("" otherwise).
  std::string unfused_reason;
};

// At most this many elementwise nodes go into one epilogue (the stanzas of
// glsl/epilogue.comp). Binary ones also need a storage block each.
inline constexpr int kMaxEpilogueOps = 8;

// Fuses in place, in segment order. A node N (one dispatch of a template that
// ends in finish_output(), one output) absorbs the node C reading its output
// T when: T is not in `keep` (tensors that must exist: exported ones) and C is
// T's only reader; C is elementwise with an output of T's exact shape
// (DescribeEpilogueOp); C's other operand, if any, fits in the
// `max_bindings` storage blocks. When that operand is made after N, N's
// dispatch moves to C's place: N's output had no other reader, so nothing
// in between needs it, and `nodes` comes back in run order. Chains repeat (conv -> add ->
// relu) up to kMaxEpilogueOps. An operand made by a PAD of trailing channels
// only (a residual ADD onto a wider tensor), read by nothing else, is read
// from the PAD's input instead, zeros beyond its channels, and the PAD's
// dispatch goes. Every elementwise node left with a dispatch
// of its own gets its unfused_reason. Returns the number of nodes absorbed;
// `log` gets one line per fusion.
int FuseElementwiseEpilogues(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::set<int>& keep,
                             Precision precision, int max_bindings, std::vector<std::string>* log);

// Sets unfused_reason on every elementwise node of `nodes` to `reason`
// (when fusion is turned off).
void MarkUnfused(const Graph& graph, std::vector<NodeDispatches>& nodes, const std::string& reason);

}  // namespace gld::gl
