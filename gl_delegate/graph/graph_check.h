// Structural checks of a graph before it is planned: indices in range, every
// tensor written at most once, each node's inputs available when it runs.
#pragma once

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

// InvalidArgument naming the node and tensor on the first problem found.
Status CheckGraphStructure(const Graph& graph);

// The longest chain of nested subgraph calls a model may hold: each level
// prepares and runs its callee inside its caller's frames, on one thread's
// stack. Real models nest a few levels; LiteRT ran 7,000. Measured cost:
// see docs/USER_GUIDE.md (Robustness).
constexpr int kMaxSubgraphNesting = 64;

// The calls between a model's subgraphs (`subgraphs`, by file index; the
// reader's, before any placeholder): every subgraph index a WHILE, IF or
// CALL_ONCE names is in range; a WHILE's cond takes its loop variables and
// gives one bool, its body takes and gives them; IF's branches take its
// inputs after the condition and give its outputs; CALL_ONCE's init takes
// and gives nothing (counts and types; shapes are the runtime's); no
// subgraph calls itself, directly or through others; and no chain of nested
// calls (subgraph a calls b, b calls c, ...) is longer than
// kMaxSubgraphNesting calls. InvalidArgument naming the subgraph and node.
Status CheckSubgraphCalls(const std::vector<Graph>& subgraphs);

}  // namespace gld
