// Every op of the IR: written by ModelBuilder with distinctive option
// values, read back by the loader, attributes compared field by field.
#include <flatbuffers/flexbuffers.h>

#include <functional>
#include <map>
#include <string>

#include "gldelegate/example_models.hpp"
#include "model/tflite_ops.h"
#include "test_util.h"

namespace gld {
namespace {

using testing::ReadBytes;

bool Eq(const std::monostate&, const std::monostate&) { return true; }
bool Eq(const Conv2dAttributes& a, const Conv2dAttributes& b) {
  return a.padding == b.padding && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.dilation_h == b.dilation_h && a.dilation_w == b.dilation_w && a.activation == b.activation;
}
bool Eq(const Conv3dAttributes& a, const Conv3dAttributes& b) {
  return a.padding == b.padding && a.stride_d == b.stride_d && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.dilation_d == b.dilation_d && a.dilation_h == b.dilation_h && a.dilation_w == b.dilation_w &&
         a.activation == b.activation;
}
bool Eq(const BucketizeAttributes& a, const BucketizeAttributes& b) { return a.boundaries == b.boundaries; }
bool Eq(const UniqueAttributes& a, const UniqueAttributes& b) { return a.idx_int64 == b.idx_int64; }
bool Eq(const DepthwiseConv2dAttributes& a, const DepthwiseConv2dAttributes& b) {
  return a.padding == b.padding && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.dilation_h == b.dilation_h && a.dilation_w == b.dilation_w &&
         a.depth_multiplier == b.depth_multiplier && a.activation == b.activation;
}
bool Eq(const TransposeConvAttributes& a, const TransposeConvAttributes& b) {
  return a.padding == b.padding && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.activation == b.activation;
}
bool Eq(const Pool2dAttributes& a, const Pool2dAttributes& b) {
  return a.padding == b.padding && a.stride_h == b.stride_h && a.stride_w == b.stride_w &&
         a.filter_h == b.filter_h && a.filter_w == b.filter_w && a.activation == b.activation;
}
bool Eq(const FullyConnectedAttributes& a, const FullyConnectedAttributes& b) {
  return a.activation == b.activation && a.keep_num_dims == b.keep_num_dims;
}
bool Eq(const BinaryAttributes& a, const BinaryAttributes& b) { return a.activation == b.activation; }
bool Eq(const ConcatenationAttributes& a, const ConcatenationAttributes& b) {
  return a.axis == b.axis && a.activation == b.activation;
}
bool Eq(const ReshapeAttributes& a, const ReshapeAttributes& b) {
  return a.has_new_shape == b.has_new_shape && a.new_shape == b.new_shape;
}
bool Eq(const ReduceAttributes& a, const ReduceAttributes& b) { return a.keep_dims == b.keep_dims; }
bool Eq(const ResizeAttributes& a, const ResizeAttributes& b) {
  return a.align_corners == b.align_corners && a.half_pixel_centers == b.half_pixel_centers;
}
bool Eq(const BlockSizeAttributes& a, const BlockSizeAttributes& b) { return a.block_size == b.block_size; }
bool Eq(const SoftmaxAttributes& a, const SoftmaxAttributes& b) { return a.beta == b.beta; }
bool Eq(const LeakyReluAttributes& a, const LeakyReluAttributes& b) { return a.alpha == b.alpha; }
bool Eq(const GeluAttributes& a, const GeluAttributes& b) { return a.approximate == b.approximate; }
bool Eq(const MirrorPadAttributes& a, const MirrorPadAttributes& b) { return a.symmetric == b.symmetric; }
bool Eq(const StridedSliceAttributes& a, const StridedSliceAttributes& b) {
  return a.begin_mask == b.begin_mask && a.end_mask == b.end_mask &&
         a.ellipsis_mask == b.ellipsis_mask && a.new_axis_mask == b.new_axis_mask &&
         a.shrink_axis_mask == b.shrink_axis_mask && a.offset == b.offset;
}
bool Eq(const AxisAttributes& a, const AxisAttributes& b) {
  return a.axis == b.axis && a.batch_dims == b.batch_dims && a.count == b.count &&
         a.exclusive == b.exclusive && a.reverse == b.reverse;
}
bool Eq(const SqueezeAttributes& a, const SqueezeAttributes& b) { return a.squeeze_dims == b.squeeze_dims; }
bool Eq(const LrnAttributes& a, const LrnAttributes& b) {
  return a.radius == b.radius && a.bias == b.bias && a.alpha == b.alpha && a.beta == b.beta;
}
bool Eq(const BatchMatMulAttributes& a, const BatchMatMulAttributes& b) {
  return a.adj_x == b.adj_x && a.adj_y == b.adj_y;
}
bool Eq(const LayerNormAttributes& a, const LayerNormAttributes& b) { return a.epsilon == b.epsilon; }
bool Eq(const TransformTensorBilinearAttributes& a, const TransformTensorBilinearAttributes& b) {
  return a.output_height == b.output_height && a.output_width == b.output_width &&
         a.align_corners == b.align_corners;
}
bool Eq(const TransformLandmarksAttributes& a, const TransformLandmarksAttributes& b) {
  return a.version == b.version && a.dimensions == b.dimensions && a.scale == b.scale;
}
bool Eq(const Landmarks2TransformMatrixAttributes& a, const Landmarks2TransformMatrixAttributes& b) {
  return a.version == b.version && a.input_h == b.input_h && a.input_w == b.input_w && a.output_h == b.output_h &&
         a.output_w == b.output_w && a.dimensions == b.dimensions && a.landmarks_range == b.landmarks_range &&
         a.bbox_size_multiplier == b.bbox_size_multiplier &&
         a.target_rotation_radians == b.target_rotation_radians && a.output_height == b.output_height &&
         a.output_width == b.output_width && a.scale_x == b.scale_x && a.scale_y == b.scale_y &&
         a.left_rotation_idx == b.left_rotation_idx && a.right_rotation_idx == b.right_rotation_idx &&
         a.subset == b.subset;
}
bool Eq(const CustomAttributes& a, const CustomAttributes& b) {
  const bool same_options = a.options == nullptr || b.options == nullptr ? a.options == b.options
                                                                         : *a.options == *b.options;
  return a.name == b.name && a.version == b.version && same_options && a.op == b.op;
}
bool Eq(const RecurrentAttributes& a, const RecurrentAttributes& b) {
  return a.activation == b.activation && a.cell_clip == b.cell_clip && a.proj_clip == b.proj_clip &&
         a.time_major == b.time_major && a.merge_outputs == b.merge_outputs &&
         a.asymmetric_quantize_inputs == b.asymmetric_quantize_inputs && a.basic_kernel == b.basic_kernel &&
         a.rank == b.rank;
}

bool Eq(const WhileAttributes& a, const WhileAttributes& b) {
  return a.cond_subgraph == b.cond_subgraph && a.body_subgraph == b.body_subgraph;
}
bool Eq(const IfAttributes& a, const IfAttributes& b) {
  return a.then_subgraph == b.then_subgraph && a.else_subgraph == b.else_subgraph;
}
bool Eq(const CallOnceAttributes& a, const CallOnceAttributes& b) { return a.init_subgraph == b.init_subgraph; }
bool Eq(const CompositeAttributes& a, const CompositeAttributes& b) {
  return a.name == b.name && a.decomposition_subgraph == b.decomposition_subgraph && a.version == b.version &&
         a.numbers == b.numbers;
}
bool Eq(const RmsNormAttributes& a, const RmsNormAttributes& b) { return a.epsilon == b.epsilon; }
bool Eq(const AttentionAttributes& a, const AttentionAttributes& b) { return a.scale == b.scale; }
bool Eq(const ScatterAttributes& a, const ScatterAttributes& b) {
  return a.update_window_dims == b.update_window_dims && a.inserted_window_dims == b.inserted_window_dims &&
         a.scatter_dims_to_operand_dims == b.scatter_dims_to_operand_dims &&
         a.index_vector_dim == b.index_vector_dim && a.update_subgraph == b.update_subgraph;
}
bool Eq(const VarHandleAttributes& a, const VarHandleAttributes& b) {
  return a.container == b.container && a.shared_name == b.shared_name;
}

// MediaPipe's custom options: a flexbuffer map.
std::vector<uint8_t> FlexMap(const std::function<void(flexbuffers::Builder&)>& fill) { return FlexbufferMap(fill); }

bool AttributesEqual(const Attributes& a, const Attributes& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&b](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return Eq(x, std::get<T>(b));
      },
      a);
}

