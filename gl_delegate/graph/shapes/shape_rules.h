// The shape rules and what they see of a node. Each op_list.inc row names
// its ShapeRule; the rules live one file per op family under graph/shapes/,
// named as the family's CPU kernel file (cpu_kernels/<family>.cc) and GL
// generator (gl/codegen/ops/<family>.cc) are, and the driver
// (graph/shape_inference.cc) walks the graph and calls each node's rule with
// a RuleContext. Internal to graph/: callers use graph/shape_inference.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace gld::shapes {

// Largest dimension a rule computes (dimensions, paddings, window reaches).
constexpr int64_t kMaxDim = int64_t{1} << 30;

// Values of small non-constant integer tensors that shape inference could
// compute (SHAPE outputs and small integer ops on known values), as raw bytes
// in the tensor's type, by tensor index. They let shapes flow through
// SHAPE -> ... -> RESHAPE.
using KnownValues = std::map<int, std::vector<uint8_t>>;

// A shape every dimension of which is known (and valid).
inline bool ShapeIsKnown(const Shape& s) { return ShapeIsValid(s); }

// "[1, 2, 3]", for values in messages.
std::string Join(const std::vector<int64_t>& v);

// One node as its rule sees it: its inputs, what the rule sets on its
// outputs, the values known so far, and messages that name the node
// ("node 12 (CONV_2D): ..."). The driver checks that the node's tensor
// indices are in range before a rule runs.
class RuleContext {
 public:
  // `dynamic` (may be null): per tensor, set for outputs whose shape is only
  // known once the node runs (KeepStored, SizedByKernel). `node_alone`: the
  // node is about to run with these shapes (a dynamic node's step), so an
  // output SizedByKernel keeps its -1 dimensions for the kernel to fill.
  // `input_values` (may be null): the values the node's inputs hold now, by
  // input (InferNodeShapes of one node; an empty one is unknown), read
  // before `known`.
  RuleContext(Graph& graph, size_t index, KnownValues* known, std::vector<uint8_t>* dynamic = nullptr,
              bool node_alone = false, const std::vector<ValueBytes>* input_values = nullptr)
      : graph_(graph),
        index_(index),
        node_(graph.nodes[index]),
        known_(known),
        dynamic_(dynamic),
        node_alone_(node_alone),
        kernel_sized_(node_.outputs.size(), 0),
        input_values_(input_values) {}

  const Graph& graph() const { return graph_; }
  size_t index() const { return index_; }
  const Node& node() const { return node_; }

  // -- errors naming the node: InvalidArgument, Unimplemented
  Status Err(const std::string& m) const { return InvalidArgumentError(graph_.NodeLabel(index_) + ": " + m); }
  Status Unimpl(const std::string& m) const { return UnimplementedError(graph_.NodeLabel(index_) + ": " + m); }

