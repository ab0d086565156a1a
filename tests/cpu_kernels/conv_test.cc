// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, Convolution2DTransposeBias.
#include <cmath>
#include <limits>

#include "cpu_kernels/ops/op_kernels.h"
#include "op_test_util.h"

namespace gld::testing {
namespace {

std::vector<float> Iota(size_t n, float start = 1.f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

// Straightforward convolution following the definition: out(b, y, x, o) =
// bias(o) + sum over (ky, kx, c in o's group) of in(b, y*s - pad + ky*d, ...)
// * w(o, ky, kx, c), with explicit leading pads.
std::vector<float> NaiveConv(const Shape& is, const std::vector<float>& in, const Shape& ws,
                             const std::vector<float>& w, const std::vector<float>& bias, int sh, int sw, int dh,
                             int dw, int pad_t, int pad_l, int oh, int ow) {
  const int n = is[0], ih = is[1], iw = is[2], ic = is[3];
  const int oc = ws[0], kh = ws[1], kw = ws[2], fic = ws[3];
  const int groups = ic / fic, ocg = oc / groups;
  std::vector<float> out(static_cast<size_t>(n * oh * ow * oc));
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int o = 0; o < oc; ++o) {
          double acc = bias.empty() ? 0.0 : bias[static_cast<size_t>(o)];
          const int g = o / ocg;
          for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx)
              for (int c = 0; c < fic; ++c) {
                const int iy = y * sh - pad_t + ky * dh, ix = x * sw - pad_l + kx * dw;
                if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) continue;
                acc += static_cast<double>(in[static_cast<size_t>(((b * ih + iy) * iw + ix) * ic + g * fic + c)]) *
                       w[static_cast<size_t>(((o * kh + ky) * kw + kx) * fic + c)];
              }
          out[static_cast<size_t>(((b * oh + y) * ow + x) * oc + o)] = static_cast<float>(acc);
        }
  return out;
}

TEST(Conv2d, ValidStride1WithBiasAndRelu) {
  OpTest t;
  const int in = t.Input<float>({1, 3, 3, 1}, Iota(9));
  const int w = t.Const<float>({1, 2, 2, 1}, {1, 1, 1, -1});
  const int b = t.Const<float>({1}, {-10});
  const int out = t.Output();
  Conv2dAttributes a;
  a.padding = Padding::kValid;
  a.activation = Activation::kRelu;
  t.Node(OpType::kConv2d, {in, w, b}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 2, 2, 1}));
  // windows: (1,2,4,5) (2,3,5,6) (4,5,7,8) (5,6,8,9) -> 2, 4, 8, 10; minus 10
  ExpectNear(t.Get(out), {0.f, 0.f, 0.f, 0.f});
  Conv2dAttributes a2 = a;
  a2.activation = Activation::kNone;
  t.graph.nodes[0].attributes = a2;
  ASSERT_TRUE(t.Run().ok());
  ExpectNear(t.Get(out), {-8.f, -6.f, -2.f, 0.f});
}

TEST(Conv2d, SameStride2PutsExtraPaddingAfter) {
  OpTest t;
  const int in = t.Input<float>({1, 4, 4, 1}, Iota(16));
  const int w = t.Const<float>({1, 3, 3, 1}, std::vector<float>(9, 1.f));
  const int out = t.Output();
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kConv2d, {in, w, kNoTensor}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 2, 2, 1}));
  // total padding 1 per dim: 0 before, 1 after.
  ExpectNear(t.Get(out), {54.f, 45.f, 72.f, 54.f});
}

