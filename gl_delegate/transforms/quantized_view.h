// What the two views of a quantized graph share: the float view
// (quantized_float_view.cc, every backend) and the CPU's integer view
// (integer_view.cc). Internal to transforms/.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace gld::quantized_view {

// An int8/uint8/int16 activation with quantization parameters (not a
// constant or a variable). 16-bit activations (int16x8 models) have no
// integer kernels yet: they stay in the float view on both backends.
bool IsQuantizedActivation(const Tensor& t);
// Marks the quantized activations (IsQuantizedActivation), giving each the
// storage type of its file type when it has none; *any when one is.
std::vector<bool> MarkQuantizedActivations(Graph& graph, bool* any);
// A new float32 activation tensor shaped like `like`, appended to the graph.
int AddFloatTensor(Graph& graph, int like, const std::string& suffix, bool keep_quantization);
Node MakeNode(OpType op, int input, int output);
// Replaces reads of tensor `from` by `to` in every node.
void RedirectReads(Graph& graph, int from, int to);
// Whether LiteRT's integer kernel for `node` rounds its result to the grid
// of output `out` (true) or only moves values already on that grid (false).
bool RoundsToGrid(const Graph& graph, const Node& node, int out);

}  // namespace gld::quantized_view