  // -- inputs and outputs
  size_t NumInputs() const { return node_.inputs.size(); }
  bool Has(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] >= 0; }
  const Tensor& In(size_t i) const { return graph_.tensors[static_cast<size_t>(node_.inputs[i])]; }
  const Shape& InShape(size_t i) const { return In(i).shape; }
  const Tensor& Out(size_t i) const { return graph_.tensors[static_cast<size_t>(node_.outputs[i])]; }
  // "input 1 'name'", for messages.
  std::string Name(size_t i) const { return "input " + std::to_string(i) + " '" + In(i).name + "'"; }

  // -- checks; each fails with an Err saying what it found
  // min..max inputs, the first min of them present.
  Status Inputs(size_t min, size_t max) const;
  Status Outputs(size_t n) const;
  Status Rank(size_t i, size_t rank) const;
  // Maps `axis` in [-rank, rank) to [0, rank).
  Status Axis(int64_t axis, int64_t rank, int32_t* out, const char* what = "axis") const;
  // A computed shape: valid, at most 2^40 elements, no dimension above 2^30.
  Status CheckShape(const Shape& s, const std::string& what) const;
  // A check made outside the rules (graph/conv_geometry.h's): its failure
  // as an Err naming the node.
  Status Check(const Status& s) const { return s.ok() ? s : Err(s.message()); }
  // The node's attributes of type A.
  template <typename A>
  Status Attrs(const A** a) const {
    *a = std::get_if<A>(&node_.attributes);
    if (*a == nullptr) return Err("missing or wrong attributes");
    return OkStatus();
  }

  // -- values
  // Values of integer input i: constants, or values computed earlier (SHAPE
  // and small integer ops on known values).
  bool Values(size_t i, std::vector<int64_t>* v) const;
  // The value of float32 scalar input i: a constant's, or what the input
  // holds now (a node run alone: input_values).
  bool FloatScalar(size_t i, float* v) const;
  // Records output i's values, bytes in its type (SHAPE computes its own).
  void SetValues(size_t i, std::vector<uint8_t> bytes);

  // -- results
  // Sets output i's shape and type. A type the file declares for an output
  // must be the one the op produces (kernels write what they produce, and a
  // caller reading the declared type would read other bytes): the first
  // difference is kept in type_conflict().
  void Set(size_t i, Shape shape, DataType type);
  // Type of output i as stored in the file, or `fallback` when unknown.
  DataType StoredType(size_t i, DataType fallback) const;
  // For shapes that depend on values that cannot be known (`why`): keeps
  // output i's stored shape if it is fully known, setting its type, else
  // Unimplemented. Where the driver takes dynamic tensors, an output whose
  // stored shape or shape_signature is not fully known is marked dynamic
  // instead (its shape is known when the node runs).
  Status KeepStored(size_t i, DataType type, const std::string& why);
  // For outputs whose size only the computation knows (WHERE's count of
  // true values, UNIQUE's distinct values): `shape` holds -1 where the
  // kernel decides (KernelContext::SizeOutput). Where the file fixes the
  // output's shape (stored shape and signature fully known) that shape is
  // kept, and the kernel refuses a run that gives another; else, where the
  // driver takes dynamic tensors, the output is marked dynamic; for a node
  // run alone it gets `shape` itself (kernel_sized); otherwise
  // Unimplemented, as KeepStored.
  Status SizedByKernel(size_t i, Shape shape, DataType type, const std::string& why);
  // True for an output SizedByKernel left with -1 dimensions.
  bool kernel_sized(size_t i) const { return kernel_sized_[i] != 0; }
  const std::string& type_conflict() const { return type_conflict_; }

 private:
  Tensor& MutableOut(size_t i) { return graph_.tensors[static_cast<size_t>(node_.outputs[i])]; }

  Graph& graph_;
  size_t index_;
  const Node& node_;
  KnownValues* known_;
  std::vector<uint8_t>* dynamic_;
  bool node_alone_;
  std::vector<uint8_t> kernel_sized_;  // per output
  const std::vector<ValueBytes>* input_values_;
  std::string type_conflict_;  // the first output whose declared type differs
};

using ShapeRule = Status (*)(RuleContext& ctx);

