// A model in which MediaPipe's three transform ops sit between convolutions,
// built with the public ModelBuilder (custom options as MediaPipe writes
// them: flexbuffer maps):
//
//   x ─ CONV ─ Landmarks2TransformMatrix (v2) ─ M ─┐
//   x ─ CONV ──────────── TransformTensorBilinear (v2, M) ─ CONV ─ crop_out
//   x ─ CONV ─ TransformLandmarks (v1, 3-D points, M) ─ CONV ─ landmarks_out
//
// On the GL backend every node runs on the GPU in ONE segment (the
// placement report says so), and the outputs match the CPU backend's:
// max|gl - cpu| / max|cpu| <= 1e-5 in fp32 and 1e-2 in fp16 (fp16 storage
// rounds the landmarks the matrix is made of, and so where the crop samples).
// Denying the three ops to the GPU cuts the same model into several segments
// (what the model cost before the ops had GL kernels).
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "gl/gl_test_util.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"
#include "models/reference_data.h"

namespace gld::testing {
namespace {

constexpr double kFp32Tolerance = 1e-5;
constexpr double kFp16Tolerance = 1e-2;

std::vector<uint8_t> FlexMap(const std::function<void(flexbuffers::Builder&)>& fill) {
  flexbuffers::Builder fbb;
  fbb.Map([&]() { fill(fbb); });
  fbb.Finish();
  return fbb.GetBuffer();
}

// A SAME 3x3 (or 1x1) convolution of `in` to `out_c` channels: weights in
// [-scale, scale), bias `bias` on every channel.
Status AddConv(ModelBuilder& b, const std::string& name, int in, int in_c, int out_c, int k, float scale, float bias,
               const std::vector<int>& out_shape, uint64_t seed, int* out) {
  std::vector<float> w = UniformPm1(seed, 0, static_cast<size_t>(out_c * k * k * in_c));
  for (float& v : w) v *= scale;
  const int wt = b.AddConstantFloat(name + "_w", {out_c, k, k, in_c}, w);
  const int bt = b.AddConstantFloat(name + "_b", {out_c}, std::vector<float>(static_cast<size_t>(out_c), bias));
  *out = b.AddTensor(name, ElementType::kFloat32, out_shape);
  return b.AddOp("CONV_2D", {in, wt, bt}, {*out},
                 {{"padding", "SAME"}, {"stride_w", 1}, {"stride_h", 1}, {"fused_activation_function", "NONE"}});
}

StatusOr<std::vector<uint8_t>> TransformModel() {
  ModelBuilder b;
  const int x = b.AddInput("x", ElementType::kFloat32, {1, 12, 12, 3});
  int lm = 0, feat = 0, pts = 0;
  // Landmarks around the image centre (bias 6), 288 (x, y, z) triples.
  GLD_RETURN_IF_ERROR(AddConv(b, "landmarks", x, 3, 6, 3, 0.4f, 6.f, {1, 12, 12, 6}, 11, &lm));
  GLD_RETURN_IF_ERROR(AddConv(b, "features", x, 3, 5, 3, 0.5f, 0.1f, {1, 12, 12, 5}, 12, &feat));
  GLD_RETURN_IF_ERROR(AddConv(b, "points", x, 3, 6, 1, 0.8f, 2.f, {1, 12, 12, 6}, 13, &pts));
  const int m = b.AddTensor("matrix", ElementType::kFloat32, {1, 4, 4});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("Landmarks2TransformMatrix", {lm}, {m}, FlexMap([](flexbuffers::Builder& f) {
                                      f.Vector("subset_idxs", [&]() {
                                        for (int i : {3, 40, 77, 150, 201, 260, 287}) f.Int(i);
                                      });
                                      f.Float("target_rotation_radians", 0.3f);
                                      f.Int("output_height", 8);
                                      f.Int("output_width", 8);
                                      f.Float("scale_x", 1.2f);
                                      f.Float("scale_y", 1.4f);
                                      f.Int("left_rotation_idx", 10);
                                      f.Int("right_rotation_idx", 130);
                                    }),
                                    2));
  const int crop = b.AddTensor("crop", ElementType::kFloat32, {1, 8, 8, 5});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("TransformTensorBilinear", {feat, m}, {crop}, FlexMap([](flexbuffers::Builder& f) {
                                      f.Int("output_height", 8);
                                      f.Int("output_width", 8);
                                    }),
                                    2));
  const int moved = b.AddTensor("moved", ElementType::kFloat32, {1, 12, 12, 6});
  GLD_RETURN_IF_ERROR(b.AddCustomOp("TransformLandmarks", {pts, m}, {moved}, FlexMap([](flexbuffers::Builder& f) {
                                      f.Int("dimensions", 3);
                                      f.Float("scale", 0.5f);
                                    }),
                                    1));
  int crop_out = 0, landmarks_out = 0;
  GLD_RETURN_IF_ERROR(AddConv(b, "crop_out", crop, 5, 4, 3, 0.5f, 0.f, {1, 8, 8, 4}, 14, &crop_out));
  GLD_RETURN_IF_ERROR(AddConv(b, "landmarks_out", moved, 6, 6, 1, 0.5f, 0.f, {1, 12, 12, 6}, 15, &landmarks_out));
  b.SetOutputs({crop_out, landmarks_out});
  return b.Finish();
}

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
  auto bytes = TransformModel();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Options cpu_options;
  cpu_options.backend = Backend::kCpu;
  RunResult cpu;
  ASSERT_TRUE(RunModel(**model, cpu_options, &cpu));
  for (Precision p : {Precision::kFp32, Precision::kFp16}) {
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
  auto bytes = TransformModel();
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

}  // namespace
}  // namespace gld::testing
