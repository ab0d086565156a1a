// The GL side of the elementwise table (graph/elementwise_ops.inc): each row
// that has a GLSL expression is an OP_* code of the GLSL library
// elementwise_table.comp, which this module generates (the OP_* defines and
// elementwise_op(), the function elementwise.comp and fused epilogues call).
#pragma once

#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace gld::gl {

struct ElementwiseGlRow {
  OpType op;
  const char* code;  // "OP_ADD"
  bool binary;
  const char* glsl;  // the expression of a, b and params
};

// The rows with a GL kernel, in table order.
const std::vector<ElementwiseGlRow>& ElementwiseGlRows();

// The row `op` runs as on the GPU (`gelu_approximate` picks GELU's tanh
// form); nullptr when the op has no GL elementwise kernel.
const ElementwiseGlRow* FindElementwiseGlRow(OpType op, bool gelu_approximate);

// The generated library's name and text.
constexpr std::string_view kElementwiseTableLibrary = "elementwise_table.comp";
std::string_view ElementwiseTableGlsl();

}  // namespace gld::gl
