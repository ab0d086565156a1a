// What an op family's code generator produces for one graph node: a list of
// dispatches (template + defines, buffer bindings, uniforms, grid) and the
// constant buffers (repacked weights) they read. Generators touch no GL
// state, so the support query runs them without a context ("dry run") and a
// node is supported exactly when its generator succeeds.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gl/codegen/phwc4.h"
#include "gl/codegen/shader_generator.h"
#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/graph.h"

namespace gld::gl {

// The binding point of glsl/index_fault.comp's record.
inline constexpr uint32_t kIndexFaultBinding = 3;

struct DispatchBufferRef {
  enum Kind : uint8_t {
    kTensor,    // the PHWC4 object of graph tensor `index` (constants are uploaded too)
    kConstant,  // constant buffer `index` of the op (weights laid out for its shader)
    kStaging,   // a segment's edge staging buffer `index` (host byte layout);
                // used by GlSegment for its conversions, never by op generators
    kIndexFault,  // the segment's index-fault record (glsl/index_fault.comp;
                  // BindIndexFault); `index` unused
  };
  Kind kind = kTensor;
  int index = 0;
};

struct Uniform {
  enum Type : uint8_t { kInt, kIVec2, kIVec3, kIVec4, kFloat, kVec2, kVec4 };
  std::string name;
  Type type = kInt;
  std::array<int32_t, 4> i = {0, 0, 0, 0};
  std::array<float, 4> f = {0, 0, 0, 0};
};

struct Dispatch {
  ShaderSpec shader;
  std::vector<std::pair<uint32_t, DispatchBufferRef>> bindings;  // binding point -> buffer
  std::vector<Uniform> uniforms;
  std::array<uint32_t, 3> grid = {1, 1, 1};  // invocations that do work (u_grid)
  Workgroup workgroup = {0, 0, 0};           // {0,0,0}: ChooseWorkgroup(grid)

  Dispatch& Bind(uint32_t binding, DispatchBufferRef ref) {
    bindings.emplace_back(binding, ref);
    return *this;
  }
  Dispatch& Int(const std::string& name, int32_t v);
  Dispatch& IVec2(const std::string& name, int32_t x, int32_t y);
  Dispatch& IVec4(const std::string& name, int32_t x, int32_t y, int32_t z, int32_t w);
  Dispatch& IVec4(const std::string& name, const Bhwc& s) { return IVec4(name, s.b, s.h, s.w, s.c); }
  Dispatch& IVec4(const std::string& name, const std::array<int32_t, 4>& v) {
    return IVec4(name, v[0], v[1], v[2], v[3]);
  }
  Dispatch& Float(const std::string& name, float v);
  Dispatch& Vec4(const std::string& name, float x, float y, float z, float w);
  // The usual grid: one invocation per output vec4, (W, H, B * S).
  Dispatch& GridOver(const Bhwc& out);
  // A template that indexes by data and reports an index out of range
  // (glsl/index_fault.comp): the library, its binding (point 3) and the
  // node it names. The segment then checks the record after each run.
  Dispatch& BindIndexFault(size_t node);
};

// A constant buffer: vec4s as floats (4 per vec4), converted to the storage
// precision when uploaded.
struct ConstantBuffer {
  std::string name;  // "node 3 (CONV_2D) weights"
  std::vector<float> vec4_floats;
};

class OpBuildContext {
 public:
  OpBuildContext(const Graph& graph, size_t node_index, Precision precision, bool dry_run)
      : graph_(graph), node_index_(node_index), precision_(precision), dry_run_(dry_run) {}

  const Graph& graph() const { return graph_; }
  const Node& node() const { return graph_.nodes[node_index_]; }
  size_t node_index() const { return node_index_; }
  Precision precision() const { return precision_; }
  bool dry_run() const { return dry_run_; }
  const char* op_name() const { return NodeOpName(node()); }

  // Input / output tensor `i` of the node; nullptr when absent (optional
  // input or index out of range).
  const Tensor* input(size_t i) const;
  int input_index(size_t i) const;
  int output_index(size_t i) const;
  size_t num_inputs() const { return node().inputs.size(); }
  size_t num_outputs() const { return node().outputs.size(); }

  // The BHWC view of a tensor that lives on the GPU (an activation, or a
  // constant used as one): checks type (float32, or `allow_quantized` int8 /
  // uint8 / int16 for the quantize ops), rank <= 4, known and non-empty shape.
  // Bool tensors are GPU tensors too, held as 0.0 / 1.0; int32 tensors as
  // float(x), where the node may write int32 (WritesInt32OnGpu) and the
  // readers need the values exact over a range the storage holds
  // (CheckInt32OnGpu, gl/codegen/int32_need.h).
  StatusOr<Bhwc> GpuShape(int tensor, bool allow_quantized = false) const;
  // An index tensor on the GPU (int32, or an int64 constant), held as floats:
  // exact for the values a reader accepts, [0, bound), only while bound fits
  // the storage (2^24 in fp32, 2048 in fp16); Unimplemented otherwise.
  StatusOr<Bhwc> IndexShape(int tensor, int64_t bound) const;
  StatusOr<Bhwc> InputShape(size_t i) const;
  StatusOr<Bhwc> OutputShape(size_t i) const;

