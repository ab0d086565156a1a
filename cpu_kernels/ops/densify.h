// TFLite's sparse tensor format (DENSIFY's input), decoded to dense bytes.
// Reusable by a transform pass that folds constant DENSIFY nodes.
#pragma once

#include <cstdint>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld::cpu {

// Expands `sparse` (a constant tensor whose `sparsity` is set; `shape` is the
// dense shape, `data` the stored values) into row-major dense bytes of the
// same element type; missing elements are zero. Validates the sparsity
// metadata (traversal order, block map, dimension sizes, segments, indices)
// and the number of stored values; errors name the tensor.
Status DensifyTensor(const Tensor& sparse, std::vector<uint8_t>* dense_bytes);

}  // namespace gld::cpu
