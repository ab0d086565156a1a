// The six shared MediaPipe models on the GL backend: after the default
// transform passes every node must be accepted by the GL support query, and
// the whole model run through the public API with backend "gl" must match the
// same model on the CPU backend (fp32: 1e-4, fp16: 1e-2 of each output's max
// magnitude). Skips, saying so, when the models folder is absent.
//
// One refinement in fp16: an output made by LOGISTIC is a probability whose
// scale is its range, 1. With random inputs selfie_segmentation's mask sits
// deep in the sigmoid's tail (max ~0.003, logits near -6), where fp16's
// rounding of logits of that size (ulp 0.004) moves the probabilities by
// several per cent of their own tiny maximum, whatever the kernels do. There
// the error is measured against max(max |cpu|, 1).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "model/tflite_reader.h"
#include "common/model_paths.h"
#include "common/special_values.h"
#include "transforms/pass_list.h"

namespace gld::testing {
namespace {

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

bool ProducedByLogistic(const Model& model, const std::string& tensor) {
  for (const NodeInfo& n : model.nodes()) {
    for (const std::string& out : n.output_names) {
      if (out == tensor) return n.op == "LOGISTIC";
    }
  }
  return false;
}

// fp32, fp16 and fp16_mediump; GLD_TEST_GL_PRECISIONS (a comma-separated
// list, e.g. "fp32") narrows them, as CI does for the slow softpipe driver.
std::vector<Precision> PrecisionsToRun() {
  const char* env = std::getenv("GLD_TEST_GL_PRECISIONS");
  if (env == nullptr || env[0] == '\0') return {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump};
  std::vector<Precision> out;
  std::string list = env;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    auto p = ParsePrecision(list.substr(start, end - start));
    EXPECT_TRUE(p.ok()) << "GLD_TEST_GL_PRECISIONS: " << p.status().ToString();
    if (p.ok()) out.push_back(*p);
    start = end + 1;
  }
  return out;
}

class SharedModelGlTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModelGlTest, EveryNodeRunsOnTheGpu) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  std::vector<uint8_t> bytes = ReadFile(ModelPath(GetParam()));
  auto graph = ReadTfliteModel(bytes.data(), bytes.size());
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  PassLog log;
  ASSERT_TRUE(RunDefaultPasses(*graph, log).ok());
  for (Precision p : BothPrecisions()) {
    for (size_t i = 0; i < graph->nodes.size(); ++i) {
      std::string reason;
      EXPECT_TRUE(gl::IsNodeSupported(*graph, i, &reason, p))
          << GetParam() << " " << graph->NodeLabel(i) << " (" << PrecisionName(p) << "): " << reason;
    }
  }
}