struct Case {
  OpOptions options;
  Attributes expected;
};

Conv2dAttributes ConvExpected() {
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_w = 2;
  a.stride_h = 3;
  a.dilation_w = 2;
  a.dilation_h = 1;
  a.activation = Activation::kRelu6;
  return a;
}

using CaseMap = std::map<std::string, Case>;

// Convolutions, pooling (MediaPipe's pooling custom ops too) and the dense layer.
void AddConvolutionAndPoolCases(CaseMap& c) {
  c["CONV_2D"] = {{{"padding", "SAME"}, {"stride_w", 2}, {"stride_h", 3}, {"dilation_w_factor", 2},
                   {"dilation_h_factor", 1}, {"fused_activation_function", "RELU6"}},
                  ConvExpected()};
  {
    DepthwiseConv2dAttributes a;
    a.padding = Padding::kValid;
    a.stride_w = 1;
    a.stride_h = 2;
    a.dilation_w = 3;
    a.dilation_h = 2;
    a.depth_multiplier = 2;
    a.activation = Activation::kTanh;
    c["DEPTHWISE_CONV_2D"] = {{{"padding", "VALID"}, {"stride_w", 1}, {"stride_h", 2},
                               {"dilation_w_factor", 3}, {"dilation_h_factor", 2},
                               {"depth_multiplier", 2}, {"fused_activation_function", "TANH"}},
                              a};
  }
  {
    TransposeConvAttributes a;
    a.padding = Padding::kValid;
    a.stride_w = 2;
    a.stride_h = 1;
    a.activation = Activation::kRelu;
    c["TRANSPOSE_CONV"] = {{{"padding", "VALID"}, {"stride_w", 2}, {"stride_h", 1},
                            {"fused_activation_function", "RELU"}},
                           a};
    TransposeConvAttributes m;
    m.padding = Padding::kSame;
    m.stride_w = 3;
    m.stride_h = 2;
    m.activation = Activation::kNone;
    c["Convolution2DTransposeBias"] = {{{"padding", "SAME"}, {"stride_w", 3}, {"stride_h", 2}}, m};
  }
  {
    Pool2dAttributes a;
    a.padding = Padding::kSame;
    a.stride_w = 1;
    a.stride_h = 2;
    a.filter_w = 3;
    a.filter_h = 2;
    a.activation = Activation::kReluN1To1;
    OpOptions o = {{"padding", "SAME"}, {"stride_w", 1}, {"stride_h", 2}, {"filter_width", 3},
                   {"filter_height", 2}, {"fused_activation_function", "RELU_N1_TO_1"}};
    c["AVERAGE_POOL_2D"] = {o, a};
    c["MaxPoolingWithArgmax2D"] = {o, a};
    Pool2dAttributes b = a;
    b.padding = Padding::kValid;
    b.activation = Activation::kNone;
    b.filter_w = 2;
    OpOptions p = {{"padding", "VALID"}, {"stride_w", 1}, {"stride_h", 2}, {"filter_width", 2},
                   {"filter_height", 2}};
    c["MAX_POOL_2D"] = {p, b};
    c["MaxUnpooling2D"] = {p, b};
  }
  {
    FullyConnectedAttributes a;
    a.activation = Activation::kRelu;
    a.keep_num_dims = true;
    c["FULLY_CONNECTED"] = {{{"fused_activation_function", "RELU"}, {"keep_num_dims", true}}, a};
  }
  {
    Conv3dAttributes a;
    a.padding = Padding::kSame;
    a.stride_d = 2;
    a.stride_h = 3;
    a.stride_w = 1;
    a.dilation_d = 1;
    a.dilation_h = 2;
    a.dilation_w = 3;
    a.activation = Activation::kRelu;
    c["CONV_3D"] = {{{"padding", "SAME"}, {"stride_d", 2}, {"stride_h", 3}, {"stride_w", 1},
                     {"dilation_h_factor", 2}, {"dilation_w_factor", 3}, {"fused_activation_function", "RELU"}},
                    a};
  }
}

