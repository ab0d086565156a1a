// Reductions, ARG_MAX/MIN, CUMSUM, SOFTMAX family, FULLY_CONNECTED,
// BATCH_MATMUL.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "op_test_util.h"

namespace gld::testing {
namespace {

std::vector<float> Iota(size_t n, float start = 1.f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

SimpleRun Reduce(OpType op, const Shape& s, const std::vector<float>& x, std::vector<int32_t> axes, bool keep) {
  ReduceAttributes a;
  a.keep_dims = keep;
  return RunFloatOp(op, {{s, x}}, a, {{{static_cast<int32_t>(axes.size())}, axes}});
}

TEST(Mean, LastAxisAndNegativeAxesKeepDims) {
  auto r = Reduce(OpType::kMean, {2, 3}, Iota(6), {1}, false);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2}));
  ExpectNear(r.values, {2, 5});
  r = Reduce(OpType::kMean, {2, 3}, Iota(6), {-1, 0}, true);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1}));
  ExpectNear(r.values, {3.5f});
}

TEST(Mean, SpatialOfNhwcWithFiveChannels) {
  // [1, 2, 2, 5]: channel c at pixel p holds p * 10 + c.
  std::vector<float> x;
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 5; ++c) x.push_back(static_cast<float>(p * 10 + c));
  auto r = Reduce(OpType::kMean, {1, 2, 2, 5}, x, {1, 2}, true);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 1, 5}));
  ExpectNear(r.values, {15, 16, 17, 18, 19});
  r = Reduce(OpType::kMean, {1, 2, 2, 5}, x, {2, 1, 2}, false);  // repeated axis
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 5}));
}

TEST(Reduce, SumProdMaxMin) {
  const std::vector<float> x{1, -2, 3, 4, 5, -6};
  auto r = Reduce(OpType::kSum, {2, 3}, x, {0}, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {5, 3, -3});
  r = Reduce(OpType::kReduceProd, {2, 3}, x, {1}, true);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 1}));
  ExpectNear(r.values, {-6, -120});
  r = Reduce(OpType::kReduceMax, {2, 3}, x, {-1}, false);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {3, 5});
  r = Reduce(OpType::kReduceMin, {2, 3}, x, {0, 1}, false);
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, Shape{});
  ExpectNear(r.values, {-6});
  r = Reduce(OpType::kSum, {2, 3}, x, {2}, false);
  EXPECT_FALSE(r.status.ok());
}

// Every subset of the axes of a [2, 3, 4, 5] input (the rows' index runs
// through up to three outer dimensions: batch 2, then 3 x 4) against sums,
// means and maxima taken here.
TEST(Reduce, EveryAxisSubsetOfRankFour) {
  const Shape shape{2, 3, 4, 5};
  std::vector<float> x(120);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 101) * 0.25f - 10.f;
  for (int mask = 1; mask < 16; ++mask) {
    std::vector<int32_t> axes;
    for (int d = 0; d < 4; ++d) {
      if (mask & (1 << d)) axes.push_back(d);
    }
    // The reference: output index of each input element, its dims kept as 1.
    Shape out_shape = shape;
    for (int32_t d : axes) out_shape[static_cast<size_t>(d)] = 1;
    const int64_t out_count = NumElements(out_shape);
    std::vector<double> sum(static_cast<size_t>(out_count), 0.0);
    std::vector<float> max(static_cast<size_t>(out_count), -1e30f);
    for (int64_t i = 0; i < 120; ++i) {
      int64_t rem = i, o = 0, ostride = 1;
      for (size_t d = 4; d-- > 0;) {
        const int64_t c = rem % shape[d];
        rem /= shape[d];
        o += (out_shape[d] == 1 ? 0 : c) * ostride;
        ostride *= out_shape[d];
      }
      sum[static_cast<size_t>(o)] += x[static_cast<size_t>(i)];
      max[static_cast<size_t>(o)] = std::max(max[static_cast<size_t>(o)], x[static_cast<size_t>(i)]);
    }
    const double count = static_cast<double>(120 / out_count);
    std::vector<float> want_sum, want_mean;
    for (double v : sum) {
      want_sum.push_back(static_cast<float>(v));
      want_mean.push_back(static_cast<float>(v / count));
    }
    SCOPED_TRACE("axes mask " + std::to_string(mask));
    auto r = Reduce(OpType::kSum, shape, x, axes, true);
    GLD_ASSERT_OK(r.status);
    EXPECT_EQ(r.shape, out_shape);
    ExpectNear(r.values, want_sum);
    r = Reduce(OpType::kMean, shape, x, axes, true);
    GLD_ASSERT_OK(r.status);
    ExpectNear(r.values, want_mean);
    r = Reduce(OpType::kReduceMax, shape, x, axes, true);
    GLD_ASSERT_OK(r.status);
    ExpectNear(r.values, max);
  }
}

