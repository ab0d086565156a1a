// Elementwise ops on the GPU vs the CPU kernels: every op of the elementwise
// table with a GL kernel (graph/elementwise_ops.inc), unary ones over several
// shapes, binary ones with each broadcasting pattern; fused activations.
#include <gtest/gtest.h>

#include "gl/codegen/elementwise_table.h"
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

// Where an op is tested: the range it is defined on, else [lo, hi) = [-3, 3)
// for unary ops and [-2, 2) for both operands of binary ones.
struct Domain {
  float lo, hi;
  float rlo = -2, rhi = 2;  // binary ops' right operand
};
Domain DomainOf(OpType op, bool binary) {
  switch (op) {
    case OpType::kCos: case OpType::kSin: case OpType::kTanh: case OpType::kElu: case OpType::kGelu:
      return {-4, 4};
    case OpType::kFloor: case OpType::kHardSwish: return {-5, 5};
    case OpType::kLog: return {0.05f, 10};
    case OpType::kRsqrt: return {0.1f, 10};
    case OpType::kSqrt: return {0, 10};
    case OpType::kLogistic: return {-8, 8};
    case OpType::kRelu6: return {-3, 9};
    case OpType::kRelu0To1: return {-2, 2};
    case OpType::kDiv: return {-2, 2, 0.5f, 2};
    case OpType::kFloorDiv: case OpType::kFloorMod: return {-4, 4, 0.5f, 2};
    case OpType::kPow: return {0.1f, 3, -2, 2};
    case OpType::kPrelu: return {-2, 2, 0, 1};
    default: return binary ? Domain{-2, 2} : Domain{-3, 3};
  }
}

// Ops whose result jumps at integers (CEIL, ROUND): their inputs are eighths,
// exact in fp16, so that fp16 storage cannot move one across a step (ROUND
// meets its halves both ways).
// FLOOR_DIV and FLOOR_MOD too (both operands), whose quotient meets integers.
bool TakesExactInputs(OpType op) {
  return op == OpType::kCeil || op == OpType::kRound || op == OpType::kFloorDiv || op == OpType::kFloorMod;
}

// Comparisons and logical ops: bool outputs (LogicalOpsTest below).
bool GivesBool(OpType op) {
  switch (op) {
    case OpType::kLess: case OpType::kLessEqual: case OpType::kGreater: case OpType::kGreaterEqual:
    case OpType::kEqual: case OpType::kNotEqual: case OpType::kLogicalAnd: case OpType::kLogicalOr:
    case OpType::kLogicalNot:
      return true;
    default: return false;
  }
}

// The table's ops with a GL kernel and a float output, once each.
std::vector<OpType> GlElementwiseOps(bool binary) {
  std::vector<OpType> ops;
  for (const gl::ElementwiseGlRow& r : gl::ElementwiseGlRows()) {
    if (GivesBool(r.op)) continue;
    if (r.binary == binary && std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  }
  return ops;
}

std::vector<UnaryCase> UnaryCases() {
  std::vector<UnaryCase> cases;
  for (OpType op : GlElementwiseOps(false)) cases.push_back({op, DomainOf(op, false).lo, DomainOf(op, false).hi});
  return cases;
}

// Multiples of 1/8 in [lo, hi).
std::vector<float> Eighths(const Shape& shape, uint32_t seed, float lo, float hi) {
  const std::vector<int> eighths = RandomInts<int>(static_cast<size_t>(NumElements(shape)), static_cast<int>(lo * 8),
                                                   static_cast<int>(hi * 8) - 1, seed);
  std::vector<float> v(eighths.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(eighths[i]) / 8.0f;
  return v;
}

class UnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(UnaryTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  const UnaryCase c = GetParam();
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 10;
    for (const Shape& shape : UnaryShapes()) {
      GlOpTest t(seed++);
      int x = TakesExactInputs(c.op) ? t.InputValues(shape, Eighths(shape, seed, c.lo, c.hi)) : t.Input(shape, c.lo, c.hi);
      Attributes attrs;
      if (c.op == OpType::kLeakyRelu) attrs = LeakyReluAttributes{0.15f};
      t.Op(c.op, {x}, attrs);
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(c.op)) + " " + ShapeToString(shape));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryTest, ::testing::ValuesIn(UnaryCases()),
                         [](const ::testing::TestParamInfo<UnaryCase>& info) {
                           return std::string(OpTypeName(info.param.op));
                         });

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
      int a = 0, b = 0;
      if (TakesExactInputs(c.op)) {
        const std::vector<float> av = Eighths(s.a, seed, c.lo, c.hi), bv = Eighths(s.b, seed + 1000, c.rlo, c.rhi);
        a = s.a_const ? t.ConstValues(s.a, av) : t.InputValues(s.a, av);
        b = s.b_const ? t.ConstValues(s.b, bv) : t.InputValues(s.b, bv);
      } else {
        a = s.a_const ? t.Const(s.a, c.lo, c.hi) : t.Input(s.a, c.lo, c.hi);
        b = s.b_const ? t.Const(s.b, c.rlo, c.rhi) : t.Input(s.b, c.rlo, c.rhi);
      }
      Attributes attrs = BinaryAttributes{};
      t.Op(c.op, {a, b}, attrs);
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(c.op)) + " " + ShapeToString(s.a) + " x " +
                                         ShapeToString(s.b));
    }
  }
}

