// AVERAGE_POOL_2D, MAX_POOL_2D, RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR,
// DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "cpu_kernels/xnnpack/xnnpack_op.h"
#include "op_test_util.h"

namespace gld::testing {
namespace {

std::vector<float> Iota(size_t n, float start = 1.f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

Pool2dAttributes Pool(Padding p, int f, int s, Activation act = Activation::kNone) {
  Pool2dAttributes a;
  a.padding = p;
  a.filter_h = a.filter_w = f;
  a.stride_h = a.stride_w = s;
  a.activation = act;
  return a;
}

TEST(MaxPool2d, Valid2x2Stride2TwoChannels) {
  std::vector<float> x;
  for (int i = 1; i <= 16; ++i) {
    x.push_back(static_cast<float>(i));
    x.push_back(-static_cast<float>(i));
  }
  auto r = RunFloatOp(OpType::kMaxPool2d, {{{1, 4, 4, 2}, x}}, Pool(Padding::kValid, 2, 2));
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 2}));
  ExpectNear(r.values, {6, -1, 8, -3, 14, -9, 16, -11});
}

TEST(MaxPool2d, SameIgnoresPaddingForNegativeInputs) {
  // All inputs negative: padded positions must not contribute zeros.
  auto r = RunFloatOp(OpType::kMaxPool2d, {{{1, 3, 3, 1}, Iota(9, -20.f)}}, Pool(Padding::kSame, 3, 2));
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 1}));
  // total padding (2-1)*2+3-3 = 2 -> 1 before; windows rows/cols {0,1}, {1,2}
  ExpectNear(r.values, {-16, -15, -13, -12});
}

TEST(AveragePool2d, SameCountsOnlyInBoundsElements) {
  auto r = RunFloatOp(OpType::kAveragePool2d, {{{1, 3, 3, 1}, Iota(9)}}, Pool(Padding::kSame, 3, 1));
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7});
}

TEST(AveragePool2d, SameStride2ExtraPaddingAfterWithRelu6) {
  auto r = RunFloatOp(OpType::kAveragePool2d, {{{1, 3, 3, 1}, Iota(9)}},
                      Pool(Padding::kSame, 2, 2, Activation::kRelu6));
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 1}));
  ExpectNear(r.values, {3, 4.5f, 6, 6});
}

TEST(Pooling, RandomMatchesNaive) {
  const Shape is{2, 7, 6, 5};
  const auto x = RandomFloats(static_cast<size_t>(NumElements(is)), 3);
  for (Padding p : {Padding::kSame, Padding::kValid}) {
    for (bool is_max : {true, false}) {
      Pool2dAttributes a;
      a.padding = p;
      a.filter_h = 3;
      a.filter_w = 2;
      a.stride_h = 2;
      a.stride_w = 1;
      auto r = RunFloatOp(is_max ? OpType::kMaxPool2d : OpType::kAveragePool2d, {{is, x}}, a, {}, 2);
      GLD_ASSERT_OK(r.status);
      const int oh = p == Padding::kSame ? 4 : 3, ow = p == Padding::kSame ? 6 : 5;
      ASSERT_EQ(r.shape, (Shape{2, oh, ow, 5}));
      const int pt = p == Padding::kSame ? std::max(0, (oh - 1) * 2 + 3 - 7) / 2 : 0;
      const int pl = p == Padding::kSame ? std::max(0, (ow - 1) + 2 - 6) / 2 : 0;
      std::vector<float> expected;
      for (int b = 0; b < 2; ++b)
        for (int y = 0; y < oh; ++y)
          for (int xx = 0; xx < ow; ++xx)
            for (int c = 0; c < 5; ++c) {
              float best = -std::numeric_limits<float>::infinity(), sum = 0;
              int count = 0;
              for (int ky = 0; ky < 3; ++ky)
                for (int kx = 0; kx < 2; ++kx) {
                  const int iy = y * 2 - pt + ky, ix = xx - pl + kx;
                  if (iy < 0 || iy >= 7 || ix < 0 || ix >= 6) continue;
                  const float v = x[static_cast<size_t>(((b * 7 + iy) * 6 + ix) * 5 + c)];
                  best = std::max(best, v);
                  sum += v;
                  ++count;
                }
              expected.push_back(is_max ? best : sum / static_cast<float>(count));
            }
      ExpectNear(r.values, expected, 1e-5f);
    }
  }
}