TEST(Conv2d, SameStride1PadsOneEachSide) {
  OpTest t;
  const int in = t.Input<float>({1, 3, 3, 1}, Iota(9));
  const int w = t.Const<float>({1, 3, 3, 1}, std::vector<float>(9, 1.f));
  const int out = t.Output();
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  t.Node(OpType::kConv2d, {in, w}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  ExpectNear(t.Get(out), {12, 21, 16, 27, 45, 33, 24, 39, 28});
}

struct ConvCase {
  Shape in, w;
  Padding padding;
  int sh, sw, dh, dw;
  bool bias;
  Activation act;
};

class Conv2dRandom : public ::testing::TestWithParam<ConvCase> {};

TEST_P(Conv2dRandom, MatchesNaiveConvolution) {
  const ConvCase c = GetParam();
  for (int threads : {1, 3}) {
    OpTest t;
    const auto xv = RandomFloats(static_cast<size_t>(NumElements(c.in)), 1);
    const auto wv = RandomFloats(static_cast<size_t>(NumElements(c.w)), 2);
    const auto bv = c.bias ? RandomFloats(static_cast<size_t>(c.w[0]), 3) : std::vector<float>{};
    const int in = t.Input<float>(c.in, xv);
    const int w = t.Const<float>(c.w, wv);
    const int b = c.bias ? t.Const<float>({c.w[0]}, bv) : kNoTensor;
    const int out = t.Output();
    Conv2dAttributes a;
    a.padding = c.padding;
    a.stride_h = c.sh;
    a.stride_w = c.sw;
    a.dilation_h = c.dh;
    a.dilation_w = c.dw;
    a.activation = c.act;
    t.Node(OpType::kConv2d, {in, w, b}, {out}, a);
    ASSERT_TRUE(t.Run(threads).ok());
    const Shape& os = t.ShapeOf(out);
    // Output size and padding from the definitions, independently.
    const int eh = (c.w[1] - 1) * c.dh + 1, ew = (c.w[2] - 1) * c.dw + 1;
    int oh, ow, pt = 0, pl = 0;
    if (c.padding == Padding::kSame) {
      oh = (c.in[1] + c.sh - 1) / c.sh;
      ow = (c.in[2] + c.sw - 1) / c.sw;
      pt = std::max(0, (oh - 1) * c.sh + eh - c.in[1]) / 2;
      pl = std::max(0, (ow - 1) * c.sw + ew - c.in[2]) / 2;
    } else {
      oh = (c.in[1] - eh) / c.sh + 1;
      ow = (c.in[2] - ew) / c.sw + 1;
    }
    ASSERT_EQ(os, (Shape{c.in[0], oh, ow, c.w[0]}));
    auto expected = NaiveConv(c.in, xv, c.w, wv, bv, c.sh, c.sw, c.dh, c.dw, pt, pl, oh, ow);
    for (float& v : expected) {
      if (c.act == Activation::kRelu6) v = std::min(std::max(v, 0.f), 6.f);
      if (c.act == Activation::kRelu) v = std::max(v, 0.f);
      if (c.act == Activation::kTanh) v = std::tanh(v);
    }
    ExpectNear(t.Get(out), expected, 1e-4f);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, Conv2dRandom,
    ::testing::Values(ConvCase{{1, 7, 6, 5}, {7, 3, 3, 5}, Padding::kSame, 1, 1, 1, 1, true, Activation::kNone},
                      ConvCase{{2, 9, 8, 3}, {13, 3, 2, 3}, Padding::kSame, 2, 2, 1, 1, true, Activation::kRelu6},
                      ConvCase{{1, 11, 10, 4}, {6, 3, 3, 4}, Padding::kValid, 2, 1, 2, 2, false, Activation::kRelu},
                      ConvCase{{1, 10, 10, 4}, {5, 3, 3, 4}, Padding::kSame, 1, 1, 2, 3, true, Activation::kTanh},
                      // grouped: 6 input channels, filters of 3 -> 2 groups
                      ConvCase{{1, 5, 5, 6}, {4, 3, 3, 3}, Padding::kSame, 1, 1, 1, 1, true, Activation::kNone},
                      // 1x1 direct path, rows not a multiple of the tile, 300 > depth block
                      ConvCase{{1, 9, 7, 300}, {13, 1, 1, 300}, Padding::kSame, 1, 1, 1, 1, true, Activation::kNone},
                      ConvCase{{1, 8, 8, 16}, {9, 1, 1, 16}, Padding::kValid, 2, 2, 1, 1, false, Activation::kNone},
                      ConvCase{{1, 1, 1, 3}, {2, 1, 1, 3}, Padding::kValid, 1, 1, 1, 1, true, Activation::kNone},
                      // fewer pixels than the GEMM tile (dot products): a head over a 3x3 map,
                      // a batch of 2 strided to 1x1, 5 pixels with padding, and grouped (GEMM)
                      ConvCase{{1, 3, 3, 32}, {40, 3, 3, 32}, Padding::kValid, 1, 1, 1, 1, true, Activation::kRelu6},
                      ConvCase{{2, 3, 3, 8}, {20, 3, 3, 8}, Padding::kSame, 3, 3, 1, 1, false, Activation::kTanh},
                      ConvCase{{1, 5, 1, 7}, {9, 3, 3, 7}, Padding::kSame, 1, 1, 1, 1, true, Activation::kRelu},
                      ConvCase{{1, 3, 3, 6}, {4, 3, 3, 3}, Padding::kValid, 1, 1, 1, 1, true, Activation::kNone}),
    [](const ::testing::TestParamInfo<ConvCase>& info) { return "Case" + std::to_string(info.index); });

TEST(Conv2d, ShapeErrorsNameTheNode) {
  {
    OpTest t;
    const int in = t.Input<float>({1, 4, 4, 3}, std::vector<float>(48));
    const int w = t.Const<float>({2, 3, 3, 2}, std::vector<float>(36));
    const int out = t.Output();
    t.Node(OpType::kConv2d, {in, w}, {out}, Conv2dAttributes{});
    Status s = InferShapes(t.graph);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("node 0 (CONV_2D)"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("input channels 3"), std::string::npos) << s.message();
  }
  {
    OpTest t;
    const int in = t.Input<float>({1, 4, 4}, std::vector<float>(16));
    const int w = t.Const<float>({2, 3, 3, 1}, std::vector<float>(18));
    const int out = t.Output();
    t.Node(OpType::kConv2d, {in, w}, {out}, Conv2dAttributes{});
    Status s = InferShapes(t.graph);
    EXPECT_FALSE(s.ok());
    EXPECT_NE(s.message().find("4-D"), std::string::npos) << s.message();
  }
  {
    OpTest t;  // VALID filter larger than the input
    const int in = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
    const int w = t.Const<float>({1, 3, 3, 1}, std::vector<float>(9));
    const int out = t.Output();
    t.Node(OpType::kConv2d, {in, w}, {out}, Conv2dAttributes{});
    EXPECT_FALSE(InferShapes(t.graph).ok());
  }
  {
    OpTest t;  // bias size
    const int in = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
    const int w = t.Const<float>({2, 1, 1, 1}, std::vector<float>(2));
    const int b = t.Const<float>({3}, std::vector<float>(3));
    const int out = t.Output();
    t.Node(OpType::kConv2d, {in, w, b}, {out}, Conv2dAttributes{});
    Status s = InferShapes(t.graph);
    EXPECT_NE(s.message().find("bias"), std::string::npos) << s.message();
  }
  {
    OpTest t;  // zero stride
    const int in = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
    const int w = t.Const<float>({1, 1, 1, 1}, std::vector<float>(1));
    const int out = t.Output();
    Conv2dAttributes a;
    a.stride_h = 0;
    t.Node(OpType::kConv2d, {in, w}, {out}, a);
    EXPECT_FALSE(InferShapes(t.graph).ok());
  }
}

// ---- DEPTHWISE_CONV_2D ------------------------------------------------------

TEST(DepthwiseConv2d, MultiplierTwoHandComputed) {
  OpTest t;
  // 2x2 image, 2 channels: channel 0 = 1,2,3,4; channel 1 = 10,20,30,40
  const int in = t.Input<float>({1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  // 1x1 filter, 4 outputs: (c0 m0, c0 m1, c1 m0, c1 m1)
  const int w = t.Const<float>({1, 1, 1, 4}, {1, -1, 0.5f, 2});
  const int b = t.Const<float>({4}, {0, 100, 0, 0});
  const int out = t.Output();
  DepthwiseConv2dAttributes a;
  a.depth_multiplier = 2;
  t.Node(OpType::kDepthwiseConv2d, {in, w, b}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 2, 2, 4}));
  ExpectNear(t.Get(out), {1, 99, 5, 20, 2, 98, 10, 40, 3, 97, 15, 60, 4, 96, 20, 80});
}

TEST(DepthwiseConv2d, SameStride2Relu6HandComputed) {
  OpTest t;
  const int in = t.Input<float>({1, 4, 4, 1}, Iota(16));
  const int w = t.Const<float>({1, 3, 3, 1}, std::vector<float>(9, 0.1f));
  const int out = t.Output();
  DepthwiseConv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  a.activation = Activation::kRelu6;
  t.Node(OpType::kDepthwiseConv2d, {in, w}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  ExpectNear(t.Get(out), {5.4f, 4.5f, 6.f, 5.4f});
}

TEST(DepthwiseConv2d, RandomMatchesGroupedNaive) {
  // Depthwise = grouped convolution with one input channel per group. Widths
  // from 7 to 23 give rows with and without runs of four pixels whose window
  // lies inside the input (the kernel computes those four together).
  struct Geometry {
    int iw, sw, dw;
    Padding padding;
  };
  const Geometry geometries[] = {{7, 1, 2, Padding::kSame},   {23, 1, 1, Padding::kSame},
                                 {23, 2, 1, Padding::kValid}, {19, 1, 2, Padding::kValid},
                                 {22, 3, 1, Padding::kSame}};
  for (const Geometry& geo : geometries) {
    for (int ic : {5, 13, 16}) {
      for (int mult : {1, 3}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE("iw " + std::to_string(geo.iw) + " sw " + std::to_string(geo.sw) + " dw " +
                       std::to_string(geo.dw) + " ic " + std::to_string(ic) + " mult " + std::to_string(mult));
          const int ih = 9;
          const Shape is{2, ih, geo.iw, ic};
          const int oc = ic * mult;
          const Shape ws{1, 3, 3, oc};
          const auto xv = RandomFloats(static_cast<size_t>(NumElements(is)), 4);
          const auto wv = RandomFloats(static_cast<size_t>(NumElements(ws)), 5);
          const auto bv = RandomFloats(static_cast<size_t>(oc), 6);
          OpTest t;
          const int in = t.Input<float>(is, xv);
          const int w = t.Const<float>(ws, wv);
          const int b = t.Const<float>({oc}, bv);
          const int out = t.Output();
          DepthwiseConv2dAttributes a;
          a.padding = geo.padding;
          a.stride_h = 2;
          a.stride_w = geo.sw;
          a.dilation_w = geo.dw;
          a.depth_multiplier = mult;
          t.Node(OpType::kDepthwiseConv2d, {in, w, b}, {out}, a);
          ASSERT_TRUE(t.Run(threads).ok());
          // grouped filter [oc, 3, 3, 1]: w_g(o, ky, kx, 0) = w(0, ky, kx, o)
          std::vector<float> wg(static_cast<size_t>(oc * 9));
          for (int o = 0; o < oc; ++o)
            for (int k = 0; k < 9; ++k) wg[static_cast<size_t>(o * 9 + k)] = wv[static_cast<size_t>(k * oc + o)];
          const int span_w = 2 * geo.dw + 1;
          const bool same = geo.padding == Padding::kSame;
          const int oh = same ? (ih + 1) / 2 : (ih - 3) / 2 + 1;
          const int ow = same ? (geo.iw + geo.sw - 1) / geo.sw : (geo.iw - span_w) / geo.sw + 1;
          const int pt = same ? std::max(0, (oh - 1) * 2 + 3 - ih) / 2 : 0;
          const int pl = same ? std::max(0, (ow - 1) * geo.sw + span_w - geo.iw) / 2 : 0;
          const auto expected = NaiveConv(is, xv, {oc, 3, 3, 1}, wg, bv, 2, geo.sw, 1, geo.dw, pt, pl, oh, ow);
          ASSERT_EQ(t.ShapeOf(out), (Shape{2, oh, ow, oc}));
          ExpectNear(t.Get(out), expected, 1e-4f);
        }
      }
    }
  }
}

// The fixed 3x3 and 5x5 kernels (multiplier 1, strides 1 and 2): widths
// from 4 (one block of four pixels, every window at an edge) to 22 (blocks
// inside, at both edges, and a last block overlapping the one before it),
// channel counts with and without a partial last block of 8 (or of 16, where
// the CPU has AVX-512F: 16, 17, 24 and 40 take the 16-lane code), both paddings,
// a clamp fused into the stores and one applied after, two batches.
struct FixedCase {
  int k, stride, iw, ic;
  Padding padding;
  Activation act;
};

std::vector<float> NaiveDepthwise(const FixedCase& c, const Shape& is, const std::vector<float>& xv,
                                  const std::vector<float>& wv, const std::vector<float>& bv, Shape* out_shape) {
  const int ih = static_cast<int>(is[1]), k = c.k, s = c.stride, oc = c.ic;
  const bool same = c.padding == Padding::kSame;
  const int oh = same ? (ih + s - 1) / s : (ih - k) / s + 1;
  const int ow = same ? (c.iw + s - 1) / s : (c.iw - k) / s + 1;
  const int pt = same ? std::max(0, (oh - 1) * s + k - ih) / 2 : 0;
  const int pl = same ? std::max(0, (ow - 1) * s + k - c.iw) / 2 : 0;
  std::vector<float> wg(static_cast<size_t>(oc * k * k));  // grouped [oc, k, k, 1]
  for (int o = 0; o < oc; ++o)
    for (int i = 0; i < k * k; ++i) wg[static_cast<size_t>(o * k * k + i)] = wv[static_cast<size_t>(i * oc + o)];
  *out_shape = {is[0], oh, ow, oc};
  std::vector<float> out = NaiveConv(is, xv, {oc, k, k, 1}, wg, bv, s, s, 1, 1, pt, pl, oh, ow);
  for (float& v : out) {
    if (c.act == Activation::kRelu6) v = std::min(std::max(v, 0.f), 6.f);
    if (c.act == Activation::kTanh) v = std::tanh(v);
  }
  return out;
}

TEST(DepthwiseConv2d, FixedKernelsMatchGroupedNaive) {
  std::vector<FixedCase> cases;
  for (int k : {3, 5})
    for (int stride : {1, 2})
      for (int iw : {4, 5, 7, 9, 13, 22})
        for (int ic : {8, 12, 16, 17, 24, 40})
          for (Padding p : {Padding::kSame, Padding::kValid}) {
            if (p == Padding::kValid && (iw - k) / stride + 1 < 4) continue;
            if (p == Padding::kSame && (iw + stride - 1) / stride < 4) continue;
            cases.push_back({k, stride, iw, ic, p, (iw + ic) % 3 == 0 ? Activation::kRelu6
                                                  : (iw + ic) % 3 == 1 ? Activation::kTanh
                                                                       : Activation::kNone});
          }
  ASSERT_GT(cases.size(), 100u);
  for (const FixedCase& c : cases) {
    SCOPED_TRACE("k " + std::to_string(c.k) + " stride " + std::to_string(c.stride) + " iw " +
                 std::to_string(c.iw) + " ic " + std::to_string(c.ic) +
                 (c.padding == Padding::kSame ? " same " : " valid ") + ActivationName(c.act));
    const Shape is{2, 11, c.iw, c.ic}, ws{1, c.k, c.k, c.ic};
    const auto xv = RandomFloats(static_cast<size_t>(NumElements(is)), 11, -4.f, 4.f);
    const auto wv = RandomFloats(static_cast<size_t>(NumElements(ws)), 12);
    const auto bv = RandomFloats(static_cast<size_t>(c.ic), 13);
    Shape expected_shape;
    const auto expected = NaiveDepthwise(c, is, xv, wv, bv, &expected_shape);
    for (int threads : {1, 2}) {
      OpTest t;
      const int in = t.Input<float>(is, xv);
      const int out = t.Output();
      DepthwiseConv2dAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      a.activation = c.act;
      t.Node(OpType::kDepthwiseConv2d, {in, t.Const<float>(ws, wv), t.Const<float>({c.ic}, bv)}, {out}, a);
      GLD_ASSERT_OK(t.RunPrepared(threads));
      ASSERT_EQ(t.ShapeOf(out), expected_shape);
      ExpectNear(t.Get(out), expected, 1e-5f);
      // Finite weights: the edge windows multiply the padding's zeros.
      const auto* fixed = dynamic_cast<const cpu::DepthwiseFixedState*>(t.states[0].get());
      ASSERT_NE(fixed, nullptr);
      EXPECT_TRUE(fixed->finite_weights);
    }
  }
}

// NaN and infinity through the fixed kernels as TFLite's kernel gives them:
// a NaN input reaches exactly the outputs whose windows hold it, and an
// infinite weight on a tap that lies in the padding is never used.
TEST(DepthwiseConv2d, FixedKernelKeepsNaNAndSkipsPaddingTaps) {
  const FixedCase c{3, 1, 9, 8, Padding::kSame, Activation::kRelu6};
  const Shape is{1, 6, 9, 8}, ws{1, 3, 3, 8};
  auto xv = RandomFloats(static_cast<size_t>(NumElements(is)), 21);
  auto wv = RandomFloats(static_cast<size_t>(NumElements(ws)), 22);
  const std::vector<float> bv(8, 0.5f);
  xv[static_cast<size_t>((2 * 9 + 4) * 8 + 3)] = std::nanf("");  // row 2, column 4, channel 3
  wv[static_cast<size_t>(0 * 8 + 5)] = std::numeric_limits<float>::infinity();  // tap (0, 0), channel 5
  OpTest t;
  const int in = t.Input<float>(is, xv);
  const int out = t.Output();
  DepthwiseConv2dAttributes a;
  a.padding = c.padding;
  a.activation = c.act;
  t.Node(OpType::kDepthwiseConv2d, {in, t.Const<float>(ws, wv), t.Const<float>({8}, bv)}, {out}, a);
  GLD_ASSERT_OK(t.RunPrepared(1));
  const auto* fixed = dynamic_cast<const cpu::DepthwiseFixedState*>(t.states[0].get());
  ASSERT_NE(fixed, nullptr);
  EXPECT_FALSE(fixed->finite_weights) << "the infinite weight keeps the taps skipped";
  const std::vector<float> got = t.Get(out);
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 9; ++x) {
      SCOPED_TRACE("pixel " + std::to_string(y) + ", " + std::to_string(x));
      const float nan_channel = got[static_cast<size_t>((y * 9 + x) * 8 + 3)];
      EXPECT_EQ(std::isnan(nan_channel), std::abs(y - 2) <= 1 && std::abs(x - 4) <= 1);
      // channel 5's tap (0, 0) reads row y - 1, column x - 1: padding on the
      // first row and column (finite), else inf clamped to 6 or NaN-free.
      const float inf_channel = got[static_cast<size_t>((y * 9 + x) * 8 + 5)];
      EXPECT_FALSE(std::isnan(inf_channel));
      if (y == 0 || x == 0) {
        EXPECT_LT(inf_channel, 6.f);
      }
    }
}

TEST(DepthwiseConv2d, Relu6OnVectorAndTailChannels) {
  // 9 channels: one 8-wide block and one tail channel; 1x1 filter of 2s.
  std::vector<float> x(9), expected(9);
  for (int c = 0; c < 9; ++c) {
    x[static_cast<size_t>(c)] = static_cast<float>(c) - 2.f;
    expected[static_cast<size_t>(c)] = std::min(std::max(2.f * x[static_cast<size_t>(c)] + 1.f, 0.f), 6.f);
  }
  OpTest t;
  const int in = t.Input<float>({1, 1, 1, 9}, x);
  const int w = t.Const<float>({1, 1, 1, 9}, std::vector<float>(9, 2.f));
  const int b = t.Const<float>({9}, std::vector<float>(9, 1.f));
  const int out = t.Output();
  DepthwiseConv2dAttributes a;
  a.activation = Activation::kRelu6;
  t.Node(OpType::kDepthwiseConv2d, {in, w, b}, {out}, a);
  GLD_ASSERT_OK(t.Run());
  ExpectNear(t.Get(out), expected);
}

TEST(DepthwiseConv2d, RejectsFilterNotMultipleOfChannels) {
  OpTest t;
  const int in = t.Input<float>({1, 2, 2, 3}, std::vector<float>(12));
  const int w = t.Const<float>({1, 1, 1, 4}, std::vector<float>(4));
  const int out = t.Output();
  t.Node(OpType::kDepthwiseConv2d, {in, w}, {out}, DepthwiseConv2dAttributes{});
  Status s = InferShapes(t.graph);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("DEPTHWISE_CONV_2D"), std::string::npos);
}

