// NaN and infinity on the GL backend: every per-op case of tests/data/ops
// (the conformance cases) runs with NaN, +inf and -inf written into its float
// inputs, on the CPU backend and on the GL backend (fp32). Where the CPU
// backend gives NaN the GL backend must give NaN, and the other way round; an
// infinity must be the same infinity; finite values must agree as in the GL
// tests (1e-4 of the output's largest finite magnitude). GLSL's max, min and
// clamp may return the other operand when one is NaN, so a kernel built on
// them hides a NaN that the CPU backend (and LiteRT) shows.
//
// The same on a real model: hand_landmark_lite with one NaN pixel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "common/model_paths.h"
#include "common/special_values.h"
#include "gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Writes NaN, +inf and -inf into a float32 input at spread positions, leaving
// most elements as they were so the ops still see ordinary values around them.
void Poison(std::vector<uint8_t>& bytes) {
  const size_t n = bytes.size() / sizeof(float);
  if (n == 0) return;
  std::vector<float> v(n);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  v[0] = kNaN;
  if (n >= 4) {
    v[n / 2] = kNaN;
    v[n / 3] = kInf;
    v[(2 * n) / 3 + 1 < n ? (2 * n) / 3 + 1 : n - 1] = -kInf;
  }
  std::memcpy(bytes.data(), v.data(), bytes.size());
}

struct Run {
  std::vector<std::vector<float>> outputs;  // float32 outputs only; others empty
  std::string placement;
};

StatusOr<Run> RunWith(const Model& model, Backend backend, const std::vector<std::vector<uint8_t>>& inputs) {
  Options options;
  options.backend = backend;
  options.precision = Precision::kFp32;
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> it, Interpreter::Create(model, options));
  for (size_t i = 0; i < inputs.size(); ++i) GLD_RETURN_IF_ERROR(it->SetInput(static_cast<int>(i), inputs[i].data(), inputs[i].size()));
  GLD_RETURN_IF_ERROR(it->Invoke());
  Run run;
  for (size_t i = 0; i < it->outputs().size(); ++i) {
    const TensorInfo& info = it->outputs()[i];
    std::vector<float> values;
    if (info.type == ElementType::kFloat32) {
      values.resize(info.bytes / sizeof(float));
      GLD_RETURN_IF_ERROR(it->GetOutput(static_cast<int>(i), values.data(), info.bytes));
    }
    run.outputs.push_back(std::move(values));
  }
  return run;
}

// "" when `gl` treats NaN and infinity as `cpu` does (finite values as in
// the GL tests: 1e-4 of the largest finite magnitude).
std::string CompareSpecials(const std::vector<float>& cpu, const std::vector<float>& gl) {
  return CompareWithSpecialValues(cpu, gl, 1e-4);
}

// The cases with at least one float32 input (the others have nothing to
// poison).
std::vector<std::string> FloatInputCases() {
  std::vector<std::string> cases;
  for (const std::string& name : ListOpCases()) {
    auto manifest = ReadManifest(OpCasesDir() + "/" + name);
    if (!manifest.ok()) continue;
    const auto inputs = manifest->find("inputs");
    if (inputs == manifest->end() || !inputs->is_array()) continue;
    for (const nlohmann::json& input : *inputs) {
      if (input.is_object() && input.value("dtype", "") == "float32") {
        cases.push_back(name);
        break;
      }
    }
  }
  return cases;
}

class NanPropagationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NanPropagationTest, GlShowsWhatTheCpuShows) {
  GLD_REQUIRE_GL(device);
  (void)device;
  const std::string dir = OpCasesDir() + "/" + GetParam();
  auto manifest = ReadManifest(dir);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  auto model = Model::FromFile(dir + "/model.tflite");
  ASSERT_TRUE(model.ok()) << model.status().ToString();

  std::vector<std::vector<uint8_t>> inputs;
  bool poisoned = false;
  for (size_t i = 0; i < (*model)->inputs().size(); ++i) {
    const TensorInfo& info = (*model)->inputs()[i];
    auto bytes = LoadReferenceInput(dir, *manifest, static_cast<int>(i), info);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    if (info.type == ElementType::kFloat32) {
      Poison(*bytes);
      poisoned = true;
    }
    inputs.push_back(std::move(*bytes));
  }
  ASSERT_TRUE(poisoned) << GetParam() << ": no float32 input";

  auto cpu = RunWith(**model, Backend::kCpu, inputs);
  auto gl = RunWith(**model, Backend::kGl, inputs);
  // Ops whose output size follows the values (the count of true values, of
  // distinct values, of steps from start to limit) may find that poisoned
  // inputs give a size the case's fixed output shape does not hold: they
  // refuse with InvalidArgument, and GL (which runs them on the CPU) must
  // refuse in the same words.
  const std::string op = GetParam().substr(0, GetParam().find("__"));
  if (!cpu.ok() && (op == "where" || op == "unique" || op == "range")) {
    EXPECT_EQ(cpu.status().code(), StatusCode::kInvalidArgument) << cpu.status().ToString();
    ASSERT_FALSE(gl.ok()) << "the CPU refused: " << cpu.status().ToString();
    EXPECT_EQ(gl.status().message(), cpu.status().message());
    return;
  }
  ASSERT_TRUE(cpu.ok()) << "cpu: " << cpu.status().ToString();
  ASSERT_TRUE(gl.ok()) << "gl: " << gl.status().ToString();
  for (size_t i = 0; i < cpu->outputs.size(); ++i) {
    const std::string diff = CompareSpecials(cpu->outputs[i], gl->outputs[i]);
    EXPECT_EQ(diff, "") << GetParam() << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, NanPropagationTest, ::testing::ValuesIn(FloatInputCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The case of the report: one NaN pixel in a hand crop. The CPU backend gives
// NaN; a plausible hand score from the GPU would hide it.
TEST(NanPropagation, HandLandmarkWithOneNanPixel) {
  GLD_REQUIRE_GL(device);
  (void)device;
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  auto model = Model::FromFile(ModelPath("hand_landmark_lite.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const TensorInfo& in = (*model)->inputs()[0];
  ASSERT_EQ(in.type, ElementType::kFloat32);
  std::vector<float> pixels = UniformPm1(7, 0, in.bytes / sizeof(float));
  for (float& p : pixels) p = 0.5f * (p + 1.f);
  pixels[pixels.size() / 2] = kNaN;
  std::vector<std::vector<uint8_t>> inputs(1, std::vector<uint8_t>(in.bytes));
  std::memcpy(inputs[0].data(), pixels.data(), in.bytes);

  auto cpu = RunWith(**model, Backend::kCpu, inputs);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  auto gl = RunWith(**model, Backend::kGl, inputs);
  ASSERT_TRUE(gl.ok()) << gl.status().ToString();
  size_t cpu_nans = 0;
  for (size_t i = 0; i < cpu->outputs.size(); ++i) {
    for (float v : cpu->outputs[i]) cpu_nans += std::isnan(v) ? 1 : 0;
    EXPECT_EQ(CompareSpecials(cpu->outputs[i], gl->outputs[i]), "") << "output " << i;
  }
  EXPECT_GT(cpu_nans, 0u) << "the CPU backend no longer shows the NaN pixel";
}

}  // namespace
}  // namespace gld::testing