// SUM and MEAN over a block of axes before a kept last axis (a pooling MEAN
// over H and W): each output is the double sum over the block in order, bit
// for bit, with channels past one block of 256 accumulators, several outer
// rows, and on two threads.
TEST(Reduce, MiddleAxesSumInOrderAcrossChannelBlocks) {
  // 8 outer rows x 2 channel blocks: 16 items, 4 per chunk on the pool.
  const Shape shape{8, 3, 5, 300};
  std::vector<float> x(8 * 3 * 5 * 300);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<float>(i) * 0.37f) * 1e3f + 1e-3f;
  std::vector<float> want_sum, want_mean;
  for (int o = 0; o < 8; ++o) {
    for (int c = 0; c < 300; ++c) {
      double a = 0;
      for (int m = 0; m < 15; ++m) a += static_cast<double>(x[static_cast<size_t>((o * 15 + m) * 300 + c)]);
      want_sum.push_back(static_cast<float>(a));
      want_mean.push_back(static_cast<float>(a / 15.0));
    }
  }
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " thread(s)");
    ReduceAttributes keep;
    keep.keep_dims = true;
    auto r = RunFloatOp(OpType::kSum, {{shape, x}}, keep, {{{2}, {1, 2}}}, threads);
    GLD_ASSERT_OK(r.status);
    EXPECT_EQ(r.shape, (Shape{8, 1, 1, 300}));
    EXPECT_EQ(r.values, want_sum);
    r = RunFloatOp(OpType::kMean, {{shape, x}}, ReduceAttributes{}, {{{2}, {2, 1}}}, threads);
    GLD_ASSERT_OK(r.status);
    EXPECT_EQ(r.shape, (Shape{8, 300}));
    EXPECT_EQ(r.values, want_mean);
  }
}

// float32 maxima and minima are taken in float: an axis of infinities alone
// gives that infinity (not the lowest or largest finite float), a NaN never
// wins, and a value next to a larger one survives bit for bit.
TEST(Reduce, FloatMaxMinKeepInfinitiesAndSkipNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float tiny = std::nextafter(1.f, 2.f);
  // [3, 2] over the last axis: {-inf, -inf}, {nan, tiny}, {1, nan}.
  const std::vector<float> x{-inf, -inf, nan, tiny, 1.f, nan};
  auto r = Reduce(OpType::kReduceMax, {3, 2}, x, {1}, false);
  GLD_ASSERT_OK(r.status);
  ASSERT_EQ(r.values.size(), 3u);
  EXPECT_EQ(r.values[0], -inf);
  EXPECT_EQ(r.values[1], tiny);
  EXPECT_EQ(r.values[2], 1.f);
  const std::vector<float> y{inf, inf, nan, -tiny, -1.f, nan};
  r = Reduce(OpType::kReduceMin, {3, 2}, y, {1}, false);
  GLD_ASSERT_OK(r.status);
  ASSERT_EQ(r.values.size(), 3u);
  EXPECT_EQ(r.values[0], inf);
  EXPECT_EQ(r.values[1], -tiny);
  EXPECT_EQ(r.values[2], -1.f);
  // Over H and W of NHWC with 16 channels (mnist's global max pool).
  const Shape shape{1, 5, 3, 16};
  std::vector<float> z(240);
  for (size_t i = 0; i < z.size(); ++i) z[i] = static_cast<float>((i * 53) % 97) * 0.125f - 6.f;
  z[17] = nan;
  r = Reduce(OpType::kReduceMax, shape, z, {1, 2}, false);
  GLD_ASSERT_OK(r.status);
  ASSERT_EQ(r.values.size(), 16u);
  for (size_t c = 0; c < 16; ++c) {
    float want = -inf;
    for (size_t p = 0; p < 15; ++p) want = std::max(want, z[p * 16 + c]);
    EXPECT_EQ(r.values[c], want) << c;
  }
}

