// int32 tensors on the GPU, held as floats (docs/design/gl_backend.md, "int32
// on the GPU"). A GPU int32 value is float(x) where it came from the host (an
// input edge, a constant) or from CAST of a float (trunc of a float is that
// float); integer arithmetic on the GPU (ADD / SUB of a constant) is exact
// while its operands and results fit the storage. So an int32 tensor is a GPU
// tensor when its readers need it exact only over a range the storage holds
// (the need, walked backward through the readers): index readers their
// bound, a comparison with a constant k the values next to k, ADD / SUB of a
// constant the result's need shifted, SELECT and the moves (RESHAPE,
// BROADCAST_TO, CONCATENATION) what their output needs. Outside the need a
// value may be rounded, but rounding is monotone, so it stays on the same side
// of the needed range: a comparison with k still answers as on the CPU, an
// index out of range is still out of range.
#pragma once

#include <cstdint>
#include <string>

#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"
#include "graph/graph.h"

namespace gld::gl {

struct Int32Need {
  int64_t lo = 1, hi = 0;    // the values that must be exact, [lo, hi]; none when lo > hi
  bool every_value = false;  // a reader (CAST to float or bool) takes every value as float(x)
  bool empty() const { return lo > hi; }
  void Add(int64_t a, int64_t b);
  void Add(const Int32Need& other);
  std::string ToString() const;
};

// What the readers of int32 tensor `tensor` need of it (see above).
// Unimplemented, naming the reader, when a reader is not one of those, the
// tensor is a graph output (it would leave the GPU rounded), or a value that
// integer arithmetic made on the GPU is read as every value (CAST to float).
StatusOr<Int32Need> Int32ReadersNeed(const Graph& graph, int tensor);

// The largest integer magnitude `precision`'s storage holds exactly (2^24
// in fp32, 2048 in the fp16 modes).
int64_t ExactIntegerLimit(Precision precision);

// Whether graph.nodes[node] may write int32 tensor `tensor` on the GPU: CAST
// of a float or bool, ADD / SUB, SELECT / SELECT_V2, RESHAPE, BROADCAST_TO,
// CONCATENATION (their inputs' needs check the rest).
bool WritesInt32OnGpu(const Graph& graph, size_t node, int tensor);

// Int32ReadersNeed checked against the storage: OK when the needed range
// fits `precision` exactly (with one value to spare on each side), else
// Unimplemented saying why.
Status CheckInt32OnGpu(const Graph& graph, int tensor, Precision precision);

}  // namespace gld::gl
