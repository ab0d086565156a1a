// Binary (broadcasting), unary, activation and select/fill ops.
#include <cmath>
#include <cstring>
#include <limits>

#include "op_test_util.h"

namespace gld::testing {
namespace {

template <typename T, typename O = T>
std::vector<O> Binary(OpType op, const Shape& sa, const std::vector<T>& a, const Shape& sb, const std::vector<T>& b,
                      Shape* out_shape = nullptr, Activation act = Activation::kNone, Status* status = nullptr) {
  OpTest t;
  const int ia = t.Input<T>(sa, a);
  const int ib = t.Input<T>(sb, b);
  const int out = t.Output();
  BinaryAttributes attrs;
  attrs.activation = act;
  t.Node(op, {ia, ib}, {out}, attrs);
  Status s = t.Run(2);
  if (status) *status = s;
  if (!s.ok()) {
    if (!status) ADD_FAILURE() << s.ToString();
    return {};
  }
  EXPECT_EQ(t.TypeOfTensor(out), TypeOf<O>());
  if (out_shape) *out_shape = t.ShapeOf(out);
  return t.Get<O>(out);
}

TEST(Add, Rank5Broadcast) {
  Shape s;
  auto v = Binary<float>(OpType::kAdd, {2, 1, 1, 1, 3}, {1, 2, 3, 4, 5, 6}, {1, 2, 1, 1, 1}, {10, 20}, &s);
  EXPECT_EQ(s, (Shape{2, 2, 1, 1, 3}));
  ExpectNear(v, {11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26});
}

// Element i of `out_shape` read from a tensor of shape `s` broadcast to it.
size_t BroadcastSource(const Shape& s, const Shape& out_shape, int64_t i) {
  int64_t src = 0, stride = 1;
  for (size_t d = out_shape.size(); d-- > 0;) {
    const int64_t c = i % out_shape[d];
    i /= out_shape[d];
    const size_t sd = d + s.size() - out_shape.size();
    if (d + s.size() >= out_shape.size()) {
      if (s[sd] != 1) src += c * stride;
      stride *= s[sd];
    }
  }
  return static_cast<size_t>(src);
}

// Plans of three or more coalesced dims with short runs (a group norm's
// x - mean), split across two threads mid-way, and a SELECT_V2 broadcasting
// all three operands: every element against the index arithmetic here.
TEST(Sub, ShortRunsOverManyOuterDims) {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3, 4, 5, 2}, {1, 3, 1, 5, 1}}, {{3, 1, 4, 1, 6}, {1, 5, 1, 7, 1}}, {{1, 8, 8, 4, 2}, {1, 1, 1, 4, 1}},
      {{4, 1, 3}, {2, 1}}};
  for (const auto& [sa, sb] : cases) {
    SCOPED_TRACE(ShapeToString(sa) + " - " + ShapeToString(sb));
    const std::vector<float> a = RandomFloats(static_cast<size_t>(NumElements(sa)), 1);
    const std::vector<float> b = RandomFloats(static_cast<size_t>(NumElements(sb)), 2);
    Shape out;
    const std::vector<float> got = Binary<float>(OpType::kSub, sa, a, sb, b, &out);
    ASSERT_EQ(static_cast<int64_t>(got.size()), NumElements(out));
    for (int64_t i = 0; i < NumElements(out); ++i) {
      ASSERT_EQ(got[static_cast<size_t>(i)], a[BroadcastSource(sa, out, i)] - b[BroadcastSource(sb, out, i)])
          << "at " << i;
    }
  }
  OpTest t;
  const Shape sc{2, 1, 3, 1}, sx{1, 4, 1, 2}, sy{2, 4, 1, 1};
  std::vector<bool> cond;
  for (int i = 0; i < 6; ++i) cond.push_back(i % 3 != 1);
  const std::vector<float> x = RandomFloats(8, 3), y = RandomFloats(8, 4);
  const int c = t.Input<bool>(sc, cond);
  const int xi = t.Input<float>(sx, x);
  const int yi = t.Input<float>(sy, y);
  const int o = t.Output();
  t.Node(OpType::kSelectV2, {c, xi, yi}, {o});
  GLD_ASSERT_OK(t.Run());
  const Shape out{2, 4, 3, 2};
  ASSERT_EQ(t.ShapeOf(o), out);
  const std::vector<float> got = t.Get(o);
  for (int64_t i = 0; i < NumElements(out); ++i) {
    const float want = cond[BroadcastSource(sc, out, i)] ? x[BroadcastSource(sx, out, i)] : y[BroadcastSource(sy, out, i)];
    ASSERT_EQ(got[static_cast<size_t>(i)], want) << "at " << i;
  }
}

