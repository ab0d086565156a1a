// Shape (and type) inference over the IR, plus the TFLite shape rules that
// the CPU kernels share (output sizes, padding, broadcasting), so that both
// always agree. shape_inference.cc is the driver; each op's rule lives in its
// family's file, graph/shapes/<family>.cc (graph/shapes/shape_rules.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/conv_geometry.h"
#include "graph/graph.h"

namespace gld {

// Bytes of one input tensor's values in its type; empty for an absent
// optional input.
struct ValueBytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// Computes the values of node `node_index`'s outputs from its inputs' values;
// `outputs` arrive sized from the output shapes. False when it cannot (no
// evaluator for the op, or a failure): the values then stay unknown. Shape
// inference lives below the kernels that can evaluate ops, so callers above it
// pass one in (cpu::KnownValueOracle()).
using ValueOracle = std::function<bool(const Graph& graph, size_t node_index, const std::vector<ValueBytes>& inputs,
                                       std::vector<std::vector<uint8_t>>* outputs)>;

// Walks the nodes in order and sets every output tensor's shape and type from
// its inputs, attributes and constant inputs. Validates what it reads; errors
// name the node ("node 12 (CONV_2D): ...") and the offending values.
// Where an output shape depends on the values of a tensor that is not
// constant, `values` computes them when it can (small integer tensors, e.g.
// SHAPE -> RESHAPE); otherwise the shape stored in the tensor is kept when it
// is fully known, and else the result is an Unimplemented error naming the
// node. Without `values` only constants are known.
//
// With `dynamic` (resized to the tensors, one flag each), a value-dependent
// output whose stored shape or shape_signature is not fully known is marked
// dynamic instead of failing (TFLite's dynamic tensors: the shape is known
// once the node has run), and so is every output of a node that reads a
// dynamic tensor; their shapes stay as stored.
//
// With `known` (may be null), receives the values computed for non-constant
// tensors (tensor index -> bytes in the tensor's type): the shape arithmetic
// whose results these input shapes fix.
Status InferShapes(Graph& graph, const ValueOracle& values = nullptr, std::vector<uint8_t>* dynamic = nullptr,
                   std::map<int, std::vector<uint8_t>>* known = nullptr);

// The same for one node, assuming its inputs' shapes are final. Values of
// non-constant inputs are not known here, so value-dependent shapes fall back
// to the stored shape as described above. An output whose size only the
// kernel knows (WHERE, UNIQUE; RuleContext::SizedByKernel) and whose shape
// the file does not fix comes back with -1 where the kernel decides: the
// caller runs the kernel with KernelContext::size_output.
Status InferNodeShapes(Graph& graph, size_t node_index);
// The same with the values of the node's inputs (ValueBytes; empty ones
// unknown), as a node reading dynamic tensors learns them when it runs.
Status InferNodeShapes(Graph& graph, size_t node_index, const std::vector<ValueBytes>& input_values);

// ---- Rules shared with the CPU kernels -------------------------------------
// Defined with their family's rules: graph/shapes/elementwise.cc
// (BroadcastShapes), data_movement.cc (ComputeStridedSlice), rule_context.cc
// (NormalizeAxis, ReadConstantInts). The window geometry of the convolutions
// and pools (output sizes, padding) is graph/conv_geometry.h.

// Numpy-style broadcast of two shapes (aligned at the innermost dimension,
// every pair equal or one of them 1). False when incompatible.
bool BroadcastShapes(const Shape& a, const Shape& b, Shape* out);

// Maps axis in [-rank, rank) to [0, rank); false when out of range.
bool NormalizeAxis(int64_t axis, int64_t rank, int32_t* out);

// STRIDED_SLICE resolved against an input shape with TFLite's rules (masks,
// ellipsis, new axes, negative indices, clamping, `offset`). Per input
// dimension: the first index, the step and the number of elements taken;
// output_shape adds new axes and drops shrunk dimensions.
struct StridedSliceSpec {
  std::vector<int64_t> start, stride, count;
  Shape output_shape;
};
bool ComputeStridedSlice(const Shape& input, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                         const std::vector<int64_t>& strides, const StridedSliceAttributes& attrs,
                         StridedSliceSpec* spec, std::string* error);

// GLD_ROTARY_EMBEDDING's operands (graph/shapes/rotary_embedding.cc): x of rank >= 1
// whose last dimension D is even and above 0, and cos and sin of one shape
// that broadcasts to x's shape with D / 2 last (rank at most x's, each
// dimension 1 or x's, the last D / 2 or 1). "" when they fit, else what does
// not (the shape rule's, the CPU kernel's and the pass's one check).
std::string RotaryOperandsMismatch(const Shape& x, const Shape& cos, const Shape& sin);

// Reads an integer tensor's constant values (int32 or int64) into `out`.
// False when the tensor is not constant, not integer, or its data is short.
bool ReadConstantInts(const Tensor& tensor, std::vector<int64_t>* out);

}  // namespace gld
