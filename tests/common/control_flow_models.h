// Models of several subgraphs written with the schema's builders, for the
// shapes of calls the op cases (tests/data/ops) do not have: a long chain of
// nested calls, and a loop whose length an input decides.
#pragma once

#include <cstdint>
#include <vector>

namespace gld::testing {

// Subgraph 0 ('main': input x float32 [1], output x + x) runs CALL_ONCE on
// subgraph 1; each subgraph k < depth runs CALL_ONCE on k + 1, and subgraph
// `depth` is empty: `depth` nested calls, no recursion. depth >= 1.
std::vector<uint8_t> CallOnceChainModel(int depth);

// Inputs i and n (float32 [1]); a WHILE whose cond is i < n and whose body
// adds 1 to i; output: the final i + 0.5 (an ADD after the loop). A limit of
// 1e30 never ends (the counter stops growing at 2^24): only
// Options::max_loop_iterations or a cancel stops it.
std::vector<uint8_t> CountingWhileModel();

}  // namespace gld::testing