// ---- TRANSPOSE_CONV ---------------------------------------------------------

// Scatter form, as TFLite's reference describes it: input (y, x) adds
// in * w(o, ky, kx, c) to output (y*s - pad + ky, x*s - pad + kx).
std::vector<float> NaiveTransposeConv(const Shape& is, const std::vector<float>& in, const Shape& ws,
                                      const std::vector<float>& w, const std::vector<float>& bias, int s, int pad_t,
                                      int pad_l, int oh, int ow) {
  const int n = is[0], ih = is[1], iw = is[2], ic = is[3];
  const int oc = ws[0], kh = ws[1], kw = ws[2];
  std::vector<float> out(static_cast<size_t>(n * oh * ow * oc), 0.f);
  for (int b = 0; b < n; ++b) {
    for (int y = 0; y < oh; ++y)
      for (int x = 0; x < ow; ++x)
        for (int o = 0; o < oc; ++o)
          out[static_cast<size_t>(((b * oh + y) * ow + x) * oc + o)] = bias.empty() ? 0.f : bias[static_cast<size_t>(o)];
    for (int y = 0; y < ih; ++y)
      for (int x = 0; x < iw; ++x)
        for (int c = 0; c < ic; ++c)
          for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx)
              for (int o = 0; o < oc; ++o) {
                const int oy = y * s - pad_t + ky, ox = x * s - pad_l + kx;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                out[static_cast<size_t>(((b * oh + oy) * ow + ox) * oc + o)] +=
                    in[static_cast<size_t>(((b * ih + y) * iw + x) * ic + c)] *
                    w[static_cast<size_t>(((o * kh + ky) * kw + kx) * ic + c)];
              }
  }
  return out;
}