// The elementwise binary ops (with a fused activation or without options)
// and the comparisons.
void AddElementwiseCases(CaseMap& c) {
  const std::pair<const char*, Activation> binary[] = {
      {"ADD", Activation::kRelu}, {"SUB", Activation::kRelu6}, {"MUL", Activation::kTanh},
      {"DIV", Activation::kSignBit}};
  for (const auto& [op, act] : binary) {
    BinaryAttributes a;
    a.activation = act;
    c[op] = {{{"fused_activation_function", ActivationName(act)}}, a};
  }
  // The elementwise table's binary ops without options of their own (MAXIMUM,
  // POW, ...), and the comparisons.
  for (OpType op : AllOpTypes()) {
    if (ElementwiseArity(op) == 2 && c.count(OpTypeName(op)) == 0) c[OpTypeName(op)] = {{}, BinaryAttributes{}};
  }
  for (const char* op : {"EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
                         "LOGICAL_AND", "LOGICAL_OR"}) {
    c[op] = {{}, BinaryAttributes{}};
  }
}

// Ops that move, reduce or resize tensors.
void AddLayoutCases(CaseMap& c) {
  {
    ConcatenationAttributes a;
    a.axis = -1;
    a.activation = Activation::kRelu;
    c["CONCATENATION"] = {{{"axis", -1}, {"fused_activation_function", "RELU"}}, a};
  }
  {
    ReshapeAttributes a;
    a.has_new_shape = true;
    a.new_shape = {2, -1};
    c["RESHAPE"] = {{{"new_shape", std::vector<int>{2, -1}}}, a};
  }
  for (const char* op : {"MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_ANY", "REDUCE_ALL"}) {
    ReduceAttributes a;
    a.keep_dims = true;
    c[op] = {{{"keep_dims", true}}, a};
  }
  {
    ResizeAttributes a;
    a.half_pixel_centers = true;
    c["RESIZE_BILINEAR"] = {{{"half_pixel_centers", true}}, a};
    ResizeAttributes b;
    b.align_corners = true;
    c["RESIZE_NEAREST_NEIGHBOR"] = {{{"align_corners", true}}, b};
  }
  c["DEPTH_TO_SPACE"] = {{{"block_size", 2}}, BlockSizeAttributes{2}};
  c["SPACE_TO_DEPTH"] = {{{"block_size", 3}}, BlockSizeAttributes{3}};
  c["MIRROR_PAD"] = {{{"mode", "SYMMETRIC"}}, MirrorPadAttributes{true}};
  {
    StridedSliceAttributes a;
    a.begin_mask = 1;
    a.end_mask = 2;
    a.ellipsis_mask = 4;
    a.new_axis_mask = 8;
    a.shrink_axis_mask = 16;
    a.offset = true;
    c["STRIDED_SLICE"] = {{{"begin_mask", 1}, {"end_mask", 2}, {"ellipsis_mask", 4},
                           {"new_axis_mask", 8}, {"shrink_axis_mask", 16}, {"offset", true}},
                          a};
  }
  {
    AxisAttributes a;
    a.axis = 1;
    a.batch_dims = 1;
    c["GATHER"] = {{{"axis", 1}, {"batch_dims", 1}}, a};
    AxisAttributes pack;
    pack.axis = 2;
    pack.count = 1;  // values_count defaults to the number of inputs
    c["PACK"] = {{{"axis", 2}}, pack};
    AxisAttributes unpack;
    unpack.axis = 1;
    unpack.count = 2;
    c["UNPACK"] = {{{"axis", 1}, {"num", 2}}, unpack};
    AxisAttributes one_hot;
    one_hot.axis = 0;
    c["ONE_HOT"] = {{{"axis", 0}}, one_hot};
    AxisAttributes split;
    split.count = 2;
    c["SPLIT"] = {{{"num_splits", 2}}, split};
    c["SPLIT_V"] = {{{"num_splits", 2}}, split};
    AxisAttributes cumsum;
    cumsum.exclusive = true;
    cumsum.reverse = true;
    c["CUMSUM"] = {{{"exclusive", true}, {"reverse", true}}, cumsum};
  }
  c["SQUEEZE"] = {{{"squeeze_dims", std::vector<int>{0, 2}}}, SqueezeAttributes{{0, 2}}};
}

