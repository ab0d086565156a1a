// MediaPipe custom ops: MaxPoolingWithArgmax2D, MaxUnpooling2D,
// TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix.
#include <flatbuffers/flexbuffers.h>

#include <cmath>
#include <functional>

#include "gldelegate/example_models.hpp"
#include "model/tflite_ops.h"
#include "op_test_util.h"

namespace gld::testing {
namespace {

// MediaPipe's custom options: a flexbuffer map.
std::vector<uint8_t> FlexMap(const std::function<void(flexbuffers::Builder&)>& fill) { return FlexbufferMap(fill); }

// `op`'s attributes as the model reader parses them from a flexbuffer map.
StatusOr<Attributes> ParseFlex(OpType op, int version, const std::vector<uint8_t>& bytes) {
  Attributes a;
  GLD_RETURN_IF_ERROR(tflite_ops::ParseCustomOptions(op, bytes.data(), bytes.size(), version, &a));
  return a;
}

Attributes Flex(OpType op, int version, const std::function<void(flexbuffers::Builder&)>& fill) {
  StatusOr<Attributes> a = ParseFlex(op, version, FlexMap(fill));
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : Attributes{};
}

Pool2dAttributes Pool2x2() {
  Pool2dAttributes a;
  a.padding = Padding::kValid;
  a.filter_h = a.filter_w = 2;
  a.stride_h = a.stride_w = 2;
  return a;
}

TEST(MaxPoolingWithArgmax2D, ValuesAndWindowIndices) {
  OpTest t;
  const int in = t.Input<float>({1, 4, 4, 1}, {1, 5, 2, 0, 3, 4, 8, 6, 0, 0, 1, 1, 9, 0, 1, 2});
  const int out = t.Output(), idx = t.Output();
  t.Node(OpType::kMaxPoolingWithArgmax2D, {in}, {out, idx}, Pool2x2());
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 2, 2, 1}));
  EXPECT_EQ(t.ShapeOf(idx), (Shape{1, 2, 2, 1}));
  ExpectNear(t.Get(out), {5, 8, 9, 2});
  ExpectNear(t.Get(idx), {1.1f, 2.1f, 2.1f, 3.1f});
}

TEST(MaxPoolingWithArgmax2D, SamePaddingTwoChannelsAndActivation) {
  Pool2dAttributes a;
  a.padding = Padding::kSame;
  a.filter_h = a.filter_w = 2;
  a.stride_h = a.stride_w = 2;
  a.activation = Activation::kRelu;
  OpTest t;
  // [1, 1, 3, 2]: width 3 -> 2 outputs, total padding 1 (after).
  const int in = t.Input<float>({1, 1, 3, 2}, {-1, 4, -3, 2, -2, 7});
  const int out = t.Output(), idx = t.Output();
  t.Node(OpType::kMaxPoolingWithArgmax2D, {in}, {out, idx}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 1, 2, 2}));
  ExpectNear(t.Get(out), {0, 4, 0, 7});  // maxima -1, 4, -2, 7 after RELU
  ExpectNear(t.Get(idx), {0.1f, 0.1f, 0.1f, 0.1f});
}

TEST(MaxUnpooling2D, PlacesValuesAtArgmax) {
  OpTest t;
  const int v = t.Input<float>({1, 2, 2, 1}, {5, 8, 9, 2});
  const int i = t.Input<float>({1, 2, 2, 1}, {1.1f, 2.1f, 2.1f, 3.1f});
  const int out = t.Output();
  t.Node(OpType::kMaxUnpooling2D, {v, i}, {out}, Pool2x2());
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 4, 4, 1}));
  ExpectNear(t.Get(out), {0, 5, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 9, 0, 0, 2});
}

TEST(MaxUnpooling2D, InvertsArgmaxPoolingOnRandomData) {
  const auto x = RandomFloats(6 * 4 * 3, 41);
  OpTest t;
  const int in = t.Input<float>({1, 6, 4, 3}, x);
  const int pooled = t.Output(), idx = t.Output(), back = t.Output();
  t.Node(OpType::kMaxPoolingWithArgmax2D, {in}, {pooled, idx}, Pool2x2());
  t.Node(OpType::kMaxUnpooling2D, {pooled, idx}, {back}, Pool2x2());
  GLD_ASSERT_OK(t.Run());
  ASSERT_EQ(t.ShapeOf(back), (Shape{1, 6, 4, 3}));
  // Every element is either its window's maximum (kept) or 0.
  const auto b = t.Get(back);
  for (int y = 0; y < 6; ++y)
    for (int xx = 0; xx < 4; ++xx)
      for (int c = 0; c < 3; ++c) {
        float mx = -1e9f;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            mx = std::max(mx, x[static_cast<size_t>((((y / 2) * 2 + dy) * 4 + (xx / 2) * 2 + dx) * 3 + c)]);
        const size_t o = static_cast<size_t>((y * 4 + xx) * 3 + c);
        const float expected = x[o] == mx ? x[o] : 0.f;
        EXPECT_EQ(b[o], expected) << y << "," << xx << "," << c;
      }
}