  // A constant float tensor's values (float32, or float16 widened), e.g.
  // weights; Unimplemented when the tensor is not constant.
  StatusOr<std::vector<float>> ConstantFloats(size_t input) const;
  // A constant integer tensor's values (int32 / int64); Unimplemented when not
  // constant.
  StatusOr<std::vector<int64_t>> ConstantInts(size_t input) const;

  // Registers a constant buffer; `make` runs only outside dry runs.
  DispatchBufferRef AddConstant(const std::string& what, const std::function<std::vector<float>()>& make);

  // "CONV_2D: <message>", as Unimplemented: the form of a "not on GPU" reason.
  Status Unsupported(const std::string& message) const;
  Status Invalid(const std::string& message) const;

  std::vector<ConstantBuffer>& constants() { return constants_; }

 private:
  const Graph& graph_;
  size_t node_index_;
  Precision precision_;
  bool dry_run_;
  std::vector<ConstantBuffer> constants_;
};

using GlBuildFn = Status (*)(OpBuildContext& ctx, std::vector<Dispatch>* out);

// One row per op the GL backend runs: the generator of its dispatches. The
// only list of GL ops: BuildNode dispatches through it and GlSupportedOps
// (gl/codegen/support.h) reads its ops from it.
struct GlBuilder {
  OpType op;
  GlBuildFn build;
};
const std::vector<GlBuilder>& GlBuilders();

// Generates the dispatches of the node in `ctx` with its GlBuilders() row.
// Unimplemented (with a human-readable reason) when the GL backend cannot
// run it.
Status BuildNode(OpBuildContext& ctx, std::vector<Dispatch>* dispatches);
// How many times BuildNode ran in this process, dry runs included (tests
// check that planning generates each node once).
uint64_t GeneratorRuns();

// The activation define value (ACT_*) of a fused activation; Unimplemented for
// SIGN_BIT.
StatusOr<std::string> ActivationDefine(Activation a, const char* op_name);

// An elementwise node seen as a step of a fused epilogue (gl/codegen/fusion.h) applied
// to `fused`, one of its inputs.
struct EpilogueOp {
  std::string op;   // OP_* (elementwise_table.comp)
  std::string act;  // ACT_* of the node's own fused activation
  int operand = kNoTensor;     // binary ops: the other input
  bool operand_first = false;  // the other input is the op's first input
  Bhwc operand_shape;
  std::array<int, 3> map = {-1, -1, -1};  // broadcast map, as elementwise.comp's
  std::array<float, 4> params = {0, 0, 0, 0};
};

// How graph.nodes[node] would run as an epilogue step on tensor `fused`;
// Unimplemented (with why) when it cannot: not an elementwise op, its output
// is not exactly `fused`'s shape and type, `fused` is both inputs, or it is
// PRELU's alpha.
StatusOr<EpilogueOp> DescribeEpilogueOp(const Graph& graph, size_t node, int fused, Precision precision);
// True for the ops DescribeEpilogueOp knows (elementwise.comp's ops).
bool IsEpilogueOp(const Node& node);

// ---- Per-family generators (gl/ops/*.cc) -----------------------------------
Status BuildElementwise(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildConv2d(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildDepthwiseConv2d(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildTransposeConv(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildFullyConnected(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildBatchMatMul(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildGather(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildGatherNd(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildDynamicUpdateSlice(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildStablehloScatter(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildEmbeddingLookup(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildBroadcastTo(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildSelect(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildLayerNorm(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildAttention(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildRotaryEmbedding(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildPooling(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildMaxUnpooling(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildReduce(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildSoftmax(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildConcatenation(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildPad(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildReshape(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildResize(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildSlice(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildDepthSpace(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildTile(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildReverse(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildTranspose(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildQuantize(OpBuildContext& ctx, std::vector<Dispatch>* out);
// LSTM (basic and full kernel) and UNIDIRECTIONAL_SEQUENCE_LSTM (ops/recurrent.cc).
Status BuildLstm(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildUnidirectionalSequenceLstm(OpBuildContext& ctx, std::vector<Dispatch>* out);
// An app's custom op with a GL kernel (gldelegate/custom_op.hpp).
Status BuildCustom(OpBuildContext& ctx, std::vector<Dispatch>* out);

// MediaPipe's custom ops (gl/codegen/ops/mediapipe_ops.cc).
Status BuildTransformTensorBilinear(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildTransformLandmarks(OpBuildContext& ctx, std::vector<Dispatch>* out);
Status BuildLandmarks2TransformMatrix(OpBuildContext& ctx, std::vector<Dispatch>* out);

}  // namespace gld::gl