TEST_P(SharedModelGlTest, GlBackendMatchesCpuBackend) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  GLD_REQUIRE_GL(env);
  auto model = Model::FromFile(ModelPath(GetParam()));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options cpu_options;
  cpu_options.backend = Backend::kCpu;
  auto cpu = Interpreter::Create(**model, cpu_options);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  for (size_t i = 0; i < (*cpu)->inputs().size(); ++i) {
    const TensorInfo& in = (*cpu)->inputs()[i];
    ASSERT_EQ(in.type, ElementType::kFloat32);
    std::vector<float> v = RandomFloats(in.bytes / 4, 1234 + static_cast<uint32_t>(i), -1, 1);
    ASSERT_TRUE((*cpu)->SetInput(static_cast<int>(i), v.data(), in.bytes).ok());
  }
  ASSERT_TRUE((*cpu)->Invoke().ok());
  // fp16_mediump: on llvmpipe mediump computes in fp32, so this checks its
  // code paths and fp16 storage, not fp16 arithmetic.
  for (Precision p : PrecisionsToRun()) {
    SCOPED_TRACE(PrecisionName(p));
    Options gl_options;
    gl_options.backend = Backend::kGl;
    gl_options.precision = p;
    auto gpu = Interpreter::Create(**model, gl_options);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    const InterpreterReport& r = (*gpu)->report();
    EXPECT_EQ(r.backend, Backend::kGl);
    EXPECT_EQ(r.gpu_nodes, r.total_nodes) << r.placement_line;
    EXPECT_EQ(r.segments, 1) << r.placement_line;
    EXPECT_GT(r.dispatches, 0);
    // Fusion leaves fewer dispatches than nodes; sharing, fewer bytes.
    EXPECT_LT(r.dispatches, r.total_nodes + 2 + static_cast<int>((*gpu)->outputs().size()));
    EXPECT_LT(r.gpu_bytes_planned, r.gpu_bytes_naive);
    EXPECT_LE(r.gpu_bytes_lower_bound, r.gpu_bytes_planned);
    std::printf("%s %s: %d nodes, %d dispatches, GPU bytes planned %llu naive %llu lower bound %llu\n",
                GetParam().c_str(), PrecisionName(p), r.total_nodes, r.dispatches,
                static_cast<unsigned long long>(r.gpu_bytes_planned), static_cast<unsigned long long>(r.gpu_bytes_naive),
                static_cast<unsigned long long>(r.gpu_bytes_lower_bound));
    for (size_t i = 0; i < (*gpu)->inputs().size(); ++i) {
      const TensorInfo& in = (*gpu)->inputs()[i];
      std::vector<float> v = RandomFloats(in.bytes / 4, 1234 + static_cast<uint32_t>(i), -1, 1);
      ASSERT_TRUE((*gpu)->SetInput(static_cast<int>(i), v.data(), in.bytes).ok());
    }
    Status s = (*gpu)->Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (size_t o = 0; o < (*cpu)->outputs().size(); ++o) {
      const TensorInfo& info = (*cpu)->outputs()[o];
      std::vector<float> want(info.bytes / 4), got(info.bytes / 4);
      ASSERT_TRUE((*cpu)->GetOutput(static_cast<int>(o), want.data(), info.bytes).ok());
      ASSERT_TRUE((*gpu)->GetOutput(static_cast<int>(o), got.data(), info.bytes).ok());
      double max_ref = 0, max_err = 0;
      for (size_t k = 0; k < want.size(); ++k) {
        max_ref = std::max(max_ref, std::abs(double{want[k]}));
        max_err = std::max(max_err, std::abs(double{want[k]} - got[k]));
      }
      EXPECT_GT(max_ref, 0.0) << info.name;
      double scale = max_ref;
      if (p != Precision::kFp32 && ProducedByLogistic(**model, info.name)) scale = std::max(scale, 1.0);
      EXPECT_LE(max_err / scale, Tolerance(p))
          << GetParam() << " output " << info.name << ": max err " << max_err << " / max ref " << max_ref;
    }
  }
}

