// Elementwise ops on the GPU vs the CPU kernels: every unary op, every binary
// op with each broadcasting pattern, fused activations.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

// Channel counts 1, 3, 4, 5 and >= 17, batch > 1 and lower ranks included.
const std::vector<Shape>& UnaryShapes() {
  static const std::vector<Shape> s = {{1, 5, 7, 1}, {1, 3, 4, 3}, {2, 3, 5, 4},
                                       {1, 4, 3, 5}, {1, 2, 3, 17}, {3, 20}, {2, 3, 9}, {6}};
  return s;
}

struct UnaryCase {
  OpType op;
  float lo, hi;  // input range where the op is defined
};

class UnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  const UnaryCase c = GetParam();
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 10;
    for (const Shape& shape : UnaryShapes()) {
      GlOpTest t(seed++);
      int x = t.Input(shape, c.lo, c.hi);
      Attributes attrs;
      if (c.op == OpType::kLeakyRelu) attrs = LeakyReluAttributes{0.15f};
      t.Op(c.op, {x}, attrs);
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(c.op)) + " " + ShapeToString(shape));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, UnaryTest,
    ::testing::Values(UnaryCase{OpType::kAbs, -3, 3}, UnaryCase{OpType::kCos, -4, 4},
                      UnaryCase{OpType::kExp, -3, 3}, UnaryCase{OpType::kFloor, -5, 5},
                      UnaryCase{OpType::kLog, 0.05f, 10}, UnaryCase{OpType::kNeg, -3, 3},
                      UnaryCase{OpType::kRsqrt, 0.1f, 10}, UnaryCase{OpType::kSin, -4, 4},
                      UnaryCase{OpType::kSqrt, 0, 10}, UnaryCase{OpType::kSquare, -3, 3},
                      UnaryCase{OpType::kTanh, -4, 4}, UnaryCase{OpType::kLogistic, -8, 8},
                      UnaryCase{OpType::kElu, -4, 4}, UnaryCase{OpType::kHardSwish, -5, 5},
                      UnaryCase{OpType::kGelu, -4, 4}, UnaryCase{OpType::kRelu, -3, 3},
                      UnaryCase{OpType::kRelu6, -3, 9}, UnaryCase{OpType::kReluN1To1, -3, 3},
                      UnaryCase{OpType::kRelu0To1, -2, 2}, UnaryCase{OpType::kLeakyRelu, -3, 3}),
    [](const ::testing::TestParamInfo<UnaryCase>& info) { return std::string(OpTypeName(info.param.op)); });

TEST(ElementwiseTest, GeluApproximate) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(3);
    int x = t.Input({1, 4, 5, 6}, -4, 4);
    t.Op(OpType::kGelu, {x}, GeluAttributes{true});
    t.ExpectGpuMatchesCpu(*env, p, "GELU approximate");
  }
}

// Binary ops: (lhs shape, rhs shape, rhs constant?).
struct BinaryShapes {
  Shape a, b;
  bool b_const;
  bool a_const = false;
};

const std::vector<BinaryShapes>& Broadcasts() {
  static const std::vector<BinaryShapes> s = {
      {{1, 4, 5, 3}, {1, 4, 5, 3}, false},   // same shape
      {{2, 3, 4, 5}, {2, 3, 4, 5}, false},   // same shape, batch 2, C 5
      {{1, 3, 4, 17}, {1, 3, 4, 17}, false}, // C >= 17
      {{1, 4, 5, 4}, {}, true},              // scalar constant
      {{1, 4, 5, 5}, {1}, true},             // 1-element constant
      {{1, 4, 5, 5}, {5}, true},             // per-channel vector
      {{1, 3, 3, 18}, {1, 1, 1, 18}, false}, // per-channel tensor
      {{1, 4, 1, 3}, {1, 1, 6, 3}, false},   // both sides broadcast
      {{1, 1, 1, 1}, {2, 3, 4, 5}, false},   // lhs is the small one
      {{5}, {1, 4, 5, 5}, false, true},      // constant lhs vector
      {{2, 6}, {6}, true},                   // rank 2 with a vector
      {{2, 3, 6}, {3, 1}, false},            // rank 3 with a rank-2 column
      {{4, 1, 7}, {1, 5, 1}, false},         // rank 3 outer product
      {{1, 5, 3, 1}, {1, 5, 3, 1}, false},   // same shape, C 1
      {{2, 3, 2, 4}, {2, 3, 2, 4}, false},   // same shape, C 4
      {{1, 3, 4, 1}, {}, true},              // scalar constant, C 1
      {{1, 2, 3, 17}, {}, true},             // scalar constant, C >= 17
      {{1, 4, 3, 1}, {1}, false},            // 1-element tensor, C 1
      {{1, 3, 4, 3}, {3}, true},             // per-channel vector, C 3
      {{1, 2, 3, 4}, {4}, false},            // per-channel vector input, C 4
      {{1, 2, 3, 20}, {20}, true},           // per-channel vector, C >= 17
  };
  return s;
}