TEST(Add, ChannelBroadcastWithRelu6) {
  auto v = Binary<float>(OpType::kAdd, {2, 3}, {-5, 1, 7, 2, 3, 4}, {3}, {1, 2, 3}, nullptr, Activation::kRelu6);
  ExpectNear(v, {0, 3, 6, 3, 5, 6});
}

TEST(Add, Int32WrapsAndBroadcastsBothSides) {
  Shape s;
  auto v = Binary<int32_t>(OpType::kAdd, {2, 1}, {std::numeric_limits<int32_t>::max(), 1}, {1, 2}, {1, 2}, &s);
  EXPECT_EQ(s, (Shape{2, 2}));
  EXPECT_EQ(v, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min() + 1, 2, 3}));
}

TEST(Add, LargeSameShapeSplitsAcrossThreads) {
  const size_t n = 100000;
  auto a = RandomFloats(n, 1), b = RandomFloats(n, 2);
  auto v = Binary<float>(OpType::kAdd, {1, static_cast<int32_t>(n)}, a, {1, static_cast<int32_t>(n)}, b);
  ASSERT_EQ(v.size(), n);
  for (size_t i = 0; i < n; i += 997) EXPECT_FLOAT_EQ(v[i], a[i] + b[i]);
}

TEST(Add, ShortRowsAgainstAWholeTensorEitherSide) {
  // A per-channel row against a tensor whose rows are shorter than
  // kShortRow: the kernel repeats the row into long runs. Row lengths 1 to
  // 63, row counts that leave a partial run, the row on either side.
  for (int32_t c : {1, 3, 5, 16, 63}) {
    for (int32_t rows : {1, 7, 333}) {
      const Shape whole{1, rows, c};
      auto x = RandomFloats(static_cast<size_t>(rows * c), 3);
      auto row = RandomFloats(static_cast<size_t>(c), 4);
      auto left = Binary<float>(OpType::kSub, whole, x, {c}, row);
      auto right = Binary<float>(OpType::kSub, {c}, row, whole, x);
      ASSERT_EQ(left.size(), x.size());
      ASSERT_EQ(right.size(), x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(left[i], x[i] - row[i % static_cast<size_t>(c)]) << "c " << c << " rows " << rows << " i " << i;
        ASSERT_EQ(right[i], row[i % static_cast<size_t>(c)] - x[i]) << "c " << c << " rows " << rows << " i " << i;
      }
    }
  }
  // bool rows (no std::vector<bool> storage inside).
  std::vector<bool> a(3 * 100), b = {true, false, true};
  for (size_t i = 0; i < a.size(); ++i) a[i] = (i / 3) % 2 == 0;
  auto v = Binary<bool>(OpType::kLogicalAnd, {100, 3}, a, {3}, b);
  ASSERT_EQ(v.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(v[i], a[i] && b[i % 3]) << i;
}

// Operands laid out as the output but for leading 1s (a recurrent cell's
// [128] bias on a [1, 128] row, either side) take the same-shape vector
// pass: the values and a fused TANH as the scalar formulas give them.
TEST(Add, LeadingOnesTakeTheSameShapePath) {
  const auto a = RandomFloats(128, 3), b = RandomFloats(128, 4);
  for (bool swap : {false, true}) {
    Shape s;
    const Shape sa = swap ? Shape{128} : Shape{1, 128}, sb = swap ? Shape{1, 1, 128} : Shape{128};
    auto v = Binary<float>(OpType::kAdd, sa, a, sb, b, &s, Activation::kTanh);
    EXPECT_EQ(s, swap ? (Shape{1, 1, 128}) : (Shape{1, 128}));
    ASSERT_EQ(v.size(), 128u);
    for (size_t i = 0; i < 128; ++i) EXPECT_NEAR(v[i], std::tanh(a[i] + b[i]), 3e-7) << i;
  }
  // Same element count, different layout: a real broadcast.
  Shape s;
  auto v = Binary<float>(OpType::kMul, {2, 1}, {2, 3}, {1, 2}, {5, 7}, &s);
  EXPECT_EQ(s, (Shape{2, 2}));
  ExpectNear(v, {10, 14, 15, 21});
}

TEST(Add, IncompatibleShapesNameTheNode) {
  OpTest t;
  const int a = t.Input<float>({2, 3}, std::vector<float>(6));
  const int b = t.Input<float>({4}, std::vector<float>(4));
  const int out = t.Output();
  t.Node(OpType::kAdd, {a, b}, {out}, BinaryAttributes{});
  Status s = InferShapes(t.graph);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("node 0 (ADD)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[2, 3]"), std::string::npos) << s.message();
}

