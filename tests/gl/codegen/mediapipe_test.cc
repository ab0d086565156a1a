// MediaPipe's custom ops on the GPU (transform_tensor_bilinear.comp,
// transform_landmarks.comp, landmarks_to_transform_matrix.comp) vs their CPU
// kernels (cpu_kernels/ops/mediapipe_ops.cc).
//
// Inputs are fp16-exact (dyadic values few bits long), so that fp16 storage
// sees the same inputs as the CPU and the comparison measures the kernels,
// not the rounding of their inputs. Tolerances (max |gpu - cpu| / max |cpu|):
// 1e-5 in fp32, 1e-3 in fp16 (its output rounding is 2^-11 relative).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

constexpr double kFp32Tolerance = 1e-5;
constexpr double kFp16Tolerance = 1e-3;

double TightTolerance(Precision p) { return p == Precision::kFp32 ? kFp32Tolerance : kFp16Tolerance; }

// Uniform values in [lo, hi) rounded to multiples of `step` (a power of two).
std::vector<float> Dyadic(size_t n, uint32_t seed, float lo, float hi, float step) {
  std::vector<float> v = RandomFloats(n, seed, lo, hi);
  for (float& x : v) x = std::round(x / step) * step;
  return v;
}

// A 4x4 row-major matrix whose first two rows map output (x, y) to input
// coordinates: the output box onto the input's, turned by a random angle and
// shifted by up to 1.5 pixels (some samples fall outside), rounded to
// multiples of 1/64 (fp16-exact).
std::vector<float> SamplingMatrix(uint32_t seed, int in_h, int in_w, int out_h, int out_w) {
  const std::vector<float> r = RandomFloats(3, seed, -1.f, 1.f);
  const float angle = 0.4f * r[0];
  const float sx = static_cast<float>(in_w) / static_cast<float>(out_w);
  const float sy = static_cast<float>(in_h) / static_cast<float>(out_h);
  auto q = [](float v) { return std::round(v * 64.f) / 64.f; };
  const float a = q(sx * std::cos(angle)), b = q(-sy * std::sin(angle));
  const float c = q(sx * std::sin(angle)), d = q(sy * std::cos(angle));
  const float cx = 0.5f * static_cast<float>(out_w - 1), cy = 0.5f * static_cast<float>(out_h - 1);
  const float tx = q(0.5f * static_cast<float>(in_w - 1) - a * cx - b * cy + 1.5f * r[1]);
  const float ty = q(0.5f * static_cast<float>(in_h - 1) - c * cx - d * cy + 1.5f * r[2]);
  return {a, b, 0, tx, c, d, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1};
}

struct BilinearCase {
  int batch, h, w, c, out_h, out_w;
  bool align_corners;
  int matrices;  // 1, or one per batch
  bool flat = false;  // matrices as [N, 16] (BHWC view [N, 1, 1, 16]) instead of [N, 4, 4]
};

std::string Describe(const BilinearCase& c) {
  return std::to_string(c.batch) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
         std::to_string(c.c) + " -> " + std::to_string(c.out_h) + "x" + std::to_string(c.out_w) +
         (c.align_corners ? " aligned" : "") + " matrices " + std::to_string(c.matrices) + (c.flat ? " flat" : "");
}