// ---- The rules op_list.inc's ShapeRule column names, by family file --------
// elementwise.cc
Status Unary(RuleContext& ctx);
Status LogicalNot(RuleContext& ctx);
Status UnaryWithAxisInput(RuleContext& ctx);
Status Cast(RuleContext& ctx);
Status Arithmetic(RuleContext& ctx);
Status Prelu(RuleContext& ctx);
Status Comparison(RuleContext& ctx);
Status AddN(RuleContext& ctx);
Status Select(RuleContext& ctx);
Status SelectV2(RuleContext& ctx);
Status Fill(RuleContext& ctx);
// softmax.cc (SOFTMAX, LOG_SOFTMAX and L2_NORMALIZATION use Unary)
Status LocalResponseNormalization(RuleContext& ctx);
// quantize.cc
Status Quantize(RuleContext& ctx);
Status Dequantize(RuleContext& ctx);
// conv.cc, conv3d.cc, depthwise_conv.cc, transpose_conv.cc
Status Conv2d(RuleContext& ctx);
Status Conv3d(RuleContext& ctx);
Status DepthwiseConv2d(RuleContext& ctx);
Status TransposeConv(RuleContext& ctx);
Status TransposeConvBias(RuleContext& ctx);
// fully_connected.cc, batch_matmul.cc
Status FullyConnected(RuleContext& ctx);
Status BatchMatMul(RuleContext& ctx);
// layer_norm.cc
Status LayerNorm(RuleContext& ctx);
Status RmsNorm(RuleContext& ctx);
Status Attention(RuleContext& ctx);
// rotary_embedding.cc
Status RotaryEmbedding(RuleContext& ctx);
// pooling.cc
Status Pool(RuleContext& ctx);
// concat.cc
Status Concatenation(RuleContext& ctx);
Status Pack(RuleContext& ctx);
Status Unpack(RuleContext& ctx);
Status Split(RuleContext& ctx);
Status SplitV(RuleContext& ctx);
// reshape_like.cc
Status Reshape(RuleContext& ctx);
Status Squeeze(RuleContext& ctx);
Status ExpandDims(RuleContext& ctx);
// reduce.cc
Status Reduce(RuleContext& ctx);
Status ArgMinMax(RuleContext& ctx);
// resize.cc
Status Resize(RuleContext& ctx);
// space_depth.cc
Status DepthToSpace(RuleContext& ctx);
Status SpaceToDepth(RuleContext& ctx);
Status SpaceToBatch(RuleContext& ctx);
Status BatchToSpace(RuleContext& ctx);
// pad.cc
Status Pad(RuleContext& ctx);
// data_movement.cc
Status Transpose(RuleContext& ctx);
Status Tile(RuleContext& ctx);
Status Slice(RuleContext& ctx);
Status StridedSlice(RuleContext& ctx);
Status BroadcastTo(RuleContext& ctx);
Status ShapeOp(RuleContext& ctx);
Status Range(RuleContext& ctx);
// sort_select.cc: ops whose outputs are chosen, ordered or counted elements
// of their input (TOPK_V2, UNIQUE, WHERE, BUCKETIZE, the non-max
// suppressions)
Status TopkV2(RuleContext& ctx);
Status Unique(RuleContext& ctx);
Status Where(RuleContext& ctx);
Status Bucketize(RuleContext& ctx);
Status NonMaxSuppression(RuleContext& ctx);
// gather.cc (and SCATTER_ND)
Status Gather(RuleContext& ctx);
Status GatherNd(RuleContext& ctx);
Status OneHot(RuleContext& ctx);
Status EmbeddingLookup(RuleContext& ctx);
Status ScatterNd(RuleContext& ctx);
Status DynamicUpdateSlice(RuleContext& ctx);
Status StablehloScatter(RuleContext& ctx);
// recurrent.cc
Status Lstm(RuleContext& ctx);
Status SequenceLstm(RuleContext& ctx);
Status BidirectionalSequenceLstm(RuleContext& ctx);
Status Rnn(RuleContext& ctx);
Status SequenceRnn(RuleContext& ctx);
Status BidirectionalSequenceRnn(RuleContext& ctx);
Status Svdf(RuleContext& ctx);
// mediapipe_ops.cc
Status MaxUnpooling2D(RuleContext& ctx);
Status TransformTensorBilinear(RuleContext& ctx);
Status TransformLandmarks(RuleContext& ctx);
Status Landmarks2TransformMatrix(RuleContext& ctx);
// custom_op.cc: an app's custom op, its registered shape function
Status Custom(RuleContext& ctx);
// control_flow.cc: WHILE's outputs are its loop variables; IF keeps the
// shapes the file declares (the runtime checks both branches against them)
Status While(RuleContext& ctx);
Status If(RuleContext& ctx);
Status CallOnce(RuleContext& ctx);
Status Composite(RuleContext& ctx);
// resource_variables.cc
Status VarHandle(RuleContext& ctx);
Status ReadVariable(RuleContext& ctx);
Status AssignVariable(RuleContext& ctx);

}  // namespace gld::shapes