TEST(Mul, ScalarWithReluN1To1) {
  auto v = Binary<float>(OpType::kMul, {4}, {0.25f, -1, 2, 0.5f}, {}, {2}, nullptr, Activation::kReluN1To1);
  ExpectNear(v, {0.5f, -1, 1, 1});
}

TEST(Mul, Int64) {
  auto v = Binary<int64_t>(OpType::kMul, {3}, {3, -4, 5}, {1}, {int64_t{1} << 33});
  EXPECT_EQ(v, (std::vector<int64_t>{3 * (int64_t{1} << 33), -4 * (int64_t{1} << 33), 5 * (int64_t{1} << 33)}));
}

TEST(Sub, OuterBroadcast) {
  auto v = Binary<float>(OpType::kSub, {2, 1}, {10, 20}, {1, 3}, {1, 2, 3});
  ExpectNear(v, {9, 8, 7, 19, 18, 17});
}

TEST(Div, FloatAndTruncatingInt) {
  ExpectNear(Binary<float>(OpType::kDiv, {2}, {1, -6}, {1}, {4}), {0.25f, -1.5f});
  EXPECT_EQ(Binary<int32_t>(OpType::kDiv, {4}, {7, -7, 7, -7}, {4}, {2, 2, -2, -2}),
            (std::vector<int32_t>{3, -3, -3, 3}));
  Status s;
  Binary<int32_t>(OpType::kDiv, {2}, {1, 2}, {2}, {1, 0}, nullptr, Activation::kNone, &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("division by zero"), std::string::npos) << s.message();
}

TEST(FloorDivMod, IntAndFloatSigns) {
  EXPECT_EQ(Binary<int32_t>(OpType::kFloorDiv, {4}, {7, -7, 7, -7}, {4}, {2, 2, -2, -2}),
            (std::vector<int32_t>{3, -4, -4, 3}));
  EXPECT_EQ(Binary<int32_t>(OpType::kFloorMod, {4}, {7, -7, 7, -7}, {4}, {2, 2, -2, -2}),
            (std::vector<int32_t>{1, 1, -1, -1}));
  ExpectNear(Binary<float>(OpType::kFloorDiv, {2}, {5.5f, -5.5f}, {}, {2}), {2, -3});
  ExpectNear(Binary<float>(OpType::kFloorMod, {3}, {5.5f, -5.5f, 5.5f}, {3}, {2, 2, -2}), {1.5f, 0.5f, -0.5f});
}

TEST(MaximumMinimum, Broadcast) {
  ExpectNear(Binary<float>(OpType::kMaximum, {2, 2}, {1, 5, 3, -2}, {2}, {2, 2}), {2, 5, 3, 2});
  ExpectNear(Binary<float>(OpType::kMinimum, {2, 2}, {1, 5, 3, -2}, {2}, {2, 2}), {1, 2, 2, -2});
  EXPECT_EQ(Binary<int32_t>(OpType::kMinimum, {1, 3}, {4, -9, 0}, {2, 1}, {1, -1}),
            (std::vector<int32_t>{1, -9, 0, -1, -9, -1}));
}

TEST(Pow, FloatAndInt) {
  ExpectNear(Binary<float>(OpType::kPow, {3}, {2, 3, 0.5f}, {1}, {2}), {4, 9, 0.25f});
  ExpectNear(Binary<float>(OpType::kPow, {2}, {4, 8}, {2}, {0.5f, -1}), {2, 0.125f});
  EXPECT_EQ(Binary<int32_t>(OpType::kPow, {3}, {2, 3, -2}, {}, {3}), (std::vector<int32_t>{8, 27, -8}));
  Status s;
  Binary<int32_t>(OpType::kPow, {1}, {2}, {1}, {-1}, nullptr, Activation::kNone, &s);
  EXPECT_FALSE(s.ok());
}