// MAX_POOL_2D over 8-channel blocks and a tail (19 channels: two blocks and
// 3), and over whole blocks (8, 16: pairs of outputs whose windows lie inside
// the row run side by side, the last one alone), with SAME padding, a NaN
// (it never wins) and -inf in the input: equal, bit for bit, to a maximum
// taken here tap by tap.
TEST(MaxPool2d, ChannelBlocksAndTailMatchNaiveWithNanAndInfinity) {
  for (const int ch : {19, 16, 8}) {
    SCOPED_TRACE("channels " + std::to_string(ch));
    const int ih = 5, iw = 6, f = 2, st = 2;
    std::vector<float> x(static_cast<size_t>(ih * iw * ch));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 29) % 61) * 0.5f - 15.f;
    x[3] = std::numeric_limits<float>::quiet_NaN();
    x[static_cast<size_t>(3 * ch + 5)] = std::numeric_limits<float>::quiet_NaN();  // the second output's window
    x[static_cast<size_t>(2 * iw * ch + ch - 1)] = -std::numeric_limits<float>::infinity();
    auto r = RunFloatOp(OpType::kMaxPool2d, {{{1, ih, iw, ch}, x}}, Pool(Padding::kSame, f, st));
    GLD_ASSERT_OK(r.status);
    const int oh = 3, ow = 3;
    ASSERT_EQ(r.shape, (Shape{1, oh, ow, ch}));
    for (int y = 0; y < oh; ++y)
      for (int xx = 0; xx < ow; ++xx)
        for (int c = 0; c < ch; ++c) {
          float best = std::numeric_limits<float>::lowest();
          for (int ky = 0; ky < f; ++ky)
            for (int kx = 0; kx < f; ++kx) {
              const int iy = y * st + ky, ix = xx * st + kx;  // SAME pads after only here
              if (iy >= ih || ix >= iw) continue;
              best = std::max(best, x[static_cast<size_t>((iy * iw + ix) * ch + c)]);
            }
          const float got = r.values[static_cast<size_t>((y * ow + xx) * ch + c)];
          EXPECT_EQ(got, best) << y << " " << xx << " " << c;
        }
  }
}

TEST(Pooling, ShapeErrors) {
  auto r = RunFloatOp(OpType::kMaxPool2d, {{{1, 2, 2}, Iota(4)}}, Pool(Padding::kValid, 2, 2));
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("node 0 (MAX_POOL_2D)"), std::string::npos) << r.status.message();
  r = RunFloatOp(OpType::kAveragePool2d, {{{1, 2, 2, 1}, Iota(4)}}, Pool(Padding::kValid, 3, 1));
  EXPECT_FALSE(r.status.ok());
  r = RunFloatOp(OpType::kAveragePool2d, {{{1, 2, 2, 1}, Iota(4)}}, Pool(Padding::kValid, 1, 0));
  EXPECT_FALSE(r.status.ok());
}

// ---- resize -----------------------------------------------------------------

SimpleRun Resize(OpType op, const Shape& s, const std::vector<float>& x, int oh, int ow, bool align, bool half) {
  ResizeAttributes a;
  a.align_corners = align;
  a.half_pixel_centers = half;
  return RunFloatOp(op, {{s, x}}, a, {{{2}, {oh, ow}}});
}

TEST(ResizeBilinear, NoFlags2x) {
  auto r = Resize(OpType::kResizeBilinear, {1, 2, 2, 1}, {0, 1, 2, 3}, 4, 4, false, false);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 4, 4, 1}));
  ExpectNear(r.values, {0, 0.5f, 1, 1, 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 2, 2.5f, 3, 3});
}

TEST(ResizeBilinear, AlignCorners) {
  auto r = Resize(OpType::kResizeBilinear, {1, 2, 2, 1}, {0, 1, 2, 3}, 3, 3, true, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3});
}

