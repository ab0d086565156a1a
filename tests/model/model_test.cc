// gld::Model on builder-made models and the six shared MediaPipe models.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>

#include "gldelegate/tflite_generated.h"
#include "api/model_impl.h"
#include "common/model_paths.h"
#include "test_util.h"

namespace gld {
namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(Model, InfosFromABuiltModel) {
  ModelBuilder b;
  QuantizationInfo q;
  q.scale = {0.5f};
  q.zero_point = {2};
  int x = b.AddInput("x", ElementType::kUInt8, {1, 4}, q);
  int xf = b.AddTensor("xf", ElementType::kFloat32, {1, 4});
  int w = b.AddConstantFloat("w", {3, 4}, std::vector<float>(12, 0.5f));
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 3});
  int z = b.AddTensor("z", ElementType::kFloat32, {1, 3});
  ASSERT_TRUE(b.AddOp("DEQUANTIZE", {x}, {xf}).ok());
  ASSERT_TRUE(b.AddOp("FULLY_CONNECTED", {xf, w, -1}, {y}).ok());
  ASSERT_TRUE(b.AddOp("RELU", {y}, {z}).ok());
  b.SetOutputs({z});
  BuildOptions o;
  o.description = "tiny fc";
  auto bytes = b.Finish(o);
  ASSERT_TRUE(bytes.ok());
  auto m = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Model& model = **m;
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_EQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.inputs()[0].type, ElementType::kUInt8);
  EXPECT_EQ(model.inputs()[0].shape, (std::vector<int>{1, 4}));
  EXPECT_EQ(model.inputs()[0].bytes, 4u);
  EXPECT_EQ(model.inputs()[0].quantization.scale, std::vector<float>{0.5f});
  EXPECT_EQ(model.inputs()[0].quantization.zero_point, std::vector<int64_t>{2});
  ASSERT_EQ(model.outputs().size(), 1u);
  EXPECT_EQ(model.outputs()[0].name, "z");
  EXPECT_EQ(model.outputs()[0].bytes, 12u);
  ASSERT_EQ(model.nodes().size(), 3u);
  const NodeInfo& fc = model.nodes()[1];
  EXPECT_EQ(fc.index, 1);
  EXPECT_EQ(fc.op, "FULLY_CONNECTED");
  EXPECT_EQ(fc.input_names, (std::vector<std::string>{"xf", "w", ""}));
  EXPECT_EQ(fc.input_shapes, (std::vector<std::vector<int>>{{1, 4}, {3, 4}, {}}));
  EXPECT_EQ(fc.output_names, std::vector<std::string>{"y"});
  EXPECT_EQ(model.OpHistogram(),
            (std::vector<std::pair<std::string, int>>{{"DEQUANTIZE", 1}, {"FULLY_CONNECTED", 1}, {"RELU", 1}}));
  EXPECT_EQ(model.description(), "tiny fc");
  EXPECT_TRUE(model.OtherSubgraphs().empty());

  const Model::Impl& impl = model.impl();
  EXPECT_EQ(impl.Fingerprint().size(), 16u);
  EXPECT_EQ(impl.Fingerprint().find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(impl.graph.nodes.size(), 3u);
  EXPECT_EQ(impl.graph.tensors[w].type, DataType::kFloat32);
}

// The fingerprint (hashed on first use from what the Model keeps) tells
// apart models that differ in one constant value or only outside their
// constants, and is the same for the same bytes.
TEST(Model, FingerprintCoversTheConstantsAndTheRest) {
  auto build = [](float value, const std::string& description) {
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
    std::vector<float> weights(12, 0.5f);
    weights[7] = value;
    int w = b.AddConstantFloat("w", {3, 4}, weights);
    int y = b.AddTensor("y", ElementType::kFloat32, {1, 3});
    EXPECT_TRUE(b.AddOp("FULLY_CONNECTED", {x, w, -1}, {y}).ok());
    b.SetOutputs({y});
    BuildOptions o;
    o.description = description;
    auto bytes = b.Finish(o);
    EXPECT_TRUE(bytes.ok());
    auto m = Model::FromBuffer(bytes->data(), bytes->size());
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return (*m)->impl().Fingerprint();
  };
  const std::string base = build(0.5f, "a");
  EXPECT_EQ(build(0.5f, "a"), base);
  EXPECT_NE(build(0.75f, "a"), base);
  EXPECT_NE(build(0.5f, "b"), base);
}