std::vector<BinaryCase> BinaryCases() {
  std::vector<BinaryCase> cases;
  for (OpType op : GlElementwiseOps(true)) {
    const Domain d = DomainOf(op, true);
    cases.push_back({op, d.lo, d.hi, d.rlo, d.rhi});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Ops, BinaryTest, ::testing::ValuesIn(BinaryCases()),
                         [](const ::testing::TestParamInfo<BinaryCase>& info) {
                           return std::string(OpTypeName(info.param.op));
                         });

// Comparisons of eighths (exact in fp16, many ties) and logical ops of bool
// tensors, broadcast; bool outputs must equal the CPU's exactly.
TEST(ElementwiseTest, ComparisonsAndLogicalOpsGiveTheCpusBools) {
  GLD_REQUIRE_GL(env);
  std::vector<OpType> ops;
  for (const gl::ElementwiseGlRow& r : gl::ElementwiseGlRows()) {
    if (GivesBool(r.op)) ops.push_back(r.op);
  }
  ASSERT_EQ(ops.size(), 9u);
  auto bools = [](const Shape& shape, uint32_t seed) {
    std::vector<uint8_t> v = RandomBytes(static_cast<size_t>(NumElements(shape)), seed);
    for (uint8_t& b : v) b &= 1u;
    return v;
  };
  for (Precision p : BothPrecisions()) {
    for (OpType op : ops) {
      const bool logical = op == OpType::kLogicalAnd || op == OpType::kLogicalOr || op == OpType::kLogicalNot;
      for (const BinaryShapes& s : {BinaryShapes{{1, 3, 4, 6}, {1, 3, 4, 6}, false},
                                    BinaryShapes{{2, 3, 5}, {3, 1}, false}}) {
        GlOpTest t(31);
        int a = logical ? t.InputBytes(s.a, DataType::kBool, bools(s.a, 1))
                        : t.InputValues(s.a, Eighths(s.a, 1, -1, 1));
        std::vector<int> ins = {a};
        if (op != OpType::kLogicalNot) {
          ins.push_back(logical ? t.InputBytes(s.b, DataType::kBool, bools(s.b, 2))
                                : t.InputValues(s.b, Eighths(s.b, 2, -1, 1)));
        }
        t.Op(op, ins);
        t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(op)) + " " + ShapeToString(s.a));
      }
    }
  }
}

// SELECT_V2 with a comparison's condition, all three operands broadcast.
TEST(ElementwiseTest, SelectV2OfAComparison) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(41);
    int a = t.Input({2, 1, 5});
    int zero = t.ConstValues({}, {0.0f});
    int cond = t.Tensor();
    t.Node(OpType::kGreater, {a, zero}, {cond});
    int x = t.Input({2, 3, 5});
    int y = t.Input({3, 1});
    t.Op(OpType::kSelectV2, {cond, x, y});
    t.ExpectGpuMatchesCpu(*env, p, "SELECT_V2(GREATER) broadcast");
  }
}

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