TEST(Reduce, Int32SumAndMean) {
  OpTest t;
  const int in = t.Input<int32_t>({2, 2}, {1, 2, 3, 5});
  const int axes = t.Const<int32_t>({1}, {1});
  const int s = t.Output(DataType::kInt32), m = t.Output(DataType::kInt32);
  t.Node(OpType::kSum, {in, axes}, {s}, ReduceAttributes{});
  t.Node(OpType::kMean, {in, axes}, {m}, ReduceAttributes{});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(s), (std::vector<int32_t>{3, 8}));
  EXPECT_EQ(t.Get<int32_t>(m), (std::vector<int32_t>{1, 4}));
}

TEST(ArgMinMax, AxesTiesAndOutputTypes) {
  OpTest t;
  const int in = t.Input<float>({2, 3}, {1, 7, 7, 9, -1, 9});
  const int ax1 = t.Const<int32_t>({1}, {1});
  const int ax0 = t.Const<int64_t>({}, {-2});
  const int amax = t.Output(DataType::kInt32);
  const int amin = t.Output(DataType::kInt64);
  t.Node(OpType::kArgMax, {in, ax1}, {amax});
  t.Node(OpType::kArgMin, {in, ax0}, {amin});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(amax), (Shape{2}));
  EXPECT_EQ(t.Get<int32_t>(amax), (std::vector<int32_t>{1, 0}));  // first of equal maxima
  EXPECT_EQ(t.ShapeOf(amin), (Shape{3}));
  EXPECT_EQ(t.Get<int64_t>(amin), (std::vector<int64_t>{0, 1, 0}));
}

TEST(Cumsum, ExclusiveReverseCombinations) {
  const std::vector<std::pair<std::pair<bool, bool>, std::vector<float>>> cases = {
      {{false, false}, {1, 3, 6, 10}},
      {{true, false}, {0, 1, 3, 6}},
      {{false, true}, {10, 9, 7, 4}},
      {{true, true}, {9, 7, 4, 0}}};
  for (const auto& c : cases) {
    AxisAttributes a;
    a.exclusive = c.first.first;
    a.reverse = c.first.second;
    auto r = RunFloatOp(OpType::kCumsum, {{{4}, {1, 2, 3, 4}}}, a, {{{}, {0}}});
    GLD_ASSERT_OK(r.status);
    ExpectNear(r.values, c.second);
  }
  auto r = RunFloatOp(OpType::kCumsum, {{{2, 2}, {1, 2, 3, 4}}}, AxisAttributes{}, {{{}, {-2}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1, 2, 4, 6});
}

TEST(Softmax, BetaOneAndTwo) {
  const std::vector<float> x{0, std::log(2.f), std::log(3.f)};
  auto r = RunFloatOp(OpType::kSoftmax, {{{1, 3}, x}}, SoftmaxAttributes{1.f});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1.f / 6, 1.f / 3, 0.5f});
  r = RunFloatOp(OpType::kSoftmax, {{{1, 3}, x}}, SoftmaxAttributes{2.f});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1.f / 14, 4.f / 14, 9.f / 14});
  // rows are independent; large values do not overflow
  r = RunFloatOp(OpType::kSoftmax, {{{2, 2}, {1000, 1000, 0, 0}}}, SoftmaxAttributes{});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0.5f, 0.5f, 0.5f, 0.5f});
}