// Activations, normalization, matrix products and ops with one option of their own.
void AddActivationAndOtherCases(CaseMap& c) {
  c["SOFTMAX"] = {{{"beta", 0.5}}, SoftmaxAttributes{0.5f}};
  c["LEAKY_RELU"] = {{{"alpha", 0.125}}, LeakyReluAttributes{0.125f}};
  c["GELU"] = {{{"approximate", true}}, GeluAttributes{true}};
  {
    LrnAttributes a;
    a.radius = 3;
    a.bias = 2.0f;
    a.alpha = 0.5f;
    a.beta = 0.75f;
    c["LOCAL_RESPONSE_NORMALIZATION"] = {
        {{"radius", 3}, {"bias", 2.0}, {"alpha", 0.5}, {"beta", 0.75}}, a};
  }
  {
    BatchMatMulAttributes a;
    a.adj_x = true;
    c["BATCH_MATMUL"] = {{{"adj_x", true}}, a};
  }
  {
    BucketizeAttributes bucketize;
    bucketize.boundaries = {-1.5f, 0.f, 2.25f};
    c["BUCKETIZE"] = {{{"boundaries", std::vector<float>{-1.5f, 0.f, 2.25f}}}, bucketize};
    UniqueAttributes unique;
    unique.idx_int64 = true;
    c["UNIQUE"] = {{{"idx_out_type", "INT64"}}, unique};
  }
}

