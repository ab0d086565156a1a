// The ordered list of transform passes the runtime applies to every graph.
#pragma once

#include <vector>

#include "transforms/pass.h"
#include "util/startup_phases.h"

namespace gld {

// In the order they run.
const std::vector<Pass>& DefaultPasses();
// The CPU backend's passes for a graph with int8/uint8 activations
// (HasQuantizedActivations): the integer view instead of the float view,
// then the folding and cleanup passes; the float graph rewrites (fusion,
// folding into convolutions) do not apply to integer nodes.
const std::vector<Pass>& CpuIntegerPasses();
// Whether the graph has int8/uint8 activations with quantization.
bool HasQuantizedActivations(const Graph& graph);

// Runs `passes` in order; stops at the first error, which is prefixed with the
// pass's name. With `phases`, each pass's time is the row `prefix` + its name.
Status RunPasses(Graph& graph, const std::vector<Pass>& passes, PassLog& log, PhaseTimes* phases = nullptr,
                 const std::string& prefix = "");
inline Status RunDefaultPasses(Graph& graph, PassLog& log) { return RunPasses(graph, DefaultPasses(), log); }

}  // namespace gld