TEST(SquaredDifference, Broadcast) {
  ExpectNear(Binary<float>(OpType::kSquaredDifference, {2}, {1, 5}, {1}, {4}), {9, 1});
  EXPECT_EQ(Binary<int32_t>(OpType::kSquaredDifference, {2, 1}, {1, -1}, {2}, {3, 0}),
            (std::vector<int32_t>{4, 1, 16, 1}));
}

TEST(Comparisons, FloatScalarAndIntBroadcast) {
  const std::vector<float> a{1, 2, 3};
  EXPECT_EQ((Binary<float, bool>(OpType::kEqual, {3}, a, {}, {2})), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((Binary<float, bool>(OpType::kNotEqual, {3}, a, {}, {2})), (std::vector<bool>{true, false, true}));
  EXPECT_EQ((Binary<float, bool>(OpType::kGreater, {3}, a, {}, {2})), (std::vector<bool>{false, false, true}));
  EXPECT_EQ((Binary<float, bool>(OpType::kGreaterEqual, {3}, a, {}, {2})), (std::vector<bool>{false, true, true}));
  EXPECT_EQ((Binary<float, bool>(OpType::kLess, {3}, a, {}, {2})), (std::vector<bool>{true, false, false}));
  EXPECT_EQ((Binary<float, bool>(OpType::kLessEqual, {3}, a, {}, {2})), (std::vector<bool>{true, true, false}));
  // [2,1] vs [1,2]: (1,1) (1,5) (4,1) (4,5)
  EXPECT_EQ((Binary<int32_t, bool>(OpType::kLess, {2, 1}, {1, 4}, {1, 2}, {1, 5})),
            (std::vector<bool>{false, true, false, true}));
  EXPECT_EQ((Binary<int64_t, bool>(OpType::kEqual, {2, 1}, {1, 4}, {1, 2}, {1, 5})),
            (std::vector<bool>{true, false, false, false}));
}

TEST(Logical, AndOrWithBroadcast) {
  EXPECT_EQ((Binary<bool>(OpType::kLogicalAnd, {4}, {true, true, false, false}, {4}, {true, false, true, false})),
            (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ((Binary<bool>(OpType::kLogicalOr, {4}, {true, true, false, false}, {4}, {true, false, true, false})),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ((Binary<bool>(OpType::kLogicalOr, {2, 2}, {false, false, true, false}, {2}, {false, true})),
            (std::vector<bool>{false, true, true, true}));
}

// ---- unary -----------------------------------------------------------------

template <typename T>
std::vector<T> Unary(OpType op, const Shape& s, const std::vector<T>& v, Attributes attrs = {}) {
  OpTest t;
  const int in = t.Input<T>(s, v);
  const int out = t.Output();
  t.Node(op, {in}, {out}, std::move(attrs));
  Status st = t.Run();
  if (!st.ok()) {
    ADD_FAILURE() << st.ToString();
    return {};
  }
  EXPECT_EQ(t.ShapeOf(out), s);
  return t.Get<T>(out);
}

TEST(Unary, AbsNegSignSquare) {
  ExpectNear(Unary<float>(OpType::kAbs, {3}, {-1.5f, 0, 2}), {1.5f, 0, 2});
  EXPECT_EQ(Unary<int32_t>(OpType::kAbs, {2}, {std::numeric_limits<int32_t>::min(), -3}),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 3}));
  ExpectNear(Unary<float>(OpType::kNeg, {2, 1}, {1, -2}), {-1, 2});
  EXPECT_EQ(Unary<int64_t>(OpType::kNeg, {2}, {5, -7}), (std::vector<int64_t>{-5, 7}));
  ExpectNear(Unary<float>(OpType::kSign, {3}, {-2, 0, 3.5f}), {-1, 0, 1});
  EXPECT_EQ(Unary<int32_t>(OpType::kSign, {3}, {-9, 0, 4}), (std::vector<int32_t>{-1, 0, 1}));
  ExpectNear(Unary<float>(OpType::kSquare, {2}, {-3, 0.5f}), {9, 0.25f});
  EXPECT_EQ(Unary<int32_t>(OpType::kSquare, {1}, {-4}), (std::vector<int32_t>{16}));
}

TEST(Unary, Transcendentals) {
  const float e = std::exp(1.f);
  const float pi = 3.14159265358979f;
  ExpectNear(Unary<float>(OpType::kSqrt, {2}, {4, 2.25f}), {2, 1.5f});
  ExpectNear(Unary<float>(OpType::kRsqrt, {2}, {4, 0.25f}), {0.5f, 2});
  ExpectNear(Unary<float>(OpType::kExp, {2}, {0, 1}), {1, e});
  ExpectNear(Unary<float>(OpType::kLog, {2}, {1, e * e}), {0, 2});
  ExpectNear(Unary<float>(OpType::kSin, {2}, {0, pi / 2}), {0, 1});
  ExpectNear(Unary<float>(OpType::kCos, {2}, {0, pi}), {1, -1});
  ExpectNear(Unary<float>(OpType::kFloor, {3}, {-1.5f, 2.7f, 3}), {-2, 2, 3});
}

TEST(Unary, LogicalNotAndZerosLike) {
  EXPECT_EQ(Unary<bool>(OpType::kLogicalNot, {3}, {true, false, true}), (std::vector<bool>{false, true, false}));
  ExpectNear(Unary<float>(OpType::kZerosLike, {2, 3}, {1, 2, 3, 4, 5, 6}), std::vector<float>(6, 0.f));
  EXPECT_EQ(Unary<int32_t>(OpType::kZerosLike, {1}, {9}), (std::vector<int32_t>{0}));
}

TEST(Cast, Conversions) {
  {
    OpTest t;
    const int in = t.Input<float>({4}, {1.9f, -1.9f, 3e10f, std::nanf("")});
    const int out = t.Output(DataType::kInt32);
    t.Node(OpType::kCast, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{1, -1, std::numeric_limits<int32_t>::max(), 0}));
  }
  {
    OpTest t;
    const int in = t.Input<float>({2}, {0.f, -2.5f});
    const int out = t.Output(DataType::kBool);
    t.Node(OpType::kCast, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.Get<bool>(out), (std::vector<bool>{false, true}));
  }
  {
    OpTest t;
    const int in = t.Input<bool>({2}, {true, false});
    const int out = t.Output(DataType::kFloat32);
    t.Node(OpType::kCast, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    ExpectNear(t.Get<float>(out), {1, 0});
  }
  {
    OpTest t;
    const int in = t.Input<int64_t>({2}, {-3, 40});
    const int out = t.Output(DataType::kInt32);
    t.Node(OpType::kCast, {in}, {out});
    GLD_ASSERT_OK(t.Run());
    EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{-3, 40}));
  }
}