// Control flow and resource variables.
void AddControlFlowCases(CaseMap& c) {
  c["VAR_HANDLE"] = {{{"container", "c"}, {"shared_name", "state"}}, VarHandleAttributes{"c", "state"}};
  for (const char* op : {"WHILE", "IF", "CALL_ONCE"}) c[op] = {{}, std::monostate{}};
}

// MediaPipe's custom ops, whose options are a flexbuffer map.
void AddMediaPipeCases(CaseMap& c) {
  {
    OpOptions o;
    o.custom_options = FlexMap([](flexbuffers::Builder& b) {
      b.Int("output_height", 3);
      b.Int("output_width", 5);
    });
    o.version = 2;
    c["TransformTensorBilinear"] = {o, TransformTensorBilinearAttributes{3, 5, true}};
  }
  {
    OpOptions o;
    o.custom_options = FlexMap([](flexbuffers::Builder& b) {
      b.Int("dimensions", 3);
      b.Float("scale", 0.5f);
    });
    o.version = 1;
    c["TransformLandmarks"] = {o, TransformLandmarksAttributes{1, 3, 0.5f}};
  }
  {
    OpOptions o;
    o.custom_options = FlexMap([](flexbuffers::Builder& b) {
      b.TypedVector("subset_idxs", [&]() {
        b.Int(4);
        b.Int(1);
        b.Int(7);
      });
      b.Int("left_rotation_idx", 2);
      b.Int("right_rotation_idx", 6);
      b.Float("target_rotation_radians", 0.25f);
      b.Int("output_height", 8);
      b.Int("output_width", 9);
      b.Float("scale_x", 1.5f);
      b.Float("scale_y", 2.5f);
    });
    o.version = 2;
    Landmarks2TransformMatrixAttributes a;
    a.version = 2;
    a.subset = {{4, 1}, {7, 7}};
    a.left_rotation_idx = 2;
    a.right_rotation_idx = 6;
    a.target_rotation_radians = 0.25f;
    a.output_height = 8;
    a.output_width = 9;
    a.scale_x = 1.5f;
    a.scale_y = 2.5f;
    c["Landmarks2TransformMatrix"] = {o, a};
  }
}