TEST(Model, FileErrors) {
  auto m = Model::FromFile("/nonexistent/dir/model.tflite");
  GLD_EXPECT_ERROR(m, "cannot open model file '/nonexistent/dir/model.tflite'");
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);

  const std::string path = ::testing::TempDir() + "/gld_model_test_garbage.tflite";
  {
    std::ofstream f(path, std::ios::binary);
    f << "this is not a model at all, just some text that is long enough";
  }
  GLD_EXPECT_ERROR(Model::FromFile(path), path.c_str(), "verification failed");
  std::remove(path.c_str());
}

TEST(Model, WriteFileAndReadBack) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {2, 2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2, 2});
  ASSERT_TRUE(b.AddOp("TANH", {x}, {y}).ok());
  b.SetOutputs({y});
  const std::string path = ::testing::TempDir() + "/gld_model_test_tanh.tflite";
  ASSERT_TRUE(b.WriteFile(path).ok());
  auto m = Model::FromFile(path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->nodes()[0].op, "TANH");
  std::remove(path.c_str());
}

TEST(ApiEnums, NamesAndParsing) {
  EXPECT_STREQ(VersionString(), "0.1.0");
  EXPECT_STREQ(BackendName(Backend::kGl), "gl");
  EXPECT_STREQ(PrecisionName(Precision::kFp16), "fp16");
  for (Backend bk : {Backend::kAuto, Backend::kGl, Backend::kCpu}) {
    auto parsed = ParseBackend(BackendName(bk));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, bk);
  }
  EXPECT_STREQ(PrecisionName(Precision::kFp16Mediump), "fp16_mediump");
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump}) {
    auto parsed = ParsePrecision(PrecisionName(p));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, p);
  }
  GLD_EXPECT_ERROR(ParseBackend("vulkan"), "'vulkan'");
  GLD_EXPECT_ERROR(ParsePrecision("int8"), "'int8'");
  for (DataType t : {DataType::kFloat32, DataType::kFloat16, DataType::kFloat64, DataType::kInt8,
                     DataType::kUInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64,
                     DataType::kBool}) {
    const ElementType e = ToElementType(t);
    EXPECT_EQ(FromElementType(e), t);
    EXPECT_EQ(ElementTypeSize(e), DataTypeSize(t));
    EXPECT_STREQ(ElementTypeName(e), DataTypeName(t));
  }
}

// ---------------------------------------------------------------------------
// The shared MediaPipe models (facts from MODELS.md).

struct Expected {
  size_t ops;
  std::vector<std::pair<std::string, std::vector<int>>> inputs, outputs;
  std::map<std::string, int> histogram;
};

const std::map<std::string, Expected>& SharedExpectations() {
  static const std::map<std::string, Expected> e = {
      {"face_detection_short_range.tflite",
       {164,
        {{"input", {1, 128, 128, 3}}},
        {{"regressors", {1, 896, 16}}, {"classificators", {1, 896, 1}}},
        {{"DEQUANTIZE", 74}, {"CONV_2D", 21}, {"RELU", 17}, {"DEPTHWISE_CONV_2D", 16}, {"ADD", 16},
         {"PAD", 11}, {"RESHAPE", 4}, {"MAX_POOL_2D", 3}, {"CONCATENATION", 2}}}},
      {"face_landmark.tflite",
       {210,
        {{"input_1", {1, 192, 192, 3}}},
        {{"conv2d_21", {1, 1, 1, 1404}}, {"conv2d_31", {1, 1, 1, 1}}},
        {{"DEQUANTIZE", 113}, {"CONV_2D", 25}, {"PRELU", 23}, {"DEPTHWISE_CONV_2D", 20}, {"ADD", 20},
         {"MAX_POOL_2D", 6}, {"PAD", 3}}}},
      {"hand_landmark_lite.tflite",
       {167,
        {{"input_1", {1, 224, 224, 3}}},
        {{"Identity", {1, 63}}, {"Identity_1", {1, 1}}, {"Identity_2", {1, 1}}, {"Identity_3", {1, 63}}},
        {{"DEQUANTIZE", 102}, {"CONV_2D", 31}, {"DEPTHWISE_CONV_2D", 16}, {"ADD", 10},
         {"FULLY_CONNECTED", 4}, {"LOGISTIC", 2}, {"MAX_POOL_2D", 1}, {"MEAN", 1}}}},
      {"palm_detection_lite.tflite",
       {232,
        {{"input_1", {1, 192, 192, 3}}},
        {{"Identity", {1, 2016, 18}}, {"Identity_1", {1, 2016, 1}}},
        {{"DEQUANTIZE", 113}, {"CONV_2D", 30}, {"PRELU", 26}, {"ADD", 25}, {"DEPTHWISE_CONV_2D", 23},
         {"MAX_POOL_2D", 4}, {"RESHAPE", 4}, {"PAD", 3}, {"RESIZE_BILINEAR", 2}, {"CONCATENATION", 2}}}},
      {"pose_detection.tflite",
       {291,
        {{"input_1", {1, 224, 224, 3}}},
        {{"Identity", {1, 2254, 12}}, {"Identity_1", {1, 2254, 1}}},
        {{"DEQUANTIZE", 144}, {"CONV_2D", 45}, {"DENSIFY", 38}, {"DEPTHWISE_CONV_2D", 28}, {"ADD", 15},
         {"PAD", 8}, {"RESHAPE", 6}, {"DEPTH_TO_SPACE", 3}, {"RESIZE_BILINEAR", 2},
         {"CONCATENATION", 2}}}},
      {"selfie_segmentation.tflite",
       {246,
        {{"input_1", {1, 256, 256, 3}}},
        {{"activation_10", {1, 256, 256, 1}}},
        {{"DEQUANTIZE", 110}, {"CONV_2D", 43}, {"RELU", 22}, {"ADD", 14}, {"HARD_SWISH", 11},
         {"DEPTHWISE_CONV_2D", 11}, {"LOGISTIC", 11}, {"AVERAGE_POOL_2D", 10}, {"MUL", 10},
         {"RESIZE_BILINEAR", 3}, {"Convolution2DTransposeBias", 1}}}},
  };
  return e;
}