TEST(ResizeBilinear, HalfPixelCentersTwoChannels) {
  // channel 1 = 10 * channel 0
  auto r = Resize(OpType::kResizeBilinear, {1, 2, 2, 2}, {0, 0, 1, 10, 2, 20, 3, 30}, 4, 4, false, true);
  GLD_ASSERT_OK(r.status);
  const std::vector<float> c0{0, 0.25f, 0.75f, 1, 0.5f, 0.75f, 1.25f, 1.5f, 1.5f, 1.75f, 2.25f, 2.5f, 2, 2.25f, 2.75f, 3};
  ASSERT_EQ(r.values.size(), 32u);
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_NEAR(r.values[2 * i], c0[i], 1e-6) << i;
    EXPECT_NEAR(r.values[2 * i + 1], 10 * c0[i], 1e-5) << i;
  }
}

TEST(ResizeBilinear, Downscale) {
  // 4 -> 2 without flags: source coordinates 0 and 2.
  auto r = Resize(OpType::kResizeBilinear, {1, 1, 4, 1}, {0, 10, 20, 30}, 1, 2, false, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 20});
}

// Prepared, a float RESIZE_BILINEAR with a constant size keeps XNNPACK's
// operator (LiteRT's XNNPACK delegate runs the same), whose interpolation
// order differs from the own loops' in the last bits only; an infinite
// input runs the own loops (exact infinities and NaN where they meet).
TEST(ResizeBilinear, XnnpackMatchesTheOwnLoops) {
  struct Case {
    Shape in;
    int oh, ow;
  };
  const std::vector<Case> cases = {{{2, 5, 7, 3}, 9, 4}, {{1, 4, 4, 16}, 8, 8}, {{1, 6, 3, 1}, 2, 5}};
  for (const auto& flags : std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {false, true}}) {
    const bool align = flags.first, half = flags.second;  // not a structured binding: clang 14 cannot capture one
    for (const Case& c : cases) {
      for (bool infinite : {false, true}) {
        SCOPED_TRACE(ShapeToString(c.in) + " -> " + std::to_string(c.oh) + "x" + std::to_string(c.ow) +
                     (align ? ", align_corners" : "") + (half ? ", half_pixel_centers" : "") +
                     (infinite ? ", an infinite input" : ""));
        std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(c.in)), 5, -4.f, 4.f);
        if (infinite) x[x.size() / 3] = std::numeric_limits<float>::infinity();
        int out = -1;
        auto build = [&](OpTest& t) {
          ResizeAttributes a;
          a.align_corners = align;
          a.half_pixel_centers = half;
          const int in = t.Input<float>(c.in, x);
          const int size = t.Const<int32_t>({2}, {c.oh, c.ow});
          out = t.Output();
          t.Node(OpType::kResizeBilinear, {in, size}, {out}, a);
        };
        OpTest own;
        build(own);
        GLD_ASSERT_OK(own.Run());
        OpTest xnn;
        build(xnn);
        GLD_ASSERT_OK(xnn.RunPrepared(2));
        ASSERT_EQ(xnn.states.size(), 1u);
        EXPECT_NE(dynamic_cast<const cpu::XnnOperatorState*>(xnn.states[0].get()), nullptr)
            << "no XNNPACK operator kept";
        const std::vector<float> want = own.Get<float>(out), got = xnn.Get<float>(out);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (!std::isfinite(want[i])) {
            EXPECT_EQ(std::isnan(got[i]), std::isnan(want[i])) << "at " << i;
            if (!std::isnan(want[i])) {
              EXPECT_EQ(got[i], want[i]) << "at " << i;
            }
          } else {
            EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.f, std::abs(want[i]))) << "at " << i;
          }
        }
      }
    }
  }
}

TEST(ResizeNearestNeighbor, Variants) {
  auto r = Resize(OpType::kResizeNearestNeighbor, {1, 2, 2, 1}, {0, 1, 2, 3}, 4, 4, false, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
  r = Resize(OpType::kResizeNearestNeighbor, {1, 2, 2, 1}, {0, 1, 2, 3}, 3, 3, true, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 1, 1, 2, 3, 3, 2, 3, 3});
  r = Resize(OpType::kResizeNearestNeighbor, {1, 3, 3, 1}, Iota(9, 0.f), 2, 2, false, true);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0, 2, 6, 8});
}