TEST(TransposeConv, Stride2ValidHandComputed) {
  OpTest t;
  const int os = t.Const<int32_t>({4}, {1, 4, 4, 1});
  const int w = t.Const<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  const int in = t.Input<float>({1, 2, 2, 1}, {1, 10, 100, 1000});
  const int out = t.Output();
  TransposeConvAttributes a;
  a.padding = Padding::kValid;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kTransposeConv, {os, w, in}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 4, 4, 1}));
  ExpectNear(t.Get(out), {1, 2, 10, 20, 3, 4, 30, 40, 100, 200, 1000, 2000, 300, 400, 3000, 4000});
}

TEST(TransposeConv, SameStride2OddOutputWithBias) {
  // output 3x3, filter 3, stride 2: TFLite pads as for a conv of the 3x3
  // output: out size 2, total padding (2-1)*2+3-3 = 2 -> 1 before.
  OpTest t;
  const int os = t.Const<int32_t>({4}, {1, 3, 3, 1});
  const int w = t.Const<float>({1, 3, 3, 1}, Iota(9));
  const int in = t.Input<float>({1, 2, 2, 1}, {1, 0, 0, 0});
  const int b = t.Const<float>({1}, {0.5f});
  const int out = t.Output();
  TransposeConvAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kTransposeConv, {os, w, in, b}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  // input (0,0) lands at output (-1 + ky, -1 + kx): w(1..2, 1..2) = 5,6,8,9
  ExpectNear(t.Get(out), {5.5f, 6.5f, 0.5f, 8.5f, 9.5f, 0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(TransposeConv, RandomMatchesScatter) {
  // Output channels below and above the kernel's switch from dot products
  // over input channels to loops over output channels, input channels under
  // and over one 8-wide step, strides 1 to 3.
  struct Case {
    int oc, ic, s;
  };
  std::vector<Case> cases;
  for (int oc : {1, 3, 6, 8, 17})
    for (int ic : {3, 11})
      for (int s : {1, 2, 3}) cases.push_back({oc, ic, s});
  for (const Case& c : cases) {
    for (Padding p : {Padding::kSame, Padding::kValid}) {
      const int s = c.s;
      SCOPED_TRACE("oc " + std::to_string(c.oc) + " ic " + std::to_string(c.ic) + " stride " +
                   std::to_string(s) + (p == Padding::kSame ? " SAME" : " VALID"));
      const Shape is{2, 5, 4, c.ic};
      const Shape ws{c.oc, 3, 3, c.ic};
      const int oh = p == Padding::kSame ? 5 * s : 4 * s + 3, ow = p == Padding::kSame ? 4 * s : 3 * s + 3;
      const auto xv = RandomFloats(static_cast<size_t>(NumElements(is)), 7);
      const auto wv = RandomFloats(static_cast<size_t>(NumElements(ws)), 8);
      const auto bv = RandomFloats(static_cast<size_t>(c.oc), 9);
      OpTest t;
      const int os = t.Const<int32_t>({4}, {2, oh, ow, c.oc});
      const int w = t.Const<float>(ws, wv);
      const int in = t.Input<float>(is, xv);
      const int b = t.Const<float>({c.oc}, bv);
      const int out = t.Output();
      TransposeConvAttributes a;
      a.padding = p;
      a.stride_h = a.stride_w = s;
      t.Node(OpType::kTransposeConv, {os, w, in, b}, {out}, a);
      ASSERT_TRUE(t.Run(2).ok());
      int pt = 0, pl = 0;
      if (p == Padding::kSame) {
        const int ch = (oh + s - 1) / s, cw = (ow + s - 1) / s;
        pt = std::max(0, (ch - 1) * s + 3 - oh) / 2;
        pl = std::max(0, (cw - 1) * s + 3 - ow) / 2;
      }
      ExpectNear(t.Get(out), NaiveTransposeConv(is, xv, ws, wv, bv, s, pt, pl, oh, ow), 1e-4f);
    }
  }
}

TEST(TransposeConv, OutputShapeMustMatchWeights) {
  OpTest t;
  const int os = t.Const<int32_t>({4}, {1, 4, 4, 3});
  const int w = t.Const<float>({2, 2, 2, 1}, std::vector<float>(8));
  const int in = t.Input<float>({1, 2, 2, 1}, std::vector<float>(4));
  const int out = t.Output();
  t.Node(OpType::kTransposeConv, {os, w, in}, {out}, TransposeConvAttributes{});
  Status s = InferShapes(t.graph);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("output_shape"), std::string::npos) << s.message();
}

TEST(TransposeConv, NonConstantOutputShapeKeepsStoredShape) {
  OpTest t;
  const int os = t.Input<int32_t>({4}, {1, 4, 4, 1});
  const int w = t.Const<float>({1, 2, 2, 1}, {1, 1, 1, 1});
  const int in = t.Input<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  const int out = t.Output(DataType::kFloat32, {1, 4, 4, 1});
  TransposeConvAttributes a;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kTransposeConv, {os, w, in}, {out}, a);
  ASSERT_TRUE(InferShapes(t.graph).ok());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 4, 4, 1}));
  OpTest u;
  const int os2 = u.Input<int32_t>({4}, {1, 4, 4, 1});
  const int w2 = u.Const<float>({1, 2, 2, 1}, {1, 1, 1, 1});
  const int in2 = u.Input<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  const int out2 = u.Output(DataType::kFloat32, {1, -1, -1, 1});
  u.Node(OpType::kTransposeConv, {os2, w2, in2}, {out2}, a);
  Status s = InferShapes(u.graph);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("node 0 (TRANSPOSE_CONV)"), std::string::npos) << s.message();
}

