#include "gl/codegen/gl_op.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <iterator>

#include "gl/codegen/elementwise_table.h"
#include "gl/codegen/int32_need.h"
#include "util/half.h"

namespace gld::gl {

// ---- Dispatch ----

Dispatch& Dispatch::Int(const std::string& name, int32_t v) {
  Uniform u;
  u.name = name;
  u.type = Uniform::kInt;
  u.i = {v, 0, 0, 0};
  uniforms.push_back(std::move(u));
  return *this;
}

Dispatch& Dispatch::IVec2(const std::string& name, int32_t x, int32_t y) {
  Uniform u;
  u.name = name;
  u.type = Uniform::kIVec2;
  u.i = {x, y, 0, 0};
  uniforms.push_back(std::move(u));
  return *this;
}

Dispatch& Dispatch::IVec4(const std::string& name, int32_t x, int32_t y, int32_t z, int32_t w) {
  Uniform u;
  u.name = name;
  u.type = Uniform::kIVec4;
  u.i = {x, y, z, w};
  uniforms.push_back(std::move(u));
  return *this;
}

Dispatch& Dispatch::Float(const std::string& name, float v) {
  Uniform u;
  u.name = name;
  u.type = Uniform::kFloat;
  u.f = {v, 0, 0, 0};
  uniforms.push_back(std::move(u));
  return *this;
}

Dispatch& Dispatch::Vec4(const std::string& name, float x, float y, float z, float w) {
  Uniform u;
  u.name = name;
  u.type = Uniform::kVec4;
  u.f = {x, y, z, w};
  uniforms.push_back(std::move(u));
  return *this;
}

Dispatch& Dispatch::GridOver(const Bhwc& out) {
  grid = {static_cast<uint32_t>(out.w), static_cast<uint32_t>(out.h),
          static_cast<uint32_t>(out.b * out.slices())};
  return *this;
}

Dispatch& Dispatch::BindIndexFault(size_t node) {
  shader.Library("index_fault.comp");
  return Bind(kIndexFaultBinding, {DispatchBufferRef::kIndexFault, 0}).Int("u_fault_node", static_cast<int32_t>(node));
}

// ---- OpBuildContext ----

const Tensor* OpBuildContext::input(size_t i) const {
  int t = input_index(i);
  return t < 0 ? nullptr : &graph_.tensors[static_cast<size_t>(t)];
}

int OpBuildContext::input_index(size_t i) const {
  const Node& n = node();
  if (i >= n.inputs.size()) return kNoTensor;
  int t = n.inputs[i];
  if (t < 0 || static_cast<size_t>(t) >= graph_.tensors.size()) return kNoTensor;
  return t;
}

int OpBuildContext::output_index(size_t i) const {
  const Node& n = node();
  if (i >= n.outputs.size()) return kNoTensor;
  int t = n.outputs[i];
  if (t < 0 || static_cast<size_t>(t) >= graph_.tensors.size()) return kNoTensor;
  return t;
}

Status OpBuildContext::Unsupported(const std::string& message) const {
  return UnimplementedError(std::string(op_name()) + ": " + message);
}

Status OpBuildContext::Invalid(const std::string& message) const {
  return InvalidArgumentError(std::string(op_name()) + ": " + message);
}

StatusOr<Bhwc> OpBuildContext::GpuShape(int tensor, bool allow_quantized) const {
  if (tensor < 0 || static_cast<size_t>(tensor) >= graph_.tensors.size()) {
    return Invalid("missing tensor (index " + std::to_string(tensor) + ")");
  }
  const Tensor& t = graph_.tensors[static_cast<size_t>(tensor)];
  bool type_ok = t.type == DataType::kFloat32 || t.type == DataType::kBool ||
                 (t.is_constant && t.type == DataType::kFloat16);
  if (t.type == DataType::kInt32) {  // held as floats where its readers need it exact over a range that fits
    const bool writes = std::find(node().outputs.begin(), node().outputs.end(), tensor) != node().outputs.end();
    type_ok = !writes || WritesInt32OnGpu(graph_, node_index_, tensor);
    if (type_ok) {
      if (Status s = CheckInt32OnGpu(graph_, tensor, precision_); !s.ok()) return Unsupported(s.message());
    }
  }
  if (allow_quantized) {
    type_ok = type_ok || t.type == DataType::kInt8 || t.type == DataType::kUInt8 ||
              (t.type == DataType::kInt16 && precision_ == Precision::kFp32);
  }
  if (!type_ok) {
    std::string why = std::string(DataTypeName(t.type)) + " tensor '" + t.name + "'";
    if (allow_quantized && t.type == DataType::kInt16) {
      return Unsupported(why + " needs fp32 precision (fp16 holds integers exactly only up to 2048)");
    }
    return Unsupported(why + " (the GPU path runs float32 tensors)");
  }
  if (t.shape.size() > 4) {
    return Unsupported("tensor '" + t.name + "' has rank " + std::to_string(t.shape.size()) +
                       " " + ShapeToString(t.shape) + "; the GPU layout takes rank <= 4");
  }
  for (int32_t d : t.shape) {
    if (d <= 0) {
      return Unsupported("tensor '" + t.name + "' has shape " + ShapeToString(t.shape) +
                         " (unknown or empty dimension)");
    }
  }
  if (!ShapeIsValid(t.shape, int64_t{1} << 31)) {
    return Unsupported("tensor '" + t.name + "' is too large: " + ShapeToString(t.shape));
  }
  return ToBhwc(t.shape);
}

StatusOr<Bhwc> OpBuildContext::IndexShape(int tensor, int64_t bound) const {
  if (tensor < 0 || static_cast<size_t>(tensor) >= graph_.tensors.size()) {
    return Invalid("missing tensor (index " + std::to_string(tensor) + ")");
  }
  const Tensor& t = graph_.tensors[static_cast<size_t>(tensor)];
  if (t.type != DataType::kInt32 && !(t.is_constant && t.type == DataType::kInt64)) {
    return Unsupported(std::string(DataTypeName(t.type)) + " index tensor '" + t.name +
                       "' (the GPU path takes int32 indices, or int64 constants)");
  }
  const int64_t exact = ExactIntegerLimit(precision_);
  if (bound > exact) {
    return Unsupported("indices '" + t.name + "' range over " + std::to_string(bound) + " values; " +
                       PrecisionName(precision_) + " storage holds integers exactly only up to " +
                       std::to_string(exact));
  }
  if (t.shape.size() > 4) {
    return Unsupported("tensor '" + t.name + "' has rank " + std::to_string(t.shape.size()) +
                       "; the GPU layout takes rank <= 4");
  }
  for (int32_t d : t.shape) {
    if (d <= 0) return Unsupported("tensor '" + t.name + "' has shape " + ShapeToString(t.shape));
  }
  return ToBhwc(t.shape);
}

StatusOr<Bhwc> OpBuildContext::InputShape(size_t i) const {
  int t = input_index(i);
  if (t < 0) return Invalid("input " + std::to_string(i) + " is missing");
  return GpuShape(t);
}

StatusOr<Bhwc> OpBuildContext::OutputShape(size_t i) const {
  int t = output_index(i);
  if (t < 0) return Invalid("output " + std::to_string(i) + " is missing");
  return GpuShape(t);
}

StatusOr<std::vector<float>> OpBuildContext::ConstantFloats(size_t i) const {
  const Tensor* t = input(i);
  if (t == nullptr) return Invalid("input " + std::to_string(i) + " is missing");
  if (!t->is_constant) {
    return Unsupported("input " + std::to_string(i) + " '" + t->name +
                       "' must be a constant on the GPU path");
  }
  int64_t n = t->num_elements();
  if (n < 0 || !ShapeIsValid(t->shape)) return Invalid("tensor '" + t->name + "' has a bad shape");
  std::vector<float> v(static_cast<size_t>(n));
  if (t->type == DataType::kFloat32) {
    if (t->data.size() < v.size() * 4) return Invalid("constant '" + t->name + "' has too little data");
    if (!v.empty()) std::memcpy(v.data(), t->data.data(), v.size() * 4);
  } else if (t->type == DataType::kFloat16) {
    if (t->data.size() < v.size() * 2) return Invalid("constant '" + t->name + "' has too little data");
    for (size_t k = 0; k < v.size(); ++k) {
      uint16_t h;
      std::memcpy(&h, t->data.data() + 2 * k, 2);
      v[k] = HalfToFloat(h);
    }
  } else {
    return Unsupported(std::string(DataTypeName(t->type)) + " constant '" + t->name +
                       "' (the GPU path takes float32 / float16 constants)");
  }
  return v;
}

StatusOr<std::vector<int64_t>> OpBuildContext::ConstantInts(size_t i) const {
  const Tensor* t = input(i);
  if (t == nullptr) return Invalid("input " + std::to_string(i) + " is missing");
  if (!t->is_constant) {
    return Unsupported("input " + std::to_string(i) + " '" + t->name +
                       "' is not a constant (the GPU path needs its values when the segment is built)");
  }
  int64_t n = t->num_elements();
  if (n < 0 || n > (int64_t{1} << 20)) return Invalid("tensor '" + t->name + "' has a bad shape");
  std::vector<int64_t> v(static_cast<size_t>(n));
  if (t->type == DataType::kInt32) {
    if (t->data.size() < v.size() * 4) return Invalid("constant '" + t->name + "' has too little data");
    for (size_t k = 0; k < v.size(); ++k) {
      int32_t x;
      std::memcpy(&x, t->data.data() + 4 * k, 4);
      v[k] = x;
    }
  } else if (t->type == DataType::kInt64) {
    if (t->data.size() < v.size() * 8) return Invalid("constant '" + t->name + "' has too little data");
    if (!v.empty()) std::memcpy(v.data(), t->data.data(), v.size() * 8);
  } else {
    return Invalid(std::string(DataTypeName(t->type)) + " tensor '" + t->name +
                   "' where int32 / int64 values are expected");
  }
  return v;
}

DispatchBufferRef OpBuildContext::AddConstant(const std::string& what,
                                      const std::function<std::vector<float>()>& make) {
  ConstantBuffer c;
  c.name = graph_.NodeLabel(node_index_) + " " + what;
  if (!dry_run_) c.vec4_floats = make();
  constants_.push_back(std::move(c));
  return DispatchBufferRef{DispatchBufferRef::kConstant, static_cast<int>(constants_.size() - 1)};
}

StatusOr<std::string> ActivationDefine(Activation a, const char* op_name) {
  switch (a) {
    case Activation::kNone: return std::string("ACT_NONE");
    case Activation::kRelu: return std::string("ACT_RELU");
    case Activation::kReluN1To1: return std::string("ACT_RELU_N1_TO_1");
    case Activation::kRelu6: return std::string("ACT_RELU6");
    case Activation::kTanh: return std::string("ACT_TANH");
    case Activation::kSigmoid: return std::string("ACT_SIGMOID");
    case Activation::kSignBit: break;
  }
  return UnimplementedError(std::string(op_name) + ": fused activation " + ActivationName(a) +
                            " has no GL implementation");
}

const std::vector<GlBuilder>& GlBuilders() {
  static const std::vector<GlBuilder> table = [] {
    // Every elementwise table row with a GLSL expression
    // (graph/elementwise_ops.inc), then the other ops' builders.
    std::vector<GlBuilder> rows;
    for (const ElementwiseGlRow& r : ElementwiseGlRows()) {
      bool seen = false;
      for (const GlBuilder& b : rows) seen = seen || b.op == r.op;
      if (!seen) rows.push_back({r.op, BuildElementwise});
    }
    const GlBuilder others[] = {
        {OpType::kConv2d, BuildConv2d},
        {OpType::kDepthwiseConv2d, BuildDepthwiseConv2d},
        {OpType::kTransposeConv, BuildTransposeConv},
        {OpType::kConvolution2DTransposeBias, BuildTransposeConv},
        {OpType::kFullyConnected, BuildFullyConnected},
        {OpType::kBatchMatMul, BuildBatchMatMul},
        {OpType::kGather, BuildGather},
        {OpType::kGatherNd, BuildGatherNd},
        {OpType::kDynamicUpdateSlice, BuildDynamicUpdateSlice},
        {OpType::kStablehloScatter, BuildStablehloScatter},
        {OpType::kEmbeddingLookup, BuildEmbeddingLookup},
        {OpType::kBroadcastTo, BuildBroadcastTo},
        {OpType::kSelect, BuildSelect},
        {OpType::kSelectV2, BuildSelect},
        {OpType::kLayerNorm, BuildLayerNorm},
        {OpType::kRmsNorm, BuildLayerNorm},
        {OpType::kScaledDotProductAttention, BuildAttention},
        {OpType::kRotaryEmbedding, BuildRotaryEmbedding},
        {OpType::kAveragePool2d, BuildPooling},
        {OpType::kMaxPool2d, BuildPooling},
        {OpType::kMaxPoolingWithArgmax2D, BuildPooling},
        {OpType::kMaxUnpooling2D, BuildMaxUnpooling},
        {OpType::kMean, BuildReduce},
        {OpType::kSum, BuildReduce},
        {OpType::kReduceMax, BuildReduce},
        {OpType::kReduceMin, BuildReduce},
        {OpType::kReduceProd, BuildReduce},
        {OpType::kReduceAll, BuildReduce},
        {OpType::kReduceAny, BuildReduce},
        {OpType::kConcatenation, BuildConcatenation},
        {OpType::kPad, BuildPad},
        {OpType::kPadV2, BuildPad},
        {OpType::kMirrorPad, BuildPad},
        {OpType::kReshape, BuildReshape},
        {OpType::kResizeBilinear, BuildResize},
        {OpType::kResizeNearestNeighbor, BuildResize},
        {OpType::kSoftmax, BuildSoftmax},
        {OpType::kLogSoftmax, BuildSoftmax},
        {OpType::kL2Normalization, BuildSoftmax},
        {OpType::kStridedSlice, BuildSlice},
        {OpType::kSlice, BuildSlice},
        {OpType::kDepthToSpace, BuildDepthSpace},
        {OpType::kSpaceToDepth, BuildDepthSpace},
        {OpType::kTile, BuildTile},
        {OpType::kReverseV2, BuildReverse},
        {OpType::kTranspose, BuildTranspose},
        {OpType::kQuantize, BuildQuantize},
        {OpType::kDequantize, BuildQuantize},
        {OpType::kLstm, BuildLstm},
        {OpType::kUnidirectionalSequenceLstm, BuildUnidirectionalSequenceLstm},
        // MediaPipe's custom ops.
        {OpType::kTransformTensorBilinear, BuildTransformTensorBilinear},
        {OpType::kTransformLandmarks, BuildTransformLandmarks},
        {OpType::kLandmarks2TransformMatrix, BuildLandmarks2TransformMatrix},
        {OpType::kCustom, BuildCustom},
    };
    rows.insert(rows.end(), std::begin(others), std::end(others));
    return rows;
  }();
  return table;
}

namespace {
std::atomic<uint64_t> g_generator_runs{0};
}  // namespace

uint64_t GeneratorRuns() { return g_generator_runs.load(std::memory_order_relaxed); }

Status BuildNode(OpBuildContext& ctx, std::vector<Dispatch>* out) {
  g_generator_runs.fetch_add(1, std::memory_order_relaxed);
  for (const GlBuilder& row : GlBuilders()) {
    if (row.op == ctx.node().op) return row.build(ctx, out);
  }
  return UnimplementedError(std::string("op ") + ctx.op_name() + " has no GL kernel");
}

}  // namespace gld::gl