// The recurrent ops: every field each options table has.
void AddRecurrentCases(CaseMap& c) {
  {
    // The recurrent ops: every field each options table has.
    RecurrentAttributes lstm;
    lstm.activation = Activation::kTanh;
    lstm.cell_clip = 2.5f;
    lstm.proj_clip = 0.5f;
    lstm.basic_kernel = true;
    lstm.asymmetric_quantize_inputs = true;
    c["LSTM"] = {{{"fused_activation_function", "TANH"}, {"cell_clip", 2.5}, {"proj_clip", 0.5},
                  {"kernel_type", "BASIC"}, {"asymmetric_quantize_inputs", true}},
                 lstm};
    RecurrentAttributes uni;
    uni.activation = Activation::kRelu;
    uni.cell_clip = 10.f;
    uni.time_major = true;
    c["UNIDIRECTIONAL_SEQUENCE_LSTM"] = {
        {{"fused_activation_function", "RELU"}, {"cell_clip", 10.0}, {"time_major", true}}, uni};
    RecurrentAttributes bidi;
    bidi.activation = Activation::kTanh;
    bidi.proj_clip = 3.f;
    bidi.merge_outputs = true;
    bidi.time_major = false;
    c["BIDIRECTIONAL_SEQUENCE_LSTM"] = {{{"fused_activation_function", "TANH"}, {"proj_clip", 3.0},
                                         {"merge_outputs", true}, {"time_major", false}},
                                        bidi};
    RecurrentAttributes rnn;
    rnn.activation = Activation::kRelu6;
    c["RNN"] = {{{"fused_activation_function", "RELU6"}}, rnn};
    RecurrentAttributes seq = rnn;
    seq.time_major = true;
    c["UNIDIRECTIONAL_SEQUENCE_RNN"] = {{{"fused_activation_function", "RELU6"}, {"time_major", true}}, seq};
    RecurrentAttributes bidi_rnn;
    bidi_rnn.activation = Activation::kTanh;
    bidi_rnn.merge_outputs = true;
    c["BIDIRECTIONAL_SEQUENCE_RNN"] = {{{"fused_activation_function", "TANH"}, {"merge_outputs", true}}, bidi_rnn};
    RecurrentAttributes svdf;
    svdf.rank = 2;
    svdf.activation = Activation::kRelu;
    c["SVDF"] = {{{"rank", 2}, {"fused_activation_function", "RELU"}}, svdf};
  }
}

// The option values of each op with attributes, and what must come back.
CaseMap Cases() {
  CaseMap c;
  AddConvolutionAndPoolCases(c);
  AddElementwiseCases(c);
  AddLayoutCases(c);
  AddActivationAndOtherCases(c);
  AddControlFlowCases(c);
  AddMediaPipeCases(c);
  AddRecurrentCases(c);
  return c;
}

// A model with one `op` node whose inputs are graph inputs.
StatusOr<std::vector<uint8_t>> OneOpModel(OpType op, const OpOptions& options,
                                          BuildOptions::OpCodeStyle style) {
  ModelBuilder b;
  const OpInfo& arity = GetOpInfo(op);
  const int outputs = arity.max_outputs < 0 ? 2 : arity.min_outputs;
  std::vector<int> in, out;
  for (int i = 0; i < arity.min_inputs; ++i) {
    in.push_back(b.AddInput("in" + std::to_string(i), ElementType::kFloat32, {1, 2, 2, 4}));
  }
  for (int i = 0; i < outputs; ++i) {
    out.push_back(b.AddTensor("out" + std::to_string(i), ElementType::kFloat32, {1, 2, 2, 4}));
  }
  GLD_RETURN_IF_ERROR(b.AddOp(OpTypeName(op), in, out, options));
  b.SetOutputs(out);
  BuildOptions bo;
  bo.op_codes = style;
  return b.Finish(bo);
}