TEST(LogSoftmax, Rows) {
  const std::vector<float> x{0, std::log(2.f), std::log(3.f), 5, 5, 5};
  auto r = RunFloatOp(OpType::kLogSoftmax, {{{2, 3}, x}});
  GLD_ASSERT_OK(r.status);
  const float l3 = std::log(3.f);
  ExpectNear(r.values, {std::log(1.f / 6), std::log(1.f / 3), std::log(0.5f), -l3, -l3, -l3});
}

TEST(L2Normalization, RowsAndZero) {
  auto r = RunFloatOp(OpType::kL2Normalization, {{{3, 2}, {3, 4, 0, 0, -5, 12}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {0.6f, 0.8f, 0, 0, -5.f / 13, 12.f / 13});
}

TEST(LocalResponseNormalization, SymmetricWindow) {
  // TensorFlow's definition (and TFLite's default kernel): the window is
  // [c - radius, c + radius] clipped to the channels.
  LrnAttributes a;
  a.radius = 1;
  a.bias = 1;
  a.alpha = 1;
  a.beta = 1;
  auto r = RunFloatOp(OpType::kLocalResponseNormalization, {{{1, 1, 1, 3}, {1, 2, 3}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {1.f / 6, 2.f / 15, 3.f / 14});
  a.radius = 0;
  a.bias = 2;
  a.alpha = 0.5f;
  a.beta = 0.5f;
  r = RunFloatOp(OpType::kLocalResponseNormalization, {{{1, 1, 1, 2}, {2, 4}}}, a);
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {2 / std::sqrt(4.f), 4 / std::sqrt(10.f)});
}

// ---- FULLY_CONNECTED ---------------------------------------------------------

TEST(FullyConnected, HandComputedWithBias) {
  OpTest t;
  const int in = t.Input<float>({2, 3}, Iota(6));
  const int w = t.Const<float>({2, 3}, {1, 0, -1, 0.5f, 0.5f, 0.5f});
  const int b = t.Const<float>({2}, {10, 20});
  const int out = t.Output();
  t.Node(OpType::kFullyConnected, {in, w, b}, {out}, FullyConnectedAttributes{});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  ExpectNear(t.Get(out), {8, 23, 8, 27.5f});
}

TEST(FullyConnected, KeepNumDimsNoBiasRelu) {
  OpTest t;
  const int in = t.Input<float>({1, 2, 3}, Iota(6));
  const int w = t.Const<float>({2, 3}, {1, 0, -1, -1, -1, -1});
  const int out = t.Output();
  FullyConnectedAttributes a;
  a.keep_num_dims = true;
  a.activation = Activation::kRelu;
  t.Node(OpType::kFullyConnected, {in, w, kNoTensor}, {out}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{1, 2, 2}));
  ExpectNear(t.Get(out), {0, 0, 0, 0});
  a.keep_num_dims = false;
  a.activation = Activation::kNone;
  t.graph.nodes[0].attributes = a;
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  ExpectNear(t.Get(out), {-2, -6, -2, -15});
}

TEST(FullyConnected, ManyRowsMatchNaive) {
  const int rows = 37, depth = 300, units = 19;
  const auto x = RandomFloats(static_cast<size_t>(rows * depth), 21);
  const auto w = RandomFloats(static_cast<size_t>(units * depth), 22);
  const auto b = RandomFloats(static_cast<size_t>(units), 23);
  for (int threads : {1, 3}) {
    OpTest t;
    const int in = t.Input<float>({rows, depth}, x);
    const int wi = t.Const<float>({units, depth}, w);
    const int bi = t.Const<float>({units}, b);
    const int out = t.Output();
    FullyConnectedAttributes a;
    a.activation = Activation::kRelu6;
    t.Node(OpType::kFullyConnected, {in, wi, bi}, {out}, a);
    GLD_ASSERT_OK(t.Run(threads));
    std::vector<float> expected;
    for (int r = 0; r < rows; ++r)
      for (int u = 0; u < units; ++u) {
        double acc = b[static_cast<size_t>(u)];
        for (int k = 0; k < depth; ++k)
          acc += static_cast<double>(x[static_cast<size_t>(r * depth + k)]) * w[static_cast<size_t>(u * depth + k)];
        expected.push_back(std::min(std::max(static_cast<float>(acc), 0.f), 6.f));
      }
    ExpectNear(t.Get(out), expected, 1e-4f);
  }
}

TEST(FullyConnected, ShapeErrors) {
  OpTest t;
  const int in = t.Input<float>({2, 5}, std::vector<float>(10));
  const int w = t.Const<float>({2, 3}, std::vector<float>(6));
  const int out = t.Output();
  t.Node(OpType::kFullyConnected, {in, w}, {out}, FullyConnectedAttributes{});
  Status s = InferShapes(t.graph);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 0 (FULLY_CONNECTED)"), std::string::npos) << s.message();
}

// ---- BATCH_MATMUL --------------------------------------------------------------

std::vector<float> NaiveMatMul(const std::vector<float>& a, const std::vector<float>& b, int m, int k, int n,
                               bool adj_x, bool adj_y) {
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double acc = 0;
      for (int l = 0; l < k; ++l) {
        const float av = adj_x ? a[static_cast<size_t>(l * m + i)] : a[static_cast<size_t>(i * k + l)];
        const float bv = adj_y ? b[static_cast<size_t>(j * k + l)] : b[static_cast<size_t>(l * n + j)];
        acc += static_cast<double>(av) * bv;
      }
      c[static_cast<size_t>(i * n + j)] = static_cast<float>(acc);
    }
  return c;
}

TEST(BatchMatMul, HandComputed2d) {
  auto r = RunFloatOp(OpType::kBatchMatMul, {{{2, 3}, Iota(6)}, {{3, 2}, {1, 0, 0, 1, 1, 1}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{2, 2}));
  ExpectNear(r.values, {4, 5, 10, 11});
}

TEST(BatchMatMul, AdjointsAndBroadcastBatch) {
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      const int m = 5, k = 7, n = 6;
      // x batch [2, 1], y batch [3]: output batch [2, 3]
      const auto x = RandomFloats(static_cast<size_t>(2 * m * k), 31);
      const auto y = RandomFloats(static_cast<size_t>(3 * k * n), 32);
      const Shape xs = adj_x ? Shape{2, 1, k, m} : Shape{2, 1, m, k};
      const Shape ys = adj_y ? Shape{3, n, k} : Shape{3, k, n};
      BatchMatMulAttributes a;
      a.adj_x = adj_x;
      a.adj_y = adj_y;
      auto r = RunFloatOp(OpType::kBatchMatMul, {{xs, x}, {ys, y}}, a);
      GLD_ASSERT_OK(r.status);
      ASSERT_EQ(r.shape, (Shape{2, 3, m, n}));
      std::vector<float> expected;
      for (int bx = 0; bx < 2; ++bx)
        for (int by = 0; by < 3; ++by) {
          const std::vector<float> xa(x.begin() + bx * m * k, x.begin() + (bx + 1) * m * k);
          const std::vector<float> yb(y.begin() + by * k * n, y.begin() + (by + 1) * k * n);
          const auto c = NaiveMatMul(xa, yb, m, k, n, adj_x, adj_y);
          expected.insert(expected.end(), c.begin(), c.end());
        }
      ExpectNear(r.values, expected, 1e-5f);
    }
  }
  auto r = RunFloatOp(OpType::kBatchMatMul, {{{2, 3}, Iota(6)}, {{2, 2}, Iota(4)}});
  EXPECT_FALSE(r.status.ok());
}

}  // namespace
}  // namespace gld::testing