class SharedModels : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!testing::SharedModelsPresent()) {
      GTEST_SKIP() << testing::MissingModelsMessage();
    }
  }
};

TEST_P(SharedModels, LoadsWithTheDocumentedOps) {
  const std::string name = GetParam();
  const Expected& want = SharedExpectations().at(name);
  auto m = Model::FromFile(testing::ModelPath(name));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Model& model = **m;
  EXPECT_EQ(model.nodes().size(), want.ops);
  std::map<std::string, int> histogram;
  for (const auto& [op, count] : model.OpHistogram()) histogram[op] = count;
  EXPECT_EQ(histogram, want.histogram);
  ASSERT_EQ(model.inputs().size(), want.inputs.size());
  for (size_t i = 0; i < want.inputs.size(); ++i) {
    EXPECT_EQ(model.inputs()[i].name, want.inputs[i].first);
    EXPECT_EQ(model.inputs()[i].shape, want.inputs[i].second);
    EXPECT_EQ(model.inputs()[i].type, ElementType::kFloat32);
  }
  ASSERT_EQ(model.outputs().size(), want.outputs.size());
  for (size_t i = 0; i < want.outputs.size(); ++i) {
    EXPECT_EQ(model.outputs()[i].name, want.outputs[i].first);
    EXPECT_EQ(model.outputs()[i].shape, want.outputs[i].second);
  }

  // No float16 constant is left; every DEQUANTIZE reads a float32 constant
  // or (pose_detection) the float16 output of a DENSIFY.
  const Graph& g = model.impl().graph;
  for (const Tensor& t : g.tensors) {
    if (t.is_constant) {
      EXPECT_NE(t.type, DataType::kFloat16) << t.name;
    }
  }
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kDequantize) continue;
    const Tensor& in = g.tensors[static_cast<size_t>(n.inputs[0])];
    if (in.is_constant) {
      EXPECT_EQ(in.type, DataType::kFloat32) << in.name;
    } else {
      const int producer = g.Producer(n.inputs[0]);
      ASSERT_GE(producer, 0) << in.name;
      EXPECT_EQ(g.nodes[static_cast<size_t>(producer)].op, OpType::kDensify) << in.name;
      EXPECT_EQ(in.type, DataType::kFloat16) << in.name;
    }
  }
}

