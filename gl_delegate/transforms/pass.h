// The transform-pass framework: each pass is a named function that rewrites a
// Graph in place and appends one human-readable line per change to a PassLog.
// Passes keep tensor indices stable: a tensor that is no longer used stays in
// Graph::tensors (its constant bytes may be released), so indices held by
// other stages and by the model's input/output lists stay valid.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld {

struct PassLog {
  std::vector<std::string> lines;
  void Add(const std::string& pass, const std::string& what) { lines.push_back(pass + ": " + what); }
};

using PassFn = Status (*)(Graph& graph, PassLog& log);

struct Pass {
  const char* name;
  PassFn run;
};

// "'w' [32, 3, 3, 3] float32": a tensor as pass-log lines show it.
std::string DescribeTensor(const Graph& graph, int tensor);

// Removes the nodes whose `remove` flag is set, keeping the others' order.
void EraseNodes(Graph& graph, const std::vector<bool>& remove);

// Helpers for rewrites. Tensor indices are checked: an index outside
// graph.tensors is never "constant", "float32" or "private".
bool ValidTensor(const Graph& graph, int tensor);
// True when dimensions `dims` of `tensor` are fixed: its shape_signature has
// no -1 there, so no resize of the inputs changes them (a rewrite that relies
// on a spatial size checks this; a free batch dimension changes nothing).
bool DimsFixed(const Graph& graph, int tensor, std::initializer_list<size_t> dims);
// The one node reading `tensor` when the tensor is valid, read by exactly
// one node and no graph output; -1 otherwise.
int SoleReader(const Graph& graph, int tensor);
// True when `tensor` is an activation read only by `node` and is not a
// graph output, so the node may swallow it.
bool OnlyReadBy(const Graph& graph, int tensor, size_t node);
// The values of a constant float32 tensor whose bytes match its shape.
bool ConstantFloats(const Graph& graph, int tensor, std::vector<float>* values);
// The values of a constant int32 or int64 tensor whose bytes match its shape.
bool ConstantInts(const Graph& graph, int tensor, std::vector<int64_t>* values);
// The permutation of a TRANSPOSE node with a constant one, negative axes
// made positive; false when it is none or not a permutation.
bool TransposePermutation(const Graph& graph, const Node& node, std::vector<int64_t>* perm);
// A new float32 constant tensor; returns its index.
int AddFloatConstant(Graph& graph, const std::string& name, const Shape& shape, const std::vector<float>& values);
// Every node input reading `from` reads `to` instead.
void RedirectReaders(Graph& graph, int from, int to);
// Records in `into` that it now also stands for node `absorbed` (fused_names).
void NoteFused(const Graph& graph, Node& into, size_t absorbed);
// Puts `fused` in node `at`'s place as the one node standing for `chain`
// (their labels go into its fused_names; `at` may be one of them): the
// others are marked in `remove` for EraseNodes. Returns the chain's labels
// joined by ", ", for the pass log.
std::string ReplaceChain(Graph& graph, size_t at, Node fused, const std::vector<size_t>& chain,
                         std::vector<bool>& remove);
// True when an earlier match marked one of `chain` in `remove`.
bool AnyTaken(const std::vector<size_t>& chain, const std::vector<bool>& remove);

// The passes (one file each).
// STABLEHLO_COMPOSITE nodes as the nodes of their decomposition subgraph.
Status InlineComposites(Graph& graph, PassLog& log);
// litert-torch's odml.rms_norm and odml.scaled_dot_product_attention
// composites as one GLD_RMS_NORM / GLD_SCALED_DOT_PRODUCT_ATTENTION node
// where their decomposition computes what the op does (fuse_composites.cc).
Status FuseComposites(Graph& graph, PassLog& log);
Status FoldConstantDequantize(Graph& graph, PassLog& log);
Status FoldConstantDensify(Graph& graph, PassLog& log);
Status RemoveDeadNodes(Graph& graph, PassLog& log);
Status ReleaseUnusedConstants(Graph& graph, PassLog& log);
Status RemoveNoops(Graph& graph, PassLog& log);
Status MergePad(Graph& graph, PassLog& log);
Status FoldMulAddIntoConv(Graph& graph, PassLog& log);
Status FuseActivation(Graph& graph, PassLog& log);
Status DilatedConv(Graph& graph, PassLog& log);
Status ConvToFullyConnected(Graph& graph, PassLog& log);
Status QuantizedFloatView(Graph& graph, PassLog& log);
Status CpuIntegerView(Graph& graph, PassLog& log);
// CONV_2D with one input channel per group: DEPTHWISE_CONV_2D.
Status GroupedConvAsDepthwise(Graph& graph, PassLog& log);
// Keras 3's UpSampling2D as RESHAPE/TILE chains: one RESIZE_NEAREST_NEIGHBOR.
Status RepeatAsResize(Graph& graph, PassLog& log);
// Not a default pass: nodes whose outputs shape inference computed for the
// shapes being planned (`known`, InferShapes' values) become constants; the
// Runtime runs it on each plan's graph (fold_known_values.cc).
Status FoldKnownValues(Graph& graph, const std::map<int, std::vector<uint8_t>>& known, PassLog& log);
// How a plan gets its shapes (the Runtime's and PlanModel's one way):
// InferShapes with the CPU kernels' value oracle (`dynamic`: its per-tensor
// flags), then FoldKnownValues on the values it computed.
Status InferShapesAndFold(Graph& graph, std::vector<uint8_t>* dynamic, PassLog& log);
// Rank-5/6 tensors down to rank <= 4 (rank_rewrite.h).
Status TransposeToRank4(Graph& graph, PassLog& log);
Status SliceToRank4(Graph& graph, PassLog& log);
Status ConcatGatherNdToRank4(Graph& graph, PassLog& log);
Status FullyConnectedToRank4(Graph& graph, PassLog& log);
Status MergeReshapes(Graph& graph, PassLog& log);
// A binary elementwise op with a constant operand before the TRANSPOSE or
// unit-dimension RESHAPE that feeds it (elementwise_before_layout.cc).
Status ElementwiseBeforeLayout(Graph& graph, PassLog& log);
// TRANSPOSE of TRANSPOSE as one, or none (merge_transposes.cc).
Status MergeTransposes(Graph& graph, PassLog& log);
// Per-row math on reductions that drop their axes, RESHAPEd back for each
// broadcast, kept in the keep-dims shape (keep_reduced_dims.cc).
Status KeepReducedDims(Graph& graph, PassLog& log);
// Transformer patterns (fuse_layer_norm.cc).
Status FuseLayerNorm(Graph& graph, PassLog& log);
// The converter's rotary embedding chain (two SLICEs, four MULs, SUB, ADD,
// CONCATENATION) as one GLD_ROTARY_EMBEDDING node (fuse_rotary_embedding.cc).
Status FuseRotaryEmbedding(Graph& graph, PassLog& log);

}  // namespace gld
