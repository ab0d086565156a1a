#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "api/interpreter_impl.h"
#include "api/model_impl.h"
#include "common/model_paths.h"
#include "gldelegate/gldelegate.hpp"
#include "test_models.h"

namespace gld {
namespace {

std::shared_ptr<const Model> LoadAddRelu() {
  auto bytes = testing::AddReluModel();
  EXPECT_FALSE(bytes.empty());
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

Options Cpu() {
  Options o;
  o.backend = Backend::kCpu;
  return o;
}

TEST(Interpreter, RunsAModelFromTheBuilder) {
  auto model = LoadAddRelu();
  ASSERT_NE(model, nullptr);
  auto interp = Interpreter::Create(*model, Cpu());
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  Interpreter& it = **interp;
  ASSERT_EQ(it.inputs().size(), 1u);
  ASSERT_EQ(it.outputs().size(), 1u);
  EXPECT_EQ(it.inputs()[0].name, "x");
  EXPECT_EQ(it.inputs()[0].type, ElementType::kFloat32);
  EXPECT_EQ(it.inputs()[0].shape, (std::vector<int>{1, 4}));
  EXPECT_EQ(it.outputs()[0].name, "y");
  float in[4] = {-3, -1, 1, 3}, out[4] = {};
  ASSERT_TRUE(it.SetInput(0, in, sizeof in).ok());
  ASSERT_TRUE(it.Invoke().ok());
  ASSERT_TRUE(it.GetOutput(0, out, sizeof out).ok());
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{0, 0, 2, 4}));
  const float* direct = static_cast<const float*>(it.OutputData(0));
  ASSERT_NE(direct, nullptr);
  EXPECT_EQ(direct[3], 4.0f);
  // fuse_activation makes the RELU the ADD's fused activation: 2 nodes -> 1.
  EXPECT_EQ(it.report().placement_line, "placement: 0/1 nodes on GPU in 0 segments");
  EXPECT_EQ(it.report().original_nodes, 2);
}

TEST(Interpreter, OutlivesItsModelAndRunsOnAnotherThread) {
  std::unique_ptr<Interpreter> it;
  {
    auto model = LoadAddRelu();
    ASSERT_NE(model, nullptr);
    auto interp = Interpreter::Create(*model, Cpu());
    ASSERT_TRUE(interp.ok());
    it = std::move(interp).value();
  }
  float out[4] = {};
  std::thread t([&] {
    float in[4] = {0, 1, 2, -9};
    ASSERT_TRUE(it->SetInput(0, in, sizeof in).ok());
    ASSERT_TRUE(it->Invoke().ok());
    ASSERT_TRUE(it->GetOutput(0, out, sizeof out).ok());
  });
  t.join();
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{1, 2, 3, 0}));
}

TEST(Interpreter, ThreadsCreateInterpretersOnOneModelAtOnce) {
  // The first Create on a Model prepares its graph; here several race to be first.
  auto model = LoadAddRelu();
  ASSERT_NE(model, nullptr);
  constexpr int kThreads = 4;
  std::vector<std::vector<float>> outs(kThreads, std::vector<float>(4));
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto interp = Interpreter::Create(*model, Cpu());
      ASSERT_TRUE(interp.ok()) << interp.status().ToString();
      const float in[4] = {0, 1, 2, static_cast<float>(-i)};
      ASSERT_TRUE((*interp)->SetInput(0, in, sizeof in).ok());
      ASSERT_TRUE((*interp)->Invoke().ok());
      ASSERT_TRUE((*interp)->GetOutput(0, outs[i].data(), 4 * sizeof(float)).ok());
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(outs[i], (std::vector<float>{1, 2, 3, i <= 1 ? 1.f - i : 0.f})) << "thread " << i;
  }
}

TEST(Interpreter, ErrorPaths) {
  auto model = LoadAddRelu();
  ASSERT_NE(model, nullptr);
  auto interp = Interpreter::Create(*model, Cpu());
  ASSERT_TRUE(interp.ok());
  float buf[8] = {};
  Status s = (*interp)->SetInput(0, buf, 8 * sizeof(float));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("needs 16 bytes, got 32"), std::string::npos) << s.message();
  EXPECT_EQ((*interp)->SetInput(2, buf, 16).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*interp)->GetOutput(1, buf, 16).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*interp)->GetOutput(0, buf, 4).code(), StatusCode::kInvalidArgument);

  auto missing = Model::FromFile("/nonexistent/model.tflite");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/model.tflite"), std::string::npos);

  Options bad = Cpu();
  bad.gpu_deny_ops = {"CONV_2D", "NOT_AN_OP"};
  auto denied = Interpreter::Create(*model, bad);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(denied.status().message().find("NOT_AN_OP"), std::string::npos);
}