struct BinaryCase {
  OpType op;
  float lo, hi;    // lhs range
  float rlo, rhi;  // rhs range
};

class BinaryTest : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryTest, MatchesCpuWithBroadcasting) {
  GLD_REQUIRE_GL(env);
  const BinaryCase c = GetParam();
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 100;
    for (const BinaryShapes& s : Broadcasts()) {
      GlOpTest t(seed++);
      int a = s.a_const ? t.Const(s.a, c.lo, c.hi) : t.Input(s.a, c.lo, c.hi);
      int b = s.b_const ? t.Const(s.b, c.rlo, c.rhi) : t.Input(s.b, c.rlo, c.rhi);
      Attributes attrs = BinaryAttributes{};
      t.Op(c.op, {a, b}, attrs);
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(c.op)) + " " + ShapeToString(s.a) + " x " +
                                         ShapeToString(s.b));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, BinaryTest,
    ::testing::Values(BinaryCase{OpType::kAdd, -2, 2, -2, 2}, BinaryCase{OpType::kSub, -2, 2, -2, 2},
                      BinaryCase{OpType::kMul, -2, 2, -2, 2}, BinaryCase{OpType::kDiv, -2, 2, 0.5f, 2},
                      BinaryCase{OpType::kMaximum, -2, 2, -2, 2}, BinaryCase{OpType::kMinimum, -2, 2, -2, 2},
                      BinaryCase{OpType::kPow, 0.1f, 3, -2, 2},
                      BinaryCase{OpType::kSquaredDifference, -2, 2, -2, 2},
                      BinaryCase{OpType::kPrelu, -2, 2, 0, 1}),
    [](const ::testing::TestParamInfo<BinaryCase>& info) { return std::string(OpTypeName(info.param.op)); });

TEST(ElementwiseTest, PowOfNegativeBaseWithIntegerExponents) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t;
    int a = t.Input({1, 2, 3, 4}, -3, 3);
    int b = t.ConstValues({4}, {2, 3, -1, 0});
    t.Op(OpType::kPow, {a, b}, BinaryAttributes{});
    t.ExpectGpuMatchesCpu(*env, p, "POW negative base");
  }
}

TEST(ElementwiseTest, FusedActivations) {
  GLD_REQUIRE_GL(env);
  const Activation acts[] = {Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1, Activation::kTanh,
                             Activation::kSigmoid};
  for (Precision p : BothPrecisions()) {
    for (Activation act : acts) {
      for (OpType op : {OpType::kAdd, OpType::kMul}) {
        GlOpTest t(7);
        int a = t.Input({1, 3, 5, 6}, -4, 4);
        int b = t.Input({1, 3, 5, 6}, -4, 4);
        t.Op(op, {a, b}, BinaryAttributes{act});
        t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(op)) + " + " + ActivationName(act));
      }
    }
  }
}

TEST(ElementwiseTest, SignBitActivationIsRefused) {
  GlOpTest t;
  int a = t.Input({1, 2, 2, 4});
  int b = t.Input({1, 2, 2, 4});
  t.Op(OpType::kAdd, {a, b}, BinaryAttributes{Activation::kSignBit});
  ASSERT_TRUE(InferShapes(t.graph).ok());
  std::string reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &reason));
  EXPECT_NE(reason.find("SIGN_BIT"), std::string::npos) << reason;
}

}  // namespace
}  // namespace gld::testing