// ---- TransformTensorBilinear ------------------------------------------------------

SimpleRun TransformTensor(int version, const std::vector<float>& matrix, int oh, int ow) {
  Attributes a = Flex(OpType::kTransformTensorBilinear, version, [&](flexbuffers::Builder& b) {
    if (version == 1) {
      b.String("mode", "bilinear");
      b.TypedVector("output_size", [&]() {
        b.Int(oh);
        b.Int(ow);
      });
    } else {
      b.Int("output_height", oh);
      b.Int("output_width", ow);
    }
  });
  // 3x3 image, two channels: c0 = 10 * y + x, c1 = -(10 * y + x)
  std::vector<float> img;
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 3; ++x) {
      img.push_back(static_cast<float>(10 * y + x));
      img.push_back(-static_cast<float>(10 * y + x));
    }
  return RunFloatOp(OpType::kTransformTensorBilinear, {{{1, 3, 3, 2}, img}, {{1, 1, 4, 4}, matrix}}, a);
}

TEST(TransformTensorBilinear, V1IdentityShiftAndOutOfBounds) {
  const std::vector<float> shift{1, 0, 0, 0.5f, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1};
  auto r = TransformTensor(1, shift, 2, 2);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 2}));
  // output (x, y) samples input (x + 0.5, y + 1)
  ExpectNear(r.values, {10.5f, -10.5f, 11.5f, -11.5f, 20.5f, -20.5f, 21.5f, -21.5f});
  const std::vector<float> far{1, 0, 0, 5, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  r = TransformTensor(1, far, 1, 2);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 0, 0, 0});
}

TEST(TransformTensorBilinear, V2AlignsPixelCentres) {
  // Scale 2 in x: version 1 samples 2 * x, version 2 samples 2 * x + 0.5.
  const std::vector<float> scale{2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  auto r1 = TransformTensor(1, scale, 1, 2);
  GLD_ASSERT_OK(r1.status);
  ExpectNear(r1.values, {0, 0, 2, -2});
  auto r2 = TransformTensor(2, scale, 1, 2);
  GLD_ASSERT_OK(r2.status);
  ExpectNear(r2.values, {0.5f, -0.5f, 0, 0});  // x = 2.5 is outside [0, 2]
}

TEST(TransformTensorBilinear, BadOptionsAreErrors) {
  auto r = ParseFlex(OpType::kTransformTensorBilinear, 2, {1, 2, 3, 4});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("TransformTensorBilinear"), std::string::npos) << r.status().message();
  r = ParseFlex(OpType::kTransformTensorBilinear, 2, FlexMap([](flexbuffers::Builder& b) { b.Int("output_height", 2); }));
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("output_width"), std::string::npos) << r.status().message();
}

// ---- TransformLandmarks ----------------------------------------------------------

TEST(TransformLandmarks, V1ScalesTranslation) {
  Attributes a = Flex(OpType::kTransformLandmarks, 1, [](flexbuffers::Builder& b) {
    b.Int("dimensions", 2);
    b.Float("scale", 2.f);
  });
  const std::vector<float> m{1, 0, 0, 1, 0, 2, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1};
  auto r = RunFloatOp(OpType::kTransformLandmarks, {{{1, 1, 1, 4}, {1, 2, 3, 4}}, {{1, 1, 4, 4}, m}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 1, 4}));
  // x' = x + 1 * 2, y' = 2 y - 1 * 2
  ExpectNear(r.values, {3, 2, 5, 6});
}