TEST(Interpreter, SupportedOpsListsEveryOpWithItsBackends) {
  auto ops = SupportedOps();
  ASSERT_FALSE(ops.empty());
  bool add = false, landmarks = false;
  for (const auto& op : ops) {
    if (op.op == "ADD") add = op.cpu;
    if (op.op == "TransformLandmarks") landmarks = true;
  }
  EXPECT_TRUE(add) << "ADD has a CPU kernel";
  EXPECT_TRUE(landmarks) << "custom ops are listed too";
}

// Every constant both Interpreters' graphs hold is one buffer, the Model's:
// creating an Interpreter copies no weights.
void ExpectConstantsShared(const Model& model, const Options& options, int* shared) {
  auto first = Interpreter::Create(model, options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = Interpreter::Create(model, options);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto prepared = model.impl().Prepared();
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  const Graph& a = (*first)->impl().runtime->graph();
  const Graph& b = (*second)->impl().runtime->graph();
  const Graph& m = (*prepared)->graph;
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  ASSERT_EQ(a.tensors.size(), m.tensors.size());
  *shared = 0;
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    if (!a.tensors[t].is_constant || a.tensors[t].data.empty()) continue;
    EXPECT_EQ(a.tensors[t].data.data(), b.tensors[t].data.data()) << a.tensors[t].name;
    EXPECT_EQ(a.tensors[t].data.data(), m.tensors[t].data.data()) << a.tensors[t].name;
    ++*shared;
  }
}

TEST(Interpreter, InterpretersShareTheModelsConstants) {
  auto model = LoadAddRelu();
  ASSERT_NE(model, nullptr);
  int shared = 0;
  ExpectConstantsShared(*model, Cpu(), &shared);
  EXPECT_EQ(shared, 1);  // c
}

TEST(Interpreter, InterpretersSharePoseDetectionsConstants) {
  if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
  auto model = Model::FromFile(testing::ModelPath("pose_detection.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  int shared = 0;
  ExpectConstantsShared(**model, Cpu(), &shared);
  EXPECT_GT(shared, 100);
}

TEST(Interpreter, ModelFromADirectoryIsAnError) {
  auto model = Model::FromFile(::testing::TempDir());
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("is a directory"), std::string::npos) << model.status().message();
}

// A NUL in the path would open the file named by the bytes before it.
TEST(Interpreter, ModelPathWithANulIsAnError) {
  if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
  const std::string path = testing::ModelPath("palm_detection_lite.tflite");
  auto model = Model::FromFile(path + std::string("\0.bak", 5));
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(model.status().message().find("contains a NUL byte"), std::string::npos) << model.status().message();
}

// FromFile maps the file: the model it gives is FromBuffer's on the same
// bytes (same fingerprint, same tensors), and an empty file is a clear error.
TEST(Interpreter, ModelFromAMappedFileIsTheBuffersModel) {
  if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
  const std::string path = testing::ModelPath("palm_detection_lite.tflite");
  auto mapped = Model::FromFile(path);
  ASSERT_TRUE(mapped.ok()) << mapped.status().ToString();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<uint8_t> bytes(std::filesystem::file_size(path));
  ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  auto read = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ((*mapped)->impl().Fingerprint(), (*read)->impl().Fingerprint());
  ASSERT_EQ((*mapped)->nodes().size(), (*read)->nodes().size());
  ASSERT_EQ((*mapped)->outputs().size(), (*read)->outputs().size());

  const std::string empty = ::testing::TempDir() + "/gld_empty_model.tflite";
  std::FILE* e = std::fopen(empty.c_str(), "wb");
  ASSERT_NE(e, nullptr);
  std::fclose(e);
  auto none = Model::FromFile(empty);
  std::remove(empty.c_str());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find(empty), std::string::npos) << none.status().message();
}

}  // namespace
}  // namespace gld