// A real model split on purpose: MAX_POOL_2D forced to the CPU in the middle
// of face_detection_short_range gives GPU -> CPU -> GPU; the outputs must
// still match the CPU backend within the fp32 tolerance.
TEST(SharedModelSplitTest, GpuCpuGpuMatchesCpuBackend) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  GLD_REQUIRE_GL(env);
  auto model = Model::FromFile(ModelPath("face_detection_short_range.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options cpu_options;
  cpu_options.backend = Backend::kCpu;
  Options split_options;
  split_options.backend = Backend::kGl;
  split_options.gpu_deny_ops = {"MAX_POOL_2D"};
  auto cpu = Interpreter::Create(**model, cpu_options);
  auto split = Interpreter::Create(**model, split_options);
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  ASSERT_TRUE(split.ok()) << split.status().ToString();

  const InterpreterReport& r = (*split)->report();
  EXPECT_GE(r.segments, 2) << r.placement_line;
  EXPECT_LT(r.gpu_nodes, r.total_nodes) << r.placement_line;
  // Some CPU node has GPU nodes both before and after it.
  bool sandwiched = false;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    if (r.nodes[i].on_gpu) continue;
    EXPECT_EQ(r.nodes[i].op, "MAX_POOL_2D") << r.nodes[i].label << ": " << r.nodes[i].reason;
    bool before = false, after = false;
    for (size_t j = 0; j < i; ++j) before |= r.nodes[j].on_gpu;
    for (size_t j = i + 1; j < r.nodes.size(); ++j) after |= r.nodes[j].on_gpu;
    sandwiched |= before && after;
  }
  EXPECT_TRUE(sandwiched) << r.placement_line;
  std::printf("split face_detection_short_range: %s\n", r.placement_line.c_str());

  for (auto* interp : {cpu->get(), split->get()}) {
    for (size_t i = 0; i < interp->inputs().size(); ++i) {
      const TensorInfo& in = interp->inputs()[i];
      std::vector<float> v = RandomFloats(in.bytes / 4, 99 + static_cast<uint32_t>(i), -1, 1);
      ASSERT_TRUE(interp->SetInput(static_cast<int>(i), v.data(), in.bytes).ok());
    }
    Status s = interp->Invoke();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  for (size_t o = 0; o < (*cpu)->outputs().size(); ++o) {
    const TensorInfo& info = (*cpu)->outputs()[o];
    std::vector<float> want(info.bytes / 4), got(info.bytes / 4);
    ASSERT_TRUE((*cpu)->GetOutput(static_cast<int>(o), want.data(), info.bytes).ok());
    ASSERT_TRUE((*split)->GetOutput(static_cast<int>(o), got.data(), info.bytes).ok());
    double max_ref = 0, max_err = 0;
    for (size_t k = 0; k < want.size(); ++k) {
      max_ref = std::max(max_ref, std::abs(double{want[k]}));
      max_err = std::max(max_err, std::abs(double{want[k]} - got[k]));
    }
    ASSERT_GT(max_ref, 0.0) << info.name;
    EXPECT_LE(max_err / max_ref, Tolerance(Precision::kFp32)) << info.name << ": max err " << max_err;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelGlTest, ::testing::ValuesIn(SharedModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });


// Options::gl_limits = minimum plans for the smallest GLES 3.1 device (4
// storage blocks, 2^27-byte blocks, 128 invocations) on this driver: the plan
// changes (fewer storage blocks leave fewer fused epilogue operands, so more
// dispatches) and the outputs stay those of the driver's limits.
TEST(MinimumLimitsTest, SelfieSegmentationPlansMoreDispatchesAndMatches) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  GLD_REQUIRE_GL(env);
  auto model = Model::FromFile(ModelPath("selfie_segmentation.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::vector<std::vector<float>> outputs[2];
  int dispatches[2] = {0, 0};
  for (GlLimits limits : {GlLimits::kDriver, GlLimits::kMinimum}) {
    SCOPED_TRACE(GlLimitsName(limits));
    Options options;
    options.backend = Backend::kGl;
    options.gl_limits = limits;
    auto gpu = Interpreter::Create(**model, options);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    const InterpreterReport& r = (*gpu)->report();
    EXPECT_EQ(r.gpu_nodes, r.total_nodes) << r.placement_line;
    const bool minimum = limits == GlLimits::kMinimum || std::getenv("GLD_GL_LIMITS") != nullptr;
    if (std::getenv("GLD_GL_LIMITS") == nullptr) {
      EXPECT_EQ(r.gl_limits, minimum ? "GLES 3.1 minimums" : "driver");
    }
    dispatches[limits == GlLimits::kMinimum] = r.dispatches;
    for (size_t i = 0; i < (*gpu)->inputs().size(); ++i) {
      const TensorInfo& in = (*gpu)->inputs()[i];
      std::vector<float> v = RandomFloats(in.bytes / 4, 77 + static_cast<uint32_t>(i), -1, 1);
      ASSERT_TRUE((*gpu)->SetInput(static_cast<int>(i), v.data(), in.bytes).ok());
    }
    ASSERT_TRUE((*gpu)->Invoke().ok());
    for (size_t o = 0; o < (*gpu)->outputs().size(); ++o) {
      std::vector<float> got((*gpu)->outputs()[o].bytes / 4);
      ASSERT_TRUE((*gpu)->GetOutput(static_cast<int>(o), got.data(), got.size() * 4).ok());
      outputs[limits == GlLimits::kMinimum].push_back(std::move(got));
    }
  }
  std::printf("selfie_segmentation: %d dispatches at the driver's limits, %d at the GLES 3.1 minimums\n",
              dispatches[0], dispatches[1]);
  // GLD_GL_LIMITS=minimum makes both runs minimum ones.
  if (std::getenv("GLD_GL_LIMITS") == nullptr) {
    EXPECT_GT(dispatches[1], dispatches[0]);
  }
  ASSERT_EQ(outputs[0].size(), outputs[1].size());
  for (size_t o = 0; o < outputs[0].size(); ++o) {
    EXPECT_EQ(CompareWithSpecialValues(outputs[0][o], outputs[1][o], 1e-4), "") << "output " << o;
  }
}

// A GLD_GL_LIMITS value other than driver or minimum is an error naming it.
TEST(MinimumLimitsTest, BadEnvironmentValueIsAClearError) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  GLD_REQUIRE_GL(env);
  auto model = Model::FromFile(ModelPath("hand_landmark_lite.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const char* old = std::getenv("GLD_GL_LIMITS");
  const std::string saved = old != nullptr ? old : "";
  setenv("GLD_GL_LIMITS", "tiny", 1);
  Options options;
  options.backend = Backend::kGl;
  auto it = Interpreter::Create(**model, options);
  if (old != nullptr) {
    setenv("GLD_GL_LIMITS", saved.c_str(), 1);
  } else {
    unsetenv("GLD_GL_LIMITS");
  }
  ASSERT_FALSE(it.ok());
  EXPECT_NE(it.status().message().find("GLD_GL_LIMITS"), std::string::npos) << it.status().ToString();
  EXPECT_NE(it.status().message().find("tiny"), std::string::npos) << it.status().ToString();
}

}  // namespace
}  // namespace gld::testing
