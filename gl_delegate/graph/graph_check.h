// Structural checks of a graph before it is planned: indices in range, every
// tensor written at most once, each node's inputs available when it runs.
#pragma once

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

// InvalidArgument naming the node and tensor on the first problem found.
Status CheckGraphStructure(const Graph& graph);

}  // namespace gld