TEST(Convolution2DTransposeBias, SameStride2DoublesSize) {
  OpTest t;
  const int in = t.Input<float>({1, 2, 2, 1}, {1, 2, 3, 4});
  const int w = t.Const<float>({2, 2, 2, 1}, {1, 0, 0, 0, 0, 0, 0, 1});
  const int b = t.Const<float>({2}, {0.f, 10.f});
  const int out = t.Output();
  TransposeConvAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kConvolution2DTransposeBias, {in, w, b}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 4, 4, 2}));
  const auto v = t.Get(out);
  // channel 0 takes the top-left of each 2x2 block, channel 1 the bottom-right (+10).
  const float c0[16] = {1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0};
  const float c1[16] = {10, 10, 10, 10, 10, 11, 10, 12, 10, 10, 10, 10, 10, 13, 10, 14};
  for (int i = 0; i < 16; ++i) {
    EXPECT_FLOAT_EQ(v[static_cast<size_t>(2 * i)], c0[i]) << i;
    EXPECT_FLOAT_EQ(v[static_cast<size_t>(2 * i + 1)], c1[i]) << i;
  }
}

TEST(Convolution2DTransposeBias, SameWithOverlapMatchesScatter) {
  // 3x3 filter, stride 2, input 3: total pad = max(0, 3 - (2 % 2) - 1) = 2,
  // output = 2*2 + 3 - 2 = 5, leading pad 1.
  const Shape is{1, 3, 4, 2}, ws{3, 3, 3, 2};
  const auto xv = RandomFloats(static_cast<size_t>(NumElements(is)), 10);
  const auto wv = RandomFloats(static_cast<size_t>(NumElements(ws)), 11);
  const auto bv = RandomFloats(3, 12);
  OpTest t;
  const int in = t.Input<float>(is, xv);
  const int w = t.Const<float>(ws, wv);
  const int b = t.Const<float>({3}, bv);
  const int out = t.Output();
  TransposeConvAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kConvolution2DTransposeBias, {in, w, b}, {out}, a);
  ASSERT_TRUE(t.Run().ok());
  // width 4: (4-1) % 2 = 1 -> total 1, output 2*3+3-1 = 8, leading pad 0.
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 5, 8, 3}));
  ExpectNear(t.Get(out), NaiveTransposeConv(is, xv, ws, wv, bv, 2, 1, 0, 5, 8), 1e-4f);
}

}  // namespace
}  // namespace gld::testing
