// The ordered list of transform passes the runtime applies to every graph.
#pragma once

#include <vector>

#include "transforms/pass.h"

namespace gld {

// In the order they run.
const std::vector<Pass>& DefaultPasses();

// Runs `passes` in order; stops at the first error, which is prefixed with the
// pass's name.
Status RunPasses(Graph& graph, const std::vector<Pass>& passes, PassLog& log);
inline Status RunDefaultPasses(Graph& graph, PassLog& log) { return RunPasses(graph, DefaultPasses(), log); }

}  // namespace gld