TEST_P(SharedModels, Float16ConstantsMatchTheFile) {
  // Decode the file's float16 buffers independently (by arithmetic) and
  // compare with the loaded float32 values.
  const std::string path = testing::ModelPath(GetParam());
  const std::vector<uint8_t> bytes = ReadFile(path);
  auto m = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Graph& g = (*m)->impl().graph;
  const tflite::Model* file = tflite::GetModel(bytes.data());
  const auto* tensors = file->subgraphs()->Get(0)->tensors();
  int compared = 0;
  for (flatbuffers::uoffset_t i = 0; i < tensors->size(); ++i) {
    const tflite::Tensor* t = tensors->Get(i);
    if (t->type() != tflite::TensorType::FLOAT16 || t->buffer() == 0) continue;
    const auto* data = file->buffers()->Get(t->buffer())->data();
    if (data == nullptr || data->size() == 0) continue;
    const std::vector<float> loaded = testing::FloatsOf(g.tensors[i]);
    ASSERT_EQ(loaded.size() * 2, data->size()) << t->name()->str();
    for (size_t k = 0; k < loaded.size(); ++k) {
      uint16_t h;
      std::memcpy(&h, data->data() + 2 * k, 2);
      const float want = testing::RefHalfToFloat(h);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(loaded[k])) << t->name()->str() << "[" << k << "]";
      } else {
        ASSERT_EQ(loaded[k], want) << t->name()->str() << "[" << k << "]";
      }
    }
    ++compared;
  }
  EXPECT_GT(compared, 0);
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModels,
                         ::testing::ValuesIn(testing::SharedModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           return n;
                         });

class SharedModelDetails : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::SharedModelsPresent()) {
      GTEST_SKIP() << testing::MissingModelsMessage();
    }
  }
};

TEST_F(SharedModelDetails, SelfieTransposeConvOptions) {
  auto m = Model::FromFile(testing::ModelPath("selfie_segmentation.tflite"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Graph& g = (*m)->impl().graph;
  int found = 0;
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kConvolution2DTransposeBias) continue;
    ++found;
    const auto& a = n.attrs<TransposeConvAttributes>();
    EXPECT_EQ(a.padding, Padding::kSame);
    EXPECT_EQ(a.stride_w, 2);
    EXPECT_EQ(a.stride_h, 2);
    ASSERT_EQ(n.inputs.size(), 3u);
    EXPECT_EQ(g.tensors[static_cast<size_t>(n.inputs[1])].shape, (Shape{1, 2, 2, 16}));
  }
  EXPECT_EQ(found, 1);
}

TEST_F(SharedModelDetails, PoseDetectionSparseWeights) {
  auto m = Model::FromFile(testing::ModelPath("pose_detection.tflite"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Graph& g = (*m)->impl().graph;
  int densify = 0;
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kDensify) continue;
    ++densify;
    const Tensor& in = g.tensors[static_cast<size_t>(n.inputs[0])];
    ASSERT_TRUE(in.sparsity.has_value()) << in.name;
    EXPECT_TRUE(in.is_constant);
    EXPECT_EQ(in.type, DataType::kFloat32);
    // Stored values: fewer than the dense element count.
    EXPECT_LT(static_cast<int64_t>(in.data.size() / 4), in.num_elements()) << in.name;
    EXPECT_EQ(in.sparsity->dim_metadata.size(), in.sparsity->traversal_order.size());
  }
  EXPECT_EQ(densify, 38);
}

TEST_F(SharedModelDetails, DeprecatedOpCodesOnly) {
  // face_detection_short_range.tflite predates builtin_code: only the byte is set.
  const std::vector<uint8_t> bytes = ReadFile(testing::ModelPath("face_detection_short_range.tflite"));
  const tflite::Model* file = tflite::GetModel(bytes.data());
  bool saw_conv = false;
  for (const tflite::OperatorCode* oc : *file->operator_codes()) {
    EXPECT_EQ(oc->builtin_code(), tflite::BuiltinOperator::ADD);
    if (oc->deprecated_builtin_code() == 3) saw_conv = true;
  }
  EXPECT_TRUE(saw_conv);
  auto m = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ((*m)->OpHistogram()[0].first, "DEQUANTIZE");
}

TEST_F(SharedModelDetails, TruncatedRealModelsFailCleanly) {
  for (const std::string& name : testing::SharedModelNames()) {
    const std::vector<uint8_t> bytes = ReadFile(testing::ModelPath(name));
    for (int k = 0; k < 64; ++k) {
      const size_t n = bytes.size() * static_cast<size_t>(k) / 64 + static_cast<size_t>(k) * 7 % 13;
      if (n >= bytes.size()) continue;
      auto g = ReadTfliteModel(bytes.data(), n);
      EXPECT_FALSE(g.ok()) << name << " truncated to " << n;
    }
  }
}

}  // namespace
}  // namespace gld