TEST(TransformLandmarks, V2ThreeDimensionsCopiesZ) {
  TransformLandmarksAttributes a;
  a.version = 2;
  const std::vector<float> m{0, -1, 0, 10, 1, 0, 0, 20, 0, 0, 1, 0, 0, 0, 0, 1};
  auto r = RunFloatOp(OpType::kTransformLandmarks, {{{1, 2, 3}, {1, 2, 7, 3, 4, 8}}, {{1, 4, 4}, m}}, a);
  GLD_ASSERT_OK(r.status);
  // (x, y) -> (-y + 10, x + 20)
  ExpectNear(r.values, {8, 21, 7, 6, 23, 8});
  r = RunFloatOp(OpType::kTransformLandmarks, {{{1, 2, 4}, std::vector<float>(8)}, {{1, 4, 4}, m}}, a);
  EXPECT_FALSE(r.status.ok());
}

// ---- Landmarks2TransformMatrix ---------------------------------------------------

TEST(Landmarks2TransformMatrix, V2AxisAlignedBox) {
  Attributes a = Flex(OpType::kLandmarks2TransformMatrix, 2, [](flexbuffers::Builder& b) {
    b.TypedVector("subset_idxs", [&]() {
      b.Int(0);
      b.Int(1);
      b.Int(2);
    });
    b.Int("left_rotation_idx", 0);
    b.Int("right_rotation_idx", 1);
    b.Float("target_rotation_radians", 0.f);
    b.Int("output_height", 4);
    b.Int("output_width", 4);
    b.Float("scale_x", 1.f);
    b.Float("scale_y", 1.f);
  });
  auto r = RunFloatOp(OpType::kLandmarks2TransformMatrix, {{{1, 3, 3}, {1, 1, 0, 3, 1, 0, 2, 3, 0}}}, a);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 4, 4}));
  // box [1, 3] x [1, 3] -> crop 2x2 centred at (2, 2), 4x4 output: scale 0.5, origin (1, 1)
  ExpectNear(r.values, {0.5f, 0, 0, 1, 0, 0.5f, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1});
}

TEST(Landmarks2TransformMatrix, V2QuarterTurn) {
  Attributes a = Flex(OpType::kLandmarks2TransformMatrix, 2, [](flexbuffers::Builder& b) {
    b.TypedVector("subset_idxs", [&]() {
      b.Int(0);
      b.Int(1);
      b.Int(2);
    });
    b.Int("left_rotation_idx", 0);
    b.Int("right_rotation_idx", 1);
    b.Float("target_rotation_radians", 0.f);
    b.Int("output_height", 1);
    b.Int("output_width", 2);
    b.Float("scale_x", 1.f);
    b.Float("scale_y", 1.f);
  });
  // left (0, 0), right (0, 2): the line points down, so the crop is rotated 90 degrees.
  auto r = RunFloatOp(OpType::kLandmarks2TransformMatrix, {{{1, 3, 3}, {0, 0, 0, 0, 2, 0, 1, 1, 0}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, -1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, 1e-5f);
}

TEST(Landmarks2TransformMatrix, V1HandComputed) {
  Attributes a = Flex(OpType::kLandmarks2TransformMatrix, 1, [](flexbuffers::Builder& b) {
    b.TypedVector("input_hw", [&]() {
      b.Int(5);
      b.Int(5);
    });
    b.TypedVector("output_hw", [&]() {
      b.Int(3);
      b.Int(3);
    });
    b.Int("dimensions", 3);
    b.Int("landmarks_range", 4);
    b.Float("bbox_size_multiplier", 1.f);
    b.Int("left_rotation_idx", 0);
    b.Int("right_rotation_idx", 1);
    b.TypedVector("subset", [&]() {
      b.Int(0);
      b.Int(1);
      b.Int(2);
      b.Int(2);
    });
  });
  auto r = RunFloatOp(OpType::kLandmarks2TransformMatrix, {{{1, 1, 1, 9}, {1, 0, 0, 5, 0, 0, 3, 2, 0}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {2, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
}

TEST(Landmarks2TransformMatrix, IndexOutOfRangeIsAnError) {
  Attributes a = Flex(OpType::kLandmarks2TransformMatrix, 2, [](flexbuffers::Builder& b) {
    b.TypedVector("subset_idxs", [&]() { b.Int(7); });
    b.Int("left_rotation_idx", 0);
    b.Int("right_rotation_idx", 1);
    b.Float("target_rotation_radians", 0.f);
    b.Int("output_height", 4);
    b.Int("output_width", 4);
    b.Float("scale_x", 1.f);
    b.Float("scale_y", 1.f);
  });
  auto r = RunFloatOp(OpType::kLandmarks2TransformMatrix, {{{1, 3, 3}, std::vector<float>(9, 0.f)}}, a);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace gld::testing
