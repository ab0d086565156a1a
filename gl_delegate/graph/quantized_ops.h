// Facts about ops on quantized tensors that more than one layer needs.
#pragma once

#include "graph/graph.h"

namespace gld {

// Ops whose outputs are values read from their inputs (or the zero point,
// for padding): with the input's quantization on the output, LiteRT's
// integer kernel copies integers and rounds nothing.
bool MovesValuesOnly(OpType op);

// Same scales and zero points (a missing zero point is 0), and the same
// quantized dimension when per channel.
bool SameQuantization(const QuantizationParams& a, const QuantizationParams& b);

}  // namespace gld