TEST(AddN, ThreeInputs) {
  OpTest t;
  const int a = t.Input<float>({2}, {1, 2});
  const int b = t.Input<float>({2}, {10, 20});
  const int c = t.Input<float>({2}, {100, 200});
  const int out = t.Output();
  t.Node(OpType::kAddN, {a, b, c}, {out});
  GLD_ASSERT_OK(t.Run());
  ExpectNear(t.Get(out), {111, 222});
  OpTest u;
  const int x = u.Input<float>({2}, {1, 2});
  const int y = u.Input<float>({3}, {1, 2, 3});
  const int o = u.Output();
  u.Node(OpType::kAddN, {x, y}, {o});
  EXPECT_FALSE(InferShapes(u.graph).ok());
}

TEST(Select, RankOneConditionPicksRows) {
  OpTest t;
  const int c = t.Input<bool>({2}, {true, false});
  const int x = t.Input<float>({2, 2}, {1, 2, 3, 4});
  const int y = t.Input<float>({2, 2}, {5, 6, 7, 8});
  const int out = t.Output();
  t.Node(OpType::kSelect, {c, x, y}, {out});
  GLD_ASSERT_OK(t.Run());
  ExpectNear(t.Get(out), {1, 2, 7, 8});
}

TEST(Select, SameShapeInt32) {
  OpTest t;
  const int c = t.Input<bool>({3}, {false, true, false});
  const int x = t.Input<int32_t>({3}, {1, 2, 3});
  const int y = t.Input<int32_t>({3}, {-1, -2, -3});
  const int out = t.Output(DataType::kInt32);
  t.Node(OpType::kSelect, {c, x, y}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{-1, 2, -3}));
}