TEST(MediaPipeGlTest, TransformTensorBilinearMatchesCpu) {
  GLD_REQUIRE_GL(env);
  const BilinearCase cases[] = {
      {1, 8, 10, 3, 5, 7, false, 1},   // smaller output, version 1
      {1, 8, 10, 3, 5, 7, true, 1},    // the same, version 2 (pixel centres)
      {1, 6, 6, 4, 12, 9, true, 1},    // larger output
      {2, 7, 9, 6, 4, 4, false, 2},    // two slices, a matrix per batch
      {2, 7, 9, 9, 6, 3, true, 1},     // three slices, one matrix for both
      {1, 2, 5, 2, 3, 3, false, 1},    // two input rows
      {1, 8, 10, 3, 5, 7, true, 1, true},   // matrix [1, 16]
      {2, 7, 9, 6, 4, 4, false, 2, true},   // matrices [2, 16]
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 300;
    for (const BilinearCase& c : cases) {
      GlOpTest t(seed++);
      const Shape s = {c.batch, c.h, c.w, c.c};
      const int x = t.InputValues(s, Fp16ExactValues(static_cast<size_t>(NumElements(s)), seed));
      std::vector<float> mats;
      for (int m = 0; m < c.matrices; ++m) {
        std::vector<float> one = SamplingMatrix(seed * 7 + static_cast<uint32_t>(m), c.h, c.w, c.out_h, c.out_w);
        mats.insert(mats.end(), one.begin(), one.end());
      }
      const int mat = t.InputValues(c.flat ? Shape{c.matrices, 16} : Shape{c.matrices, 4, 4}, mats);
      t.Op(OpType::kTransformTensorBilinear, {x, mat},
           TransformTensorBilinearAttributes{c.out_h, c.out_w, c.align_corners});
      t.ExpectGpuMatchesCpu(*env, p, "TransformTensorBilinear " + Describe(c), TightTolerance(p));
    }
  }
}

// The identity samples every pixel exactly, the last row and column
// included (their right / lower neighbours are past the edge, weight 0).
TEST(MediaPipeGlTest, TransformTensorBilinearIdentityCopies) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    for (bool aligned : {false, true}) {
      GlOpTest t(77);
      const Shape s = {1, 4, 5, 6};
      const std::vector<float> values = Fp16ExactValues(static_cast<size_t>(NumElements(s)), 78);
      const int x = t.InputValues(s, values);
      const int mat = t.InputValues({1, 4, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
      const int y = t.Op(OpType::kTransformTensorBilinear, {x, mat}, TransformTensorBilinearAttributes{4, 5, aligned});
      t.ExpectGpuMatchesCpu(*env, p, aligned ? "identity aligned" : "identity", TightTolerance(p));
      EXPECT_EQ(t.GpuFloats(y), values);
      EXPECT_EQ(t.CpuFloats(y), values);
    }
  }
}

// NaN and infinities in the data spread to the samples that blend them, as
// on the CPU (the comparison checks that NaNs sit at the same places).
TEST(MediaPipeGlTest, TransformTensorBilinearSpecialValues) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(91);
    const Shape s = {1, 6, 7, 3};
    std::vector<float> values = Fp16ExactValues(static_cast<size_t>(NumElements(s)), 92);
    values[10] = std::numeric_limits<float>::quiet_NaN();
    values[50] = std::numeric_limits<float>::infinity();
    values[80] = -std::numeric_limits<float>::infinity();
    const int x = t.InputValues(s, values);
    const int mat = t.InputValues({1, 4, 4}, SamplingMatrix(93, 6, 7, 9, 8));
    const int y = t.Op(OpType::kTransformTensorBilinear, {x, mat}, TransformTensorBilinearAttributes{9, 8, true});
    t.ExpectGpuMatchesCpu(*env, p, "special values", TightTolerance(p));
    const std::vector<float> out = t.CpuFloats(y);
    EXPECT_GT(std::count_if(out.begin(), out.end(), [](float v) { return std::isnan(v); }), 0);
    EXPECT_GT(std::count_if(out.begin(), out.end(), [](float v) { return std::isinf(v); }), 0);
  }
}

