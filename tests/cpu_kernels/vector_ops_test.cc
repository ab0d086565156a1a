// The vectorized loops of cpu_kernels/micro/vector_ops/vector_ops.h against the scalar IEEE
// operations, element by element: every length up to 70 (vector body and
// tail), NaN of both signs, infinities, signed zeros and overflow, with and
// without the fused clamp; and through the ADD/SUB/MUL/DIV and PRELU kernels.
#include "cpu_kernels/micro/vector_ops/vector_ops.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"

#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace gld::testing {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// Values with every special among random ones.
std::vector<float> Specials(size_t n, uint32_t seed) {
  const std::vector<float> specials = {kNan, -kNan, kInf, -kInf, 0.f, -0.f, 3e38f, -3e38f, 1e-30f};
  std::vector<float> v = RandomFloats(n, seed, -8.f, 8.f);
  for (size_t i = 0; i < n; i += 3) v[i] = specials[(i / 3 + seed) % specials.size()];
  return v;
}

void ExpectSame(float got, float want, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where << ": got " << got;
  } else {
    EXPECT_EQ(got, want) << where;
  }
}

float ScalarOp(cpu::VectorOp op, float a, float b) {
  switch (op) {
    case cpu::VectorOp::kAdd: return a + b;
    case cpu::VectorOp::kSub: return a - b;
    case cpu::VectorOp::kMul: return a * b;
    case cpu::VectorOp::kDiv: return a / b;
  }
  return 0.f;
}

TEST(VectorOps, BinaryMatchesScalarWithSpecialsAndClamp) {
  for (cpu::VectorOp op : {cpu::VectorOp::kAdd, cpu::VectorOp::kSub, cpu::VectorOp::kMul, cpu::VectorOp::kDiv}) {
    for (size_t n = 0; n <= 70; ++n) {
      const std::vector<float> a = Specials(n, 1), b = Specials(n, 2);
      for (bool clamp : {false, true}) {
        std::vector<float> out(n + 1, 42.f);
        cpu::VectorBinary(op, a.data(), b.data(), out.data(), static_cast<int64_t>(n), clamp, 0.f, 6.f);
        for (size_t i = 0; i < n; ++i) {
          float want = ScalarOp(op, a[i], b[i]);
          if (clamp) want = std::min(std::max(want, 0.f), 6.f);  // std::max/min keep a NaN first operand
          ExpectSame(out[i], want, "op " + std::to_string(static_cast<int>(op)) + " n " + std::to_string(n) +
                                       " i " + std::to_string(i) + (clamp ? " clamped" : ""));
        }
        EXPECT_EQ(out[n], 42.f) << "wrote past the end, n " << n;
      }
    }
  }
}

TEST(VectorOps, PreluRowsMatchesScalarWithSpecials) {
  const std::vector<float> slopes = {0.f, -0.5f, 2.f, kNan, 1e10f, -1e10f, 0.25f, -0.f, 3.f, 1.f, -1.f};
  for (int64_t channels : {1, 3, 8, 11}) {
    const int64_t rows = 7;
    const std::vector<float> x = Specials(static_cast<size_t>(rows * channels), 3);
    std::vector<float> out(x.size() + 1, 42.f);
    cpu::PreluRows(x.data(), slopes.data(), channels, rows, out.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const float s = slopes[i % static_cast<size_t>(channels)];
      ExpectSame(out[i], x[i] >= 0.f ? x[i] : x[i] * s,
                 "channels " + std::to_string(channels) + " x " + std::to_string(x[i]) + " slope " + std::to_string(s));
    }
    EXPECT_EQ(out[x.size()], 42.f);
  }
}

// The kernels' same-shape path (2 threads, chunks of the pool) with a fused
// activation that clamps and one that does not.
TEST(VectorOps, SameShapeKernelsWithActivations) {
  const Shape shape = {1, 33, 40, 24};  // 31680 elements: two chunks and a tail
  const size_t n = static_cast<size_t>(NumElements(shape));
  const std::vector<float> a = Specials(n, 4), b = Specials(n, 5);
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv}) {
    for (Activation act : {Activation::kNone, Activation::kRelu6, Activation::kTanh}) {
      SCOPED_TRACE(std::string(OpTypeName(op)) + " " + ActivationName(act));
      OpTest t;
      const int ia = t.Input<float>(shape, a), ib = t.Input<float>(shape, b);
      const int out = t.Output();
      BinaryAttributes attrs;
      attrs.activation = act;
      t.Node(op, {ia, ib}, {out}, attrs);
      GLD_ASSERT_OK(t.RunPrepared(2));
      const std::vector<float> got = t.Get(out);
      ASSERT_EQ(got.size(), n);
      const cpu::VectorOp vop = op == OpType::kAdd   ? cpu::VectorOp::kAdd
                                : op == OpType::kSub ? cpu::VectorOp::kSub
                                : op == OpType::kMul ? cpu::VectorOp::kMul
                                                     : cpu::VectorOp::kDiv;
      for (size_t i = 0; i < n; ++i) {
        float want = ScalarOp(vop, a[i], b[i]);
        if (act == Activation::kRelu6) want = std::min(std::max(want, 0.f), 6.f);
        if (act == Activation::kTanh) cpu::TanhRow(&want, &want, 1);  // the CPU's tanh (vector_math_test.cc)
        ExpectSame(got[i], want, "at " + std::to_string(i));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(VectorOps, PreluKernelPerChannelSlopes) {
  const Shape shape = {1, 20, 30, 24};
  const size_t n = static_cast<size_t>(NumElements(shape));
  const std::vector<float> x = Specials(n, 6);
  const std::vector<float> alpha = RandomFloats(24, 7, -2.f, 2.f);
  for (const Shape& alpha_shape : {Shape{1, 1, 24}, Shape{24}}) {
    OpTest t;
    const int in = t.Input<float>(shape, x);
    const int out = t.Output();
    t.Node(OpType::kPrelu, {in, t.Const<float>(alpha_shape, alpha)}, {out});
    GLD_ASSERT_OK(t.RunPrepared(2));
    const std::vector<float> got = t.Get(out);
    ASSERT_EQ(got.size(), n);
    for (size_t i = 0; i < n; ++i) {
      ExpectSame(got[i], x[i] >= 0.f ? x[i] : x[i] * alpha[i % 24], "at " + std::to_string(i));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace gld::testing


namespace gld::testing {
namespace {

// (The recurrent ops' gate functions are vector_math.h's rows:
// vector_math_test.cc.)
TEST(VectorOps, MatVecTransposedAccumulate) {
  // g[j] += sum_k h[k] * wt[k][j], against the plain sum in double.
  const int64_t k = 7, n = 19;
  const std::vector<float> wt = RandomFloats(static_cast<size_t>(k * n), 1, -1.f, 1.f);
  const std::vector<float> h = RandomFloats(static_cast<size_t>(k), 2, -1.f, 1.f);
  std::vector<float> g = RandomFloats(static_cast<size_t>(n), 3, -1.f, 1.f);
  std::vector<double> want(g.begin(), g.end());
  for (int64_t kk = 0; kk < k; ++kk) {
    for (int64_t j = 0; j < n; ++j) want[static_cast<size_t>(j)] += double{h[kk]} * wt[static_cast<size_t>(kk * n + j)];
  }
  cpu::MatVecTransposedAccumulate(wt.data(), h.data(), k, n, g.data());
  for (int64_t j = 0; j < n; ++j) EXPECT_NEAR(g[static_cast<size_t>(j)], want[static_cast<size_t>(j)], 1e-5) << j;
}

}  // namespace
}  // namespace gld::testing