TEST(SelectV2, BroadcastsAllThree) {
  OpTest t;
  const int c = t.Input<bool>({2, 1}, {true, false});
  const int x = t.Input<float>({1, 3}, {1, 2, 3});
  const int y = t.Input<float>({}, {0.5f});
  const int out = t.Output();
  t.Node(OpType::kSelectV2, {c, x, y}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 3}));
  ExpectNear(t.Get(out), {1, 2, 3, 0.5f, 0.5f, 0.5f});
}

TEST(SelectV2, ScalarConditionInt32) {
  OpTest t;
  const int c = t.Input<bool>({}, {false});
  const int x = t.Input<int32_t>({2}, {1, 2});
  const int y = t.Input<int32_t>({2, 1}, {7, 8});
  const int out = t.Output(DataType::kInt32);
  t.Node(OpType::kSelectV2, {c, x, y}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  EXPECT_EQ(t.Get<int32_t>(out), (std::vector<int32_t>{7, 7, 8, 8}));
}

// Every combination of a full or a one-value x and y against a full
// condition (the vector runs), for each element size; values move as bits.
template <typename T>
void ExpectSelectRuns(DataType type, const std::vector<T>& xs, const std::vector<T>& ys) {
  const Shape shape = {3, 37};
  const size_t n = 3 * 37;
  std::vector<bool> cond(n);
  for (size_t i = 0; i < n; ++i) cond[i] = (i * 7 + i / 5) % 3 == 0;
  for (bool x_full : {true, false}) {
    for (bool y_full : {true, false}) {
      OpTest t;
      const int c = t.Input<bool>(shape, std::vector<bool>(cond));
      const std::vector<T> xv(xs.begin(), xs.begin() + (x_full ? static_cast<long>(n) : 1));
      const std::vector<T> yv(ys.begin(), ys.begin() + (y_full ? static_cast<long>(n) : 1));
      const int x = t.Input<T>(x_full ? shape : Shape{}, xv, type);
      const int y = t.Input<T>(y_full ? shape : Shape{1, 1}, yv, type);
      const int out = t.Output(type);
      t.Node(OpType::kSelectV2, {c, x, y}, {out});
      GLD_ASSERT_OK(t.Run());
      const std::vector<T> got = t.Get<T>(out);
      ASSERT_EQ(got.size(), n);
      for (size_t i = 0; i < n; ++i) {
        const T want = cond[i] ? xv[x_full ? i : 0] : yv[y_full ? i : 0];
        ASSERT_EQ(std::memcmp(&got[i], &want, sizeof(T)), 0) << "x_full " << x_full << " y_full " << y_full << " at " << i;
      }
    }
  }
}

TEST(SelectV2, FullConditionEveryElementSize) {
  std::vector<float> xf = RandomFloats(111, 1), yf = RandomFloats(111, 2);
  xf[0] = std::numeric_limits<float>::quiet_NaN();
  yf[5] = -std::numeric_limits<float>::infinity();
  ExpectSelectRuns<float>(DataType::kFloat32, xf, yf);
  std::vector<int64_t> xl(111), yl(111);
  std::vector<int16_t> xs(111), ys(111);
  std::vector<int8_t> xb(111), yb(111);
  for (size_t i = 0; i < 111; ++i) {
    xl[i] = static_cast<int64_t>(i) * 1000003LL * 1000003LL;
    yl[i] = -static_cast<int64_t>(i) - 1;
    xs[i] = static_cast<int16_t>(i * 301);
    ys[i] = static_cast<int16_t>(-static_cast<int>(i));
    xb[i] = static_cast<int8_t>(i);
    yb[i] = static_cast<int8_t>(-static_cast<int>(i) - 1);
  }
  ExpectSelectRuns<int64_t>(DataType::kInt64, xl, yl);
  ExpectSelectRuns<int16_t>(DataType::kInt16, xs, ys);
  ExpectSelectRuns<int8_t>(DataType::kInt8, xb, yb);
}

TEST(Fill, FloatAndInt) {
  OpTest t;
  const int dims = t.Const<int32_t>({2}, {2, 2});
  const int v = t.Input<float>({}, {1.5f});
  const int out = t.Output();
  t.Node(OpType::kFill, {dims, v}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 2}));
  ExpectNear(t.Get(out), {1.5f, 1.5f, 1.5f, 1.5f});
  OpTest u;
  const int d2 = u.Const<int64_t>({3}, {1, 3, 1});
  const int v2 = u.Const<int32_t>({}, {-7});
  const int o2 = u.Output(DataType::kInt32);
  u.Node(OpType::kFill, {d2, v2}, {o2});
  GLD_ASSERT_OK(u.Run());
  EXPECT_EQ(u.ShapeOf(o2), (Shape{1, 3, 1}));
  EXPECT_EQ(u.Get<int32_t>(o2), (std::vector<int32_t>{-7, -7, -7}));
}

