// Helpers of the passes that bring tensors above rank 4 down to rank <= 4
// (transpose_to_rank4.cc, slice_to_rank4.cc, merge_reshapes.cc): the GPU
// layout takes rank <= 4, and PyTorch's converter writes rank-5/6 RESHAPE /
// TRANSPOSE / SLICE chains for attention's q/k/v split, window partitions,
// channel shuffles and pixel_shuffle. Each pass rewrites a node into
// RESHAPEs around a rank <= 4 form of itself; merge_reshapes then joins the
// RESHAPE chains, so the rank-5/6 tensors drop out of the graph.
#pragma once

#include <string>
#include <vector>

#include "transforms/pass.h"

namespace gld {

// True when every dimension of `tensor` is fixed (no -1 in its signature)
// and its shape is valid.
bool FullyFixed(const Graph& graph, int tensor);
// A new activation tensor of `shape` with the type and quantization of
// `like`; returns its index.
int AddActivationLike(Graph& graph, int like, const std::string& name, const Shape& shape);
// A new 1-D int32 constant holding `values`; returns its index.
int AddInt32Constant(Graph& graph, const std::string& name, const std::vector<int32_t>& values);
// A RESHAPE node from `in` to `out` (the shape input a new int32 constant
// of out's shape, new_shape the same).
Node MakeReshape(Graph& graph, int in, int out);
// Replaces every node i that has a non-empty replacements[i] by those nodes,
// in order; other nodes stay where they are.
void ReplaceNodes(Graph& graph, std::vector<std::vector<Node>>& replacements);

}  // namespace gld