// General float matrices and data (not fp16-exact): fp32 only.
TEST(MediaPipeGlTest, TransformTensorBilinearGeneralFloatsFp32) {
  GLD_REQUIRE_GL(env);
  for (bool aligned : {false, true}) {
    GlOpTest t(aligned ? 41 : 42);
    const int x = t.Input({1, 12, 11, 5});
    const float a = 0.83f, b = 0.31f;
    const int mat = t.InputValues({1, 4, 4}, {a, -b, 0, 1.37f, b, a, 0, -0.71f, 0, 0, 1, 0, 0, 0, 0, 1});
    t.Op(OpType::kTransformTensorBilinear, {x, mat}, TransformTensorBilinearAttributes{13, 10, aligned});
    t.ExpectGpuMatchesCpu(*env, Precision::kFp32, aligned ? "aligned" : "not aligned", kFp32Tolerance);
  }
}

// Any 4x4 matrix of multiples of 1/64 (fp16-exact): the op reads m0 m1 m3
// and m4 m5 m7.
std::vector<float> LandmarkMatrix(uint32_t seed) {
  std::vector<float> m = Dyadic(16, seed, -2.f, 2.f, 1.f / 64);
  m[3] *= 10.f;
  m[7] *= 10.f;
  return m;
}

TEST(MediaPipeGlTest, TransformLandmarksMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape shape;
    int version, dims;
    float scale;
  };
  const Case cases[] = {
      {{1, 1, 1, 6}, 1, 3, 1.f},     // two 3-D points
      {{1, 2, 3, 9}, 1, 3, 0.5f},    // points across slices, scaled shift
      {{2, 1, 2, 10}, 1, 2, 2.f},    // 2-D points
      {{1, 5, 3}, 2, 3, 1.f},        // version 2: [B, N, 3]
      {{2, 7, 2}, 2, 2, 1.f},        // version 2: [B, N, 2]
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 500;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      const int lm = t.InputValues(c.shape, Fp16ExactValues(static_cast<size_t>(NumElements(c.shape)), seed));
      // Every other case takes the matrix as [16] (BHWC view [1, 1, 1, 16]).
      const int mat = t.InputValues(seed % 2 ? Shape{16} : Shape{1, 4, 4}, LandmarkMatrix(seed));
      TransformLandmarksAttributes a;
      a.version = c.version;
      a.dimensions = c.version == 1 ? c.dims : 0;
      a.scale = c.scale;
      t.Op(OpType::kTransformLandmarks, {lm, mat}, a);
      t.ExpectGpuMatchesCpu(*env, p, "TransformLandmarks " + ShapeToString(c.shape) + " v" +
                                         std::to_string(c.version), TightTolerance(p));
    }
  }
}

Landmarks2TransformMatrixAttributes L2tmAttrs(int version) {
  Landmarks2TransformMatrixAttributes a;
  a.version = version;
  a.left_rotation_idx = 2;
  a.right_rotation_idx = 5;
  a.subset = {{0, 1}, {3, 4}, {6, 7}, {8, 8}};
  if (version == 1) {
    a.input_h = 192;
    a.input_w = 256;
    a.output_h = 64;
    a.output_w = 48;
    a.dimensions = 3;
    a.landmarks_range = 256;
    a.bbox_size_multiplier = 1.5f;
  } else {
    a.target_rotation_radians = 0.25f;
    a.output_height = 64;
    a.output_width = 48;
    a.scale_x = 1.25f;
    a.scale_y = 1.5f;
  }
  return a;
}

TEST(MediaPipeGlTest, Landmarks2TransformMatrixMatchesCpu) {
  GLD_REQUIRE_GL(env);
  // Landmarks in pixels, multiples of 1/8 below 256 (fp16-exact); shapes the
  // op reads as flat (x, y, z) triples.
  const Shape shapes[] = {{1, 9, 3}, {1, 27}, {1, 1, 3, 9}};
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 700;
    for (int version : {1, 2}) {
      for (const Shape& s : shapes) {
        GlOpTest t(seed++);
        const int lm = t.InputValues(s, Dyadic(static_cast<size_t>(NumElements(s)), seed, 0.f, 255.f, 0.125f));
        t.Op(OpType::kLandmarks2TransformMatrix, {lm}, L2tmAttrs(version));
        t.ExpectGpuMatchesCpu(*env, p, "Landmarks2TransformMatrix v" + std::to_string(version) + " " +
                                           ShapeToString(s), TightTolerance(p));
      }
    }
  }
}