namespace gld {
namespace {

// TensorInfo::index is the tensor's index in the file (what LiteRT calls the
// tensor index), the same on the Model and on its Interpreters.
TEST(Interpreter, InputsAndOutputsCarryTheirFileTensorIndex) {
  if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
  auto model = Model::FromFile(testing::ModelPath("hand_landmark_lite.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // hand_landmark_lite: input_1 is tensor 0; Identity..Identity_3 are 167, 166, 164, 168.
  ASSERT_EQ((*model)->inputs().size(), 1u);
  EXPECT_EQ((*model)->inputs()[0].index, 0);
  std::vector<int> outputs;
  for (const TensorInfo& t : (*model)->outputs()) outputs.push_back(t.index);
  EXPECT_EQ(outputs, (std::vector<int>{167, 166, 164, 168}));
  Options options;
  options.backend = Backend::kCpu;
  auto interp = Interpreter::Create(**model, options);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  for (size_t i = 0; i < outputs.size(); ++i) EXPECT_EQ((*interp)->outputs()[i].index, outputs[i]);
  EXPECT_TRUE((*model)->signatures().empty());
}

TEST(Interpreter, SignaturesOfTheLoadedSubgraph) {
  auto model = Model::FromFile(std::string(GLD_TEST_DATA_DIR) + "/networks/mobilenet_v2_float32/model.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<SignatureInfo>& sigs = (*model)->signatures();
  ASSERT_EQ(sigs.size(), 1u);
  EXPECT_EQ(sigs[0].key, "serving_default");
  ASSERT_EQ(sigs[0].inputs.size(), 1u);
  EXPECT_EQ(sigs[0].inputs[0].name, "image");
  EXPECT_EQ(sigs[0].inputs[0].tensor_index, (*model)->inputs()[0].index);
  std::vector<std::string> names;
  for (const SignatureTensor& t : sigs[0].outputs) {
    names.push_back(t.name);
    bool is_output = false;
    for (const TensorInfo& o : (*model)->outputs()) is_output = is_output || o.index == t.tensor_index;
    EXPECT_TRUE(is_output) << t.name << " -> tensor " << t.tensor_index;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"features", "logits"}));
}

// A CPU Interpreter of an int8 model starts from the integer form alone
// (the float form's passes never run for it), and runs as a CPU Runtime
// made from the full preparation does, value for value; an auto
// Interpreter of the same Model still gets the full one.
TEST(Interpreter, ACpuInterpreterOfAnInt8ModelPreparesTheIntegerFormAlone) {
  auto model = Model::FromFile(std::string(GLD_TEST_DATA_DIR) + "/networks/mobilenet_v2_int8/model.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Model::Impl& impl = (*model)->impl();
  auto cpu_only = impl.PreparedFor(Backend::kCpu);
  ASSERT_TRUE(cpu_only.ok()) << cpu_only.status().ToString();
  EXPECT_TRUE((*cpu_only)->cpu_only);
  ASSERT_TRUE((*cpu_only)->cpu_graph.has_value());
  EXPECT_TRUE((*cpu_only)->pass_log.empty());
  EXPECT_FALSE((*cpu_only)->cpu_pass_log.empty());
  auto again = impl.PreparedFor(Backend::kCpu);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->get(), cpu_only->get());  // once per Model
  auto full = impl.Prepared();
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_FALSE((*full)->cpu_only);
  EXPECT_NE(full->get(), cpu_only->get());
  auto for_auto = impl.PreparedFor(Backend::kAuto);
  ASSERT_TRUE(for_auto.ok());
  EXPECT_EQ(for_auto->get(), full->get());
  bool float_view = false;
  for (const std::string& line : (*full)->pass_log) float_view = float_view || line.rfind("quantized_float_view", 0) == 0;
  EXPECT_TRUE(float_view);

  Options cpu;
  cpu.backend = Backend::kCpu;
  auto interp = Interpreter::Create(**model, cpu);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  auto reference = Runtime::Create(**full, cpu);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  const TensorInfo& in = (*interp)->inputs()[0];
  std::vector<uint8_t> input(in.bytes);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 7 % 251);
  ASSERT_TRUE((*interp)->SetInput(0, input.data(), input.size()).ok());
  ASSERT_TRUE((*interp)->Invoke().ok());
  ASSERT_TRUE((*reference)->SetInput(0, input.data(), input.size()).ok());
  ASSERT_TRUE((*reference)->Invoke().ok());
  ASSERT_FALSE((*interp)->outputs().empty());
  for (size_t o = 0; o < (*interp)->outputs().size(); ++o) {
    const size_t bytes = (*interp)->outputs()[o].bytes;
    std::vector<uint8_t> got(bytes), want(bytes);
    ASSERT_TRUE((*interp)->GetOutput(static_cast<int>(o), got.data(), bytes).ok());
    ASSERT_TRUE((*reference)->GetOutput(static_cast<int>(o), want.data(), bytes).ok());
    EXPECT_EQ(got, want) << "output " << o;
  }
}

}  // namespace
}  // namespace gld