TEST(Resize, RejectsBadSizeAndFlags) {
  auto r = Resize(OpType::kResizeBilinear, {1, 2, 2, 1}, {0, 1, 2, 3}, 0, 4, false, false);
  EXPECT_FALSE(r.status.ok());
  r = Resize(OpType::kResizeBilinear, {1, 2, 2, 1}, {0, 1, 2, 3}, 4, 4, true, true);
  EXPECT_FALSE(r.status.ok());
  r = RunFloatOp(OpType::kResizeBilinear, {{{1, 2, 2, 1}, {0, 1, 2, 3}}}, ResizeAttributes{}, {{{3}, {1, 2, 3}}});
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("RESIZE_BILINEAR"), std::string::npos);
}

// ---- depth / space / batch -----------------------------------------------------

TEST(DepthToSpace, Block2) {
  auto r = RunFloatOp(OpType::kDepthToSpace, {{{1, 1, 1, 4}, {0, 1, 2, 3}}}, BlockSizeAttributes{2});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 2, 1}));
  ExpectNear(r.values, {0, 1, 2, 3});
  // 8 channels -> 2 per output pixel; two input pixels side by side.
  r = RunFloatOp(OpType::kDepthToSpace, {{{1, 1, 2, 8}, Iota(16, 0.f)}}, BlockSizeAttributes{2});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 2, 4, 2}));
  ExpectNear(r.values, {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15});
}

TEST(SpaceToDepth, InvertsDepthToSpace) {
  auto r = RunFloatOp(OpType::kSpaceToDepth, {{{1, 2, 4, 2}, {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15}}},
                      BlockSizeAttributes{2});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 2, 8}));
  ExpectNear(r.values, Iota(16, 0.f));
  r = RunFloatOp(OpType::kSpaceToDepth, {{{1, 3, 2, 1}, Iota(6)}}, BlockSizeAttributes{2});
  EXPECT_FALSE(r.status.ok());
  r = RunFloatOp(OpType::kDepthToSpace, {{{1, 1, 1, 6}, Iota(6)}}, BlockSizeAttributes{2});
  EXPECT_FALSE(r.status.ok());
}

TEST(SpaceToBatchNd, TensorFlowDocExample) {
  // input [2, 2, 4, 1] = 1..16, block [2, 2] -> [8, 1, 2, 1]
  auto r = RunFloatOp(OpType::kSpaceToBatchNd, {{{2, 2, 4, 1}, Iota(16)}}, {},
                      {{{2}, {2, 2}}, {{2, 2}, {0, 0, 0, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{8, 1, 2, 1}));
  ExpectNear(r.values, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16});
}

TEST(SpaceToBatchNd, PaddingFillsZeros) {
  // [1, 1, 3, 1] padded to width 4 (1 before), block [1, 2] -> [2, 1, 2, 1]
  auto r = RunFloatOp(OpType::kSpaceToBatchNd, {{{1, 1, 3, 1}, {1, 2, 3}}}, {},
                      {{{2}, {1, 2}}, {{2, 2}, {0, 0, 1, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 1, 2, 1}));
  // padded row: 0 1 2 3 -> offset 0 takes cols 0, 2; offset 1 takes 1, 3
  ExpectNear(r.values, {0, 2, 1, 3});
}

TEST(BatchToSpaceNd, InverseAndCrops) {
  auto r = RunFloatOp(OpType::kBatchToSpaceNd, {{{8, 1, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}}},
                      {}, {{{2}, {2, 2}}, {{2, 2}, {0, 0, 0, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 2, 4, 1}));
  ExpectNear(r.values, Iota(16));
  r = RunFloatOp(OpType::kBatchToSpaceNd, {{{2, 1, 2, 1}, {0, 2, 1, 3}}}, {}, {{{2}, {1, 2}}, {{2, 2}, {0, 0, 1, 0}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 3, 1}));
  ExpectNear(r.values, {1, 2, 3});
  r = RunFloatOp(OpType::kBatchToSpaceNd, {{{3, 1, 1, 1}, {1, 2, 3}}}, {}, {{{2}, {2, 1}}, {{2, 2}, {0, 0, 0, 0}}});
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace gld::testing