// Elementwise nodes after TransformTensorBilinear and TransformLandmarks run
// in their dispatch's epilogue (MediaPipe normalises crops that way).
TEST(MediaPipeGlTest, ElementwiseNodesFuseIntoTheTransforms) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(61);
    const Shape s = {1, 8, 10, 3};
    const int x = t.InputValues(s, Fp16ExactValues(static_cast<size_t>(NumElements(s)), 62));
    const int mat = t.InputValues({1, 4, 4}, SamplingMatrix(63, 8, 10, 6, 6));
    const int crop = t.Tensor();
    t.Node(OpType::kTransformTensorBilinear, {x, mat}, {crop}, TransformTensorBilinearAttributes{6, 6, true});
    const int scaled = t.Tensor();
    t.Node(OpType::kMul, {crop, t.ConstValues({3}, {0.5f, 0.25f, 2.f})}, {scaled}, BinaryAttributes{});
    t.Output(t.Op(OpType::kRelu, {scaled}));
    const int lm = t.InputValues({1, 4, 3}, Fp16ExactValues(12, 64));
    const int moved = t.Tensor();
    TransformLandmarksAttributes a;
    a.version = 2;
    t.Node(OpType::kTransformLandmarks, {lm, mat}, {moved}, a);
    t.Output(t.Op(OpType::kAdd, {moved, t.ConstValues({3}, {1.f, -2.f, 0.5f})}, BinaryAttributes{}));
    t.ExpectGpuMatchesCpu(*env, p, "fused epilogues", TightTolerance(p));
    std::vector<std::string> labels;
    for (const gl::DispatchInfo& d : t.segment->dispatch_info()) labels.push_back(d.label);
    EXPECT_NE(std::find(labels.begin(), labels.end(),
                        "transform_tensor_bilinear.comp for node 0 (TransformTensorBilinear) + node 1 (MUL) + "
                        "node 2 (RELU)"),
              labels.end());
    EXPECT_NE(std::find(labels.begin(), labels.end(),
                        "transform_landmarks.comp for node 3 (TransformLandmarks) + node 4 (ADD)"),
              labels.end());
  }
}

// What the GL kernels refuse, with the reason the placement report gives.
TEST(MediaPipeGlTest, RefusalsNameTheReason) {
  {
    GlOpTest t;
    const int x = t.Placeholder({3, 4, 4, 2});
    const int mat = t.Placeholder({2, 4, 4});  // two matrices for batch 3
    t.Op(OpType::kTransformTensorBilinear, {x, mat}, TransformTensorBilinearAttributes{2, 2, false});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    std::string why;
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32));
    EXPECT_NE(why.find("holds 2 matrices for batch 3"), std::string::npos) << why;
  }
  {
    GlOpTest t;
    const int lm = t.Placeholder({1, 3000, 3});
    Landmarks2TransformMatrixAttributes a = L2tmAttrs(2);
    a.subset.push_back({2500, 2999});
    t.Op(OpType::kLandmarks2TransformMatrix, {lm}, a);
    ASSERT_TRUE(InferShapes(t.graph).ok());
    std::string why;
    EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32)) << why;
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp16));
    EXPECT_NE(why.find("landmark index 2999 is past 2048"), std::string::npos) << why;
  }
  {
    GlOpTest t;
    const int lm = t.Placeholder({1, 4, 3});  // index 5 and up do not exist
    t.Op(OpType::kLandmarks2TransformMatrix, {lm}, L2tmAttrs(1));
    ASSERT_TRUE(InferShapes(t.graph).ok());
    std::string why;
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32));
    EXPECT_NE(why.find("out of range for 4 landmarks"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace gld::testing