// ---- activations ------------------------------------------------------------

TEST(Activations, ReluFamily) {
  ExpectNear(Unary<float>(OpType::kRelu, {3}, {-1, 0, 2}), {0, 0, 2});
  ExpectNear(Unary<float>(OpType::kRelu6, {3}, {-1, 3, 7}), {0, 3, 6});
  ExpectNear(Unary<float>(OpType::kReluN1To1, {3}, {-2, 0.5f, 3}), {-1, 0.5f, 1});
  ExpectNear(Unary<float>(OpType::kRelu0To1, {3}, {-2, 0.5f, 3}), {0, 0.5f, 1});
}

TEST(Activations, LogisticTanhHardSwishElu) {
  const float ln2 = std::log(2.f), ln3 = std::log(3.f);
  ExpectNear(Unary<float>(OpType::kLogistic, {3}, {0, ln3, -ln3}), {0.5f, 0.75f, 0.25f});
  ExpectNear(Unary<float>(OpType::kTanh, {2}, {0, ln2}), {0, 0.6f});
  ExpectNear(Unary<float>(OpType::kHardSwish, {5}, {-4, -1, 1, 4, 0}), {0, -1.f / 3, 2.f / 3, 4, 0});
  ExpectNear(Unary<float>(OpType::kElu, {2}, {-ln2, 2}), {-0.5f, 2});
}

TEST(Activations, GeluExactAndApproximate) {
  const std::vector<float> x{-1, 0, 1, 2.5f};
  std::vector<float> exact, approx;
  for (float v : x) {
    exact.push_back(0.5f * v * (1 + std::erf(v / std::sqrt(2.f))));
    approx.push_back(0.5f * v * (1 + std::tanh(std::sqrt(2.f / 3.14159265f) * (v + 0.044715f * v * v * v))));
  }
  ExpectNear(Unary<float>(OpType::kGelu, {4}, x, GeluAttributes{false}), exact);
  ExpectNear(Unary<float>(OpType::kGelu, {4}, x, GeluAttributes{true}), approx);
}

TEST(Activations, LeakyRelu) {
  ExpectNear(Unary<float>(OpType::kLeakyRelu, {2}, {-2, 3}, LeakyReluAttributes{0.1f}), {-0.2f, 3});
  ExpectNear(Unary<float>(OpType::kLeakyRelu, {3}, {-1, 0, 1}, LeakyReluAttributes{2.f}), {-2, 0, 1});
}

TEST(Prelu, ChannelAlphaBroadcast) {
  auto r = RunFloatOp(OpType::kPrelu, {{{1, 1, 2, 3}, {-1, -2, -3, 1, 2, 3}}, {{3}, {0.1f, 0.2f, 0.3f}}});
  GLD_ASSERT_OK(r.status);
  EXPECT_EQ(r.shape, (Shape{1, 1, 2, 3}));
  ExpectNear(r.values, {-0.1f, -0.4f, -0.9f, 1, 2, 3});
}

TEST(Prelu, SpatialAlpha) {
  // alpha [1, 2, 1]: per row of a [1, 2, 2, 1] input (after broadcasting).
  auto r = RunFloatOp(OpType::kPrelu, {{{1, 2, 2, 1}, {-1, -1, -1, 4}}, {{2, 1, 1}, {0.5f, 3}}});
  GLD_ASSERT_OK(r.status);
  ExpectNear(r.values, {-0.5f, -0.5f, -3, 4});
}

}  // namespace
}  // namespace gld::testing