TEST(OpMapping, EveryOpRoundTripsWithItsAttributes) {
  const auto cases = Cases();
  int checked_with_options = 0;
  for (OpType op : AllOpTypes()) {
    SCOPED_TRACE(OpTypeName(op));
    // An app's custom op has no name of its own (reader_test: UnknownCustomOpsAreAppCustomOps).
    if (op == OpType::kCustom) continue;
    auto it = cases.find(OpTypeName(op));
    const Case c = it != cases.end() ? it->second : Case{{}, std::monostate{}};
    if (it != cases.end()) ++checked_with_options;
    auto bytes = OneOpModel(op, c.options, BuildOptions::OpCodeStyle::kBoth);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    if (op == OpType::kStablehloScatter) {
      // Its update computation is subgraph 0, the scatter itself: not the
      // form the reader runs (tests/models/decoders_test.cc reads real ones).
      GLD_EXPECT_ERROR(ReadBytes(*bytes), "node 0 (STABLEHLO_SCATTER)", "is not the plain assignment");
      continue;
    }
    if (op == OpType::kWhile || op == OpType::kIf || op == OpType::kCallOnce || op == OpType::kStablehloComposite) {
      // The one subgraph calls itself (the indices read back as 0): the
      // reader refuses the recursion (subgraph_reader_test reads the
      // attributes of models with callees).
      const std::string call = "node 0 (" + std::string(OpTypeName(op)) + ") calls subgraph 0";
      GLD_EXPECT_ERROR(ReadBytes(*bytes), call.c_str(), "recursion");
      continue;
    }
    auto g = ReadBytes(*bytes);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ASSERT_EQ(g->nodes.size(), 1u);
    EXPECT_EQ(g->nodes[0].source_index, 0);
    if (IsPassOp(op)) {
      // The library's own op that a pass makes is no file's op: a custom_code
      // naming it is an app's custom op.
      EXPECT_EQ(g->nodes[0].op, OpType::kCustom);
      continue;
    }
    if (tflite_ops::IsLibraryCustomOp(op)) {
      // A custom node an app may take over, holding the library's row with
      // the attributes parsed (BindCustomOps makes it that row).
      ASSERT_EQ(g->nodes[0].op, OpType::kCustom);
      const auto& custom = g->nodes[0].attrs<CustomAttributes>();
      EXPECT_EQ(custom.name, OpTypeName(op));
      ASSERT_NE(custom.library, nullptr);
      EXPECT_EQ(custom.library->op, op);
      EXPECT_TRUE(AttributesEqual(custom.library->attributes, c.expected));
      continue;
    }
    EXPECT_EQ(g->nodes[0].op, op);
    EXPECT_TRUE(AttributesEqual(g->nodes[0].attributes, c.expected))
        << "attribute variant index " << g->nodes[0].attributes.index() << ", expected "
        << c.expected.index();
  }
  EXPECT_EQ(checked_with_options, static_cast<int>(cases.size())) << "a case names no IR op";
}

TEST(OpMapping, BuiltinCodesMatchTheSchema) {
  // A few codes fixed by the TFLite schema; the rest follow by name.
  const std::pair<OpType, int32_t> known[] = {
      {OpType::kAdd, 0},        {OpType::kConv2d, 3},      {OpType::kDepthwiseConv2d, 4},
      {OpType::kDequantize, 6}, {OpType::kMaxPool2d, 17},  {OpType::kPrelu, 54},
      {OpType::kHardSwish, 117}, {OpType::kDensify, 124},  {OpType::kBatchMatMul, 126},
      {OpType::kCumsum, 128},   {OpType::kBroadcastTo, 130}, {OpType::kGelu, 150},
      {OpType::kRelu0To1, 152}, {OpType::kSign, 158},  {OpType::kTopkV2, 48},
      {OpType::kWhere, 109}};
  for (const auto& [op, code] : known) {
    int32_t got = -1;
    EXPECT_TRUE(tflite_ops::BuiltinFromOpType(op, &got)) << OpTypeName(op);
    EXPECT_EQ(got, code) << OpTypeName(op);
    OpType back;
    ASSERT_TRUE(tflite_ops::OpTypeFromBuiltin(code, &back));
    EXPECT_EQ(back, op);
  }
  int32_t code;
  EXPECT_FALSE(tflite_ops::BuiltinFromOpType(OpType::kConvolution2DTransposeBias, &code));
  OpType op;
  EXPECT_FALSE(tflite_ops::OpTypeFromBuiltin(113, &op));  // MATRIX_DIAG: not in the IR
  EXPECT_FALSE(tflite_ops::OpTypeFromBuiltin(-1, &op));
  EXPECT_FALSE(tflite_ops::OpTypeFromBuiltin(100000, &op));
}

