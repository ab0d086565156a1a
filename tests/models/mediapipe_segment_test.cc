// A model in which MediaPipe's three transform ops sit between convolutions
// (gld::MediaPipeTransformModel, support/example_models.cc: CONV ->
// Landmarks2TransformMatrix -> M; CONV -> TransformTensorBilinear(M) -> CONV;
// CONV -> TransformLandmarks(M) -> CONV), custom options as MediaPipe writes
// them. On the GL backend every node runs on the GPU in ONE segment (the
// placement report says so), and the outputs match the CPU backend's:
// max|gl - cpu| / max|cpu| <= 1e-5 in fp32 and 1e-2 in fp16 and
// fp16_mediump (fp16 storage rounds the landmarks the matrix is made of, and
// so where the crop samples: 8e-3 measured on llvmpipe).
// Denying the three ops to the GPU cuts the same model into two segments
// with the three ops on the CPU between them (what the model cost before
// the ops had GL kernels).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gl/gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/example_models.hpp"
#include "gldelegate/model_builder.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kFp32Tolerance = 1e-5;
constexpr double kFp16Tolerance = 1e-2;

struct RunResult {
  std::vector<std::vector<double>> outputs;
  InterpreterReport report;
};

::testing::AssertionResult RunModel(const Model& model, const Options& options, RunResult* r) {
  auto interp = Interpreter::Create(model, options);
  if (!interp.ok()) return ::testing::AssertionFailure() << interp.status().ToString();
  Interpreter& it = **interp;
  const std::vector<float> x = UniformPm1(2026, 0, 12 * 12 * 3);
  Status s = it.SetInput(0, x.data(), x.size() * sizeof(float));
  if (s.ok()) s = it.Invoke();
  if (!s.ok()) return ::testing::AssertionFailure() << s.ToString();
  r->outputs.clear();
  for (size_t i = 0; i < it.outputs().size(); ++i) {
    std::vector<float> v(it.outputs()[i].bytes / sizeof(float));
    s = it.GetOutput(static_cast<int>(i), v.data(), v.size() * sizeof(float));
    if (!s.ok()) return ::testing::AssertionFailure() << s.ToString();
    r->outputs.emplace_back(v.begin(), v.end());
  }
  r->report = it.report();
  return ::testing::AssertionSuccess();
}

TEST(MediaPipeSegmentTest, TransformOpsRunInOneGlSegment) {
  GLD_REQUIRE_GL(env);
  (void)env;
  auto bytes = MediaPipeTransformModel(12, 8);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options cpu_options;
  cpu_options.backend = Backend::kCpu;
  RunResult cpu;
  ASSERT_TRUE(RunModel(**model, cpu_options, &cpu));
  // fp16_mediump: llvmpipe computes mediump in fp32; the templates ask for
  // highp anyway.
  for (Precision p : {Precision::kFp32, Precision::kFp16, Precision::kFp16Mediump}) {
    Options options;
    options.backend = Backend::kGl;
    options.precision = p;
    RunResult gl;
    ASSERT_TRUE(RunModel(**model, options, &gl)) << PrecisionName(p);
    std::printf("[ measure  ] gl %s %s, %d dispatches\n", PrecisionName(p), gl.report.placement_line.c_str(),
                gl.report.dispatches);
    EXPECT_EQ(gl.report.placement_line, "placement: 8/8 nodes on GPU in 1 segments");
    for (const PlacementInfo& n : gl.report.nodes) EXPECT_TRUE(n.on_gpu) << n.label << ": " << n.reason;
    ASSERT_EQ(gl.outputs.size(), cpu.outputs.size());
    for (size_t i = 0; i < cpu.outputs.size(); ++i) {
      const Comparison c = Compare(gl.outputs[i], cpu.outputs[i]);
      std::printf("[ measure  ] gl %s output %zu: max|gl-cpu|/max|cpu| = %.3e (max|cpu| %.4g)\n", PrecisionName(p),
                  i, c.relative, c.max_abs_ref);
      EXPECT_GT(c.max_abs_ref, 0.0) << "output " << i << " is all zeros";
      EXPECT_LE(c.relative, p == Precision::kFp32 ? kFp32Tolerance : kFp16Tolerance)
          << PrecisionName(p) << " output " << i << ": worst at " << c.worst_index << " gl " << c.worst_ours
          << " cpu " << c.worst_ref;
    }
  }
}

// Without GL kernels for the three ops (denied here), they split the model.
TEST(MediaPipeSegmentTest, DeniedTransformOpsSplitTheModel) {
  GLD_REQUIRE_GL(env);
  (void)env;
  auto bytes = MediaPipeTransformModel(12, 8);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options options;
  options.backend = Backend::kGl;
  options.gpu_deny_ops = {"Landmarks2TransformMatrix", "TransformTensorBilinear", "TransformLandmarks"};
  RunResult gl;
  ASSERT_TRUE(RunModel(**model, options, &gl));
  std::printf("[ measure  ] gl fp32, the three ops denied: %s\n", gl.report.placement_line.c_str());
  EXPECT_EQ(gl.report.placement_line, "placement: 5/8 nodes on GPU in 2 segments");
}

// A node the GL kernel refuses stays on the CPU with the reason in the
// placement report: a subset index past 2048 cannot be stored in fp16.
TEST(MediaPipeSegmentTest, RefusedNodeSaysWhyInThePlacement) {
  GLD_REQUIRE_GL(env);
  (void)env;
  ModelBuilder b;
  const int lm = b.AddInput("landmarks", ElementType::kFloat32, {1, 3000, 3});
  const int m = b.AddTensor("matrix", ElementType::kFloat32, {1, 4, 4});
  ASSERT_TRUE(b.AddCustomOp("Landmarks2TransformMatrix", {lm}, {m}, FlexbufferMap([](flexbuffers::Builder& f) {
                              f.Vector("subset_idxs", [&]() {
                                for (int i : {0, 2999}) f.Int(i);
                              });
                              f.Float("target_rotation_radians", 0.f);
                              f.Int("output_height", 4);
                              f.Int("output_width", 4);
                              f.Float("scale_x", 1.f);
                              f.Float("scale_y", 1.f);
                              f.Int("left_rotation_idx", 0);
                              f.Int("right_rotation_idx", 1);
                            }),
                            2)
                  .ok());
  b.SetOutputs({m});
  auto bytes = b.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
    Options options;
    options.backend = Backend::kGl;
    options.precision = p;
    auto interp = Interpreter::Create(**model, options);
    ASSERT_TRUE(interp.ok()) << interp.status().ToString();
    const PlacementInfo& n = (*interp)->report().nodes.at(0);
    if (p == Precision::kFp32) {
      EXPECT_TRUE(n.on_gpu) << n.reason;
    } else {
      EXPECT_FALSE(n.on_gpu);
      EXPECT_EQ(n.reason,
                "Landmarks2TransformMatrix: landmark index 2999 is past 2048, the largest fp16 storage holds exactly");
    }
  }
}

}  // namespace
}  // namespace gld::testing
