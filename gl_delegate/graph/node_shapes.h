// Shape inference of one node with the values its inputs hold now, for a
// graph run node by node because its shapes depend on values that change
// from run to run (a loop body slicing its state by the loop counter).
// Internal to graph/ and the runtime; the whole-graph driver is
// graph/shape_inference.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

// Runs node `node_index`'s shape rule as InferShapes does, with `values`
// (tensor index -> bytes in the tensor's type) as the known values of
// non-constant inputs. The rule sets the node's outputs in `graph`.
Status InferNodeShapesWithValues(Graph& graph, size_t node_index, std::map<int, std::vector<uint8_t>>* values);

}  // namespace gld