TEST(OpMapping, OpCodeStylesReadTheSame) {
  const auto cases = Cases();
  for (const char* name : {"ADD", "CONV_2D", "DENSIFY", "BATCH_MATMUL"}) {
    SCOPED_TRACE(name);
    OpType op;
    ASSERT_TRUE(OpTypeFromName(name, &op));
    auto it = cases.find(name);
    const OpOptions options = it != cases.end() ? it->second.options : OpOptions{};
    for (auto style : {BuildOptions::OpCodeStyle::kBoth, BuildOptions::OpCodeStyle::kDeprecatedOnly,
                       BuildOptions::OpCodeStyle::kBuiltinCodeOnly}) {
      auto bytes = OneOpModel(op, options, style);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto g = ReadBytes(*bytes);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      EXPECT_EQ(g->nodes[0].op, op);
    }
  }
  // Codes from 127 up exist only in builtin_code; the byte holds 127.
  for (const char* name : {"GELU", "CUMSUM", "SIGN", "RELU_0_TO_1"}) {
    SCOPED_TRACE(name);
    OpType op;
    ASSERT_TRUE(OpTypeFromName(name, &op));
    for (auto style : {BuildOptions::OpCodeStyle::kBoth, BuildOptions::OpCodeStyle::kBuiltinCodeOnly}) {
      auto bytes = OneOpModel(op, {}, style);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      auto g = ReadBytes(*bytes);
      ASSERT_TRUE(g.ok()) << g.status().ToString();
      EXPECT_EQ(g->nodes[0].op, op);
    }
    GLD_EXPECT_ERROR(OneOpModel(op, {}, BuildOptions::OpCodeStyle::kDeprecatedOnly),
                     "does not fit deprecated_builtin_code");
  }
}

TEST(OpMapping, MediaPipeRawTransposeConvBytes) {
  // The 12 bytes selfie_segmentation.tflite stores: SAME, stride 2 x 2.
  OpOptions o;
  o.custom_options = {1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};
  auto bytes = OneOpModel(OpType::kConvolution2DTransposeBias, o, BuildOptions::OpCodeStyle::kBoth);
  ASSERT_TRUE(bytes.ok());
  auto g = ReadBytes(*bytes);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const auto& a = g->nodes[0].attrs<TransposeConvAttributes>();
  EXPECT_EQ(a.padding, Padding::kSame);
  EXPECT_EQ(a.stride_w, 2);
  EXPECT_EQ(a.stride_h, 2);
  EXPECT_EQ(a.activation, Activation::kNone);

  o.custom_options = {1, 0, 0, 0, 2, 0, 0, 0};  // too short
  bytes = OneOpModel(OpType::kConvolution2DTransposeBias, o, BuildOptions::OpCodeStyle::kBoth);
  ASSERT_TRUE(bytes.ok());
  GLD_EXPECT_ERROR(ReadBytes(*bytes), "node 0 (Convolution2DTransposeBias)", "8 bytes, need 12");

  o.custom_options = {7, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0};  // padding 7
  bytes = OneOpModel(OpType::kConvolution2DTransposeBias, o, BuildOptions::OpCodeStyle::kBoth);
  ASSERT_TRUE(bytes.ok());
  GLD_EXPECT_ERROR(ReadBytes(*bytes), "node 0 (Convolution2DTransposeBias)", "padding 7");
}

TEST(OpMapping, BuilderRejectsUnknownOpsAndOptions) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 4});
  GLD_EXPECT_ERROR(b.AddOp("CONV2D", {x}, {y}), "unknown op 'CONV2D'");
  GLD_EXPECT_ERROR(b.AddOp("ADD", {x, x}, {y}, {{"stride", 2}}), "ADD: unknown option 'stride'");
  GLD_EXPECT_ERROR(b.AddOp("CONV_2D", {x, x}, {y}, {{"padding", "FULL"}}), "option 'padding'", "SAME");
  GLD_EXPECT_ERROR(b.AddOp("CONV_2D", {x, x}, {y}, {{"stride_w", "two"}}), "option 'stride_w'");
  GLD_EXPECT_ERROR(b.AddOp("DEPTH_TO_SPACE", {x}, {y}), "option 'block_size' is required");
  GLD_EXPECT_ERROR(b.AddOp("ADD", {x, 7}, {y}), "input 1 is tensor 7");
  GLD_EXPECT_ERROR(b.AddOp("CUSTOM", {x}, {y}), "AddCustomOp");
  EXPECT_TRUE(b.AddOp("ADD", {x, x}, {y}, {{"fused_activation_function", "RELU"}}).ok());
}

}  // namespace
}  // namespace gld
