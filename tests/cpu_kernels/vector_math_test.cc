// The vectorized rows of cpu_kernels/micro/vector_math/vector_math.h against double-precision
// formulas (std::exp, std::erf, std::tanh): every length up to 70 (vector
// body and tail), arguments across the whole range, NaN, infinities,
// overflow and underflow; layer norm rows of every width up to 70 against
// a double-precision mean / variance; and through the GELU, SOFTMAX and
// GLD_LAYER_NORM kernels.
#include "cpu_kernels/micro/vector_math/vector_math.h"

#include <cmath>
#include <limits>

#include "op_test_util.h"

namespace gld::testing {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// |got - want| within rel * |want| + abs, with NaN and infinities exact.
void ExpectClose(float got, double want, double rel, double abs, const std::string& where) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << where << ": got " << got;
  } else if (std::isinf(want)) {
    EXPECT_EQ(static_cast<double>(got), want) << where;
  } else {
    EXPECT_NEAR(got, want, rel * std::fabs(want) + abs) << where;
  }
}

std::vector<float> Arguments(size_t n, uint32_t seed, float lo, float hi) {
  const std::vector<float> specials = {kNan, kInf, -kInf, 0.f, -0.f, 88.5f, 89.f, -87.f, -100.f, -200.f, 1e-30f};
  std::vector<float> v = RandomFloats(n, seed, lo, hi);
  for (size_t i = 0; i < n; i += 4) v[i] = specials[(i / 4 + seed) % specials.size()];
  return v;
}

TEST(VectorMath, ExpWithinTwoUlpAndSpecials) {
  for (size_t n = 0; n <= 70; ++n) {
    const std::vector<float> x = Arguments(n, static_cast<uint32_t>(n), -90.f, 90.f);
    std::vector<float> y(n + 1, 42.f);
    cpu::ExpRow(x.data(), y.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const double want = std::exp(static_cast<double>(x[i]));
      if (want < 1.2e-38) {  // below the normal range: flushed or denormal, either is 0 to 1e-38
        EXPECT_LE(std::fabs(y[i]), 1.2e-38f) << "exp(" << x[i] << ")";
        continue;
      }
      ExpectClose(y[i], want > 3.4028234e38 ? kInf : want, 2.5e-7, 0.0, "exp(" + std::to_string(x[i]) + ")");
    }
    EXPECT_EQ(y[n], 42.f) << "wrote past the end, n " << n;
  }
}

// tanh within 3e-7 (relative near 0, where tanh(x) ~ x); sigmoid within a
// few ulp of its value (small results keep their digits), both with the
// specials (NaN stays NaN, +-inf saturate).
TEST(VectorMath, TanhAndSigmoidRowsWithSpecials) {
  for (size_t n = 0; n <= 70; ++n) {
    std::vector<float> x = Arguments(n, static_cast<uint32_t>(n + 200), -12.f, 12.f);
    for (size_t i = 1; i < n; i += 9) x[i] = x[i] * 1e-4f;  // near 0
    std::vector<float> y(n + 1, 42.f), s(n + 1, 42.f);
    cpu::TanhRow(x.data(), y.data(), static_cast<int64_t>(n));
    cpu::SigmoidRow(x.data(), s.data(), static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) {
      const double xi = x[i];
      ExpectClose(y[i], std::tanh(xi), 1e-6, 3e-7, "tanh(" + std::to_string(x[i]) + ")");
      const double sig = 1.0 / (1.0 + std::exp(-xi));
      if (sig < 1.2e-38) {  // exp(-x) overflows: 0, or a denormal
        EXPECT_LE(s[i], 1.2e-38f) << "sigmoid(" << x[i] << ")";
        continue;
      }
      ExpectClose(s[i], sig, 5e-7, 0.0, "sigmoid(" + std::to_string(x[i]) + ")");
    }
    EXPECT_EQ(y[n], 42.f) << "tanh wrote past the end, n " << n;
    EXPECT_EQ(s[n], 42.f) << "sigmoid wrote past the end, n " << n;
  }
}

// The TANH and LOGISTIC kernels on those rows, one tensor of a recurrent
// cell's size (LOGISTIC below XNNPACK's threshold) and a larger one, two
// threads.
TEST(VectorMath, TanhAndLogisticKernels) {
  for (const Shape& shape : {Shape{1, 32}, Shape{2, 37, 96}}) {
    const size_t n = static_cast<size_t>(NumElements(shape));
    const std::vector<float> x = Arguments(n, 13, -9.f, 9.f);
    for (OpType op : {OpType::kTanh, OpType::kLogistic}) {
      OpTest t;
      const int in = t.Input<float>(shape, x);
      const int out = t.Output();
      t.Node(op, {in}, {out});
      GLD_ASSERT_OK(t.RunPrepared(2));
      const std::vector<float> got = t.Get(out);
      ASSERT_EQ(got.size(), n);
      for (size_t i = 0; i < n; ++i) {
        const double xi = x[i];
        const double want = op == OpType::kTanh ? std::tanh(xi) : 1.0 / (1.0 + std::exp(-xi));
        // A sigmoid below the normal range may come out 0 or a denormal.
        ExpectClose(got[i], want, 1e-6, op == OpType::kTanh ? 3e-7 : 1.2e-38, "at " + std::to_string(i));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

double GeluExact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }
double GeluTanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
}

// Relative to the value, plus 3e-7 of |x| (the tail where 1 + erf or
// 1 + tanh is tiny: a float formula loses its digits there too; the erf
// is within 4e-7).
TEST(VectorMath, GeluBothFormsWithSpecials) {
  for (bool approximate : {false, true}) {
    for (size_t n = 0; n <= 70; ++n) {
      std::vector<float> x = Arguments(n, static_cast<uint32_t>(n + 100), -10.f, 10.f);
      for (size_t i = 2; i < n; i += 7) x[i] = x[i] * 1e3f;  // far tails and x^3 overflow
      std::vector<float> y(n + 1, 42.f);
      cpu::GeluRow(x.data(), y.data(), static_cast<int64_t>(n), approximate);
      for (size_t i = 0; i < n; ++i) {
        const double xi = x[i];
        double want = approximate ? GeluTanh(xi) : GeluExact(xi);
        if (std::isinf(xi)) want = xi > 0 ? kInf : kNan;  // -inf * 0
        ExpectClose(y[i], want, 2e-6, 3e-7 * std::fabs(xi),
                    std::string(approximate ? "tanh" : "erf") + " gelu(" + std::to_string(x[i]) + ")");
      }
      EXPECT_EQ(y[n], 42.f) << "wrote past the end, n " << n;
    }
  }
}

TEST(VectorMath, GeluInPlace) {
  std::vector<float> x = RandomFloats(37, 9, -5.f, 5.f);
  const std::vector<float> copy = x;
  cpu::GeluRow(x.data(), x.data(), 37, false);
  for (size_t i = 0; i < x.size(); ++i) ExpectClose(x[i], GeluExact(copy[i]), 2e-6, 3e-7 * 5, "in place");
}

std::vector<double> SoftmaxRef(const std::vector<float>& x, size_t begin, size_t n, double beta) {
  double mx = -INFINITY;
  bool nan = false;
  for (size_t i = begin; i < begin + n; ++i) {
    nan = nan || std::isnan(x[i]);
    mx = std::max(mx, static_cast<double>(x[i]));
  }
  std::vector<double> e(n);
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += e[i] = std::exp((x[begin + i] - mx) * beta);
  for (double& v : e) v = nan ? NAN : v / s;
  return e;
}

TEST(VectorMath, SoftmaxRowsAndSpecials) {
  // beta -0.5: exponents up to +20 on the general exp, whose float
  // argument (x - max) * beta carries 20 * 2^-24 of rounding into exp.
  for (float beta : {1.f, 0.5f, 2.f, -0.5f}) {
    const double rel = beta > 0 ? 1e-6 : 3e-6;
    for (size_t n = 1; n <= 70; ++n) {
      std::vector<float> x = RandomFloats(n, static_cast<uint32_t>(n), -20.f, 20.f);
      std::vector<float> y(n + 1, 42.f);
      cpu::SoftmaxRow(x.data(), y.data(), static_cast<int64_t>(n), beta);
      const std::vector<double> want = SoftmaxRef(x, 0, n, beta);
      for (size_t i = 0; i < n; ++i) ExpectClose(y[i], want[i], rel, 1e-9, "n " + std::to_string(n));
      EXPECT_EQ(y[n], 42.f);
      // In place: the same values.
      cpu::SoftmaxRow(x.data(), x.data(), static_cast<int64_t>(n), beta);
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(x[i], y[i]) << "in place, n " << n << " i " << i;
    }
  }
  // A NaN anywhere or a +inf makes the row NaN; -inf entries are 0.
  for (size_t n : {3, 17, 40}) {
    for (size_t at : {size_t{0}, n / 2, n - 1}) {
      for (float special : {kNan, kInf}) {
        std::vector<float> x = RandomFloats(n, 3, -1.f, 1.f);
        x[at] = special;
        std::vector<float> y(n);
        cpu::SoftmaxRow(x.data(), y.data(), static_cast<int64_t>(n), 1.f);
        for (size_t i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(y[i])) << "n " << n << " at " << at << " i " << i;
      }
      std::vector<float> x = RandomFloats(n, 4, -1.f, 1.f);
      x[at] = -kInf;
      std::vector<float> y(n);
      cpu::SoftmaxRow(x.data(), y.data(), static_cast<int64_t>(n), 1.f);
      EXPECT_EQ(y[at], 0.f);
      const std::vector<double> want = SoftmaxRef(x, 0, n, 1.0);
      for (size_t i = 0; i < n; ++i) ExpectClose(y[i], want[i], 1e-6, 1e-9, "-inf at " + std::to_string(at));
    }
  }
}

// The kernels over [B, T, C] tensors, two threads.
TEST(VectorMath, GeluAndSoftmaxKernels) {
  const Shape shape = {2, 37, 96};
  const size_t n = static_cast<size_t>(NumElements(shape));
  const std::vector<float> x = Arguments(n, 11, -6.f, 6.f);
  for (bool approximate : {false, true}) {
    OpTest t;
    const int in = t.Input<float>(shape, x);
    const int out = t.Output();
    GeluAttributes attrs;
    attrs.approximate = approximate;
    t.Node(OpType::kGelu, {in}, {out}, attrs);
    GLD_ASSERT_OK(t.RunPrepared(2));
    const std::vector<float> got = t.Get(out);
    ASSERT_EQ(got.size(), n);
    for (size_t i = 0; i < n; ++i) {
      double want = approximate ? GeluTanh(x[i]) : GeluExact(x[i]);
      if (std::isinf(x[i])) want = x[i] > 0 ? kInf : kNan;
      ExpectClose(got[i], want, 2e-6, 3e-7 * std::fabs(x[i]), "gelu at " + std::to_string(i));
      if (::testing::Test::HasFailure()) return;
    }
  }
  const std::vector<float> logits = RandomFloats(n, 12, -30.f, 30.f);
  OpTest t;
  const int in = t.Input<float>(shape, logits);
  const int out = t.Output();
  SoftmaxAttributes attrs;
  attrs.beta = 0.7f;
  t.Node(OpType::kSoftmax, {in}, {out}, attrs);
  GLD_ASSERT_OK(t.RunPrepared(2));
  const std::vector<float> got = t.Get(out);
  ASSERT_EQ(got.size(), n);
  for (size_t r = 0; r < n / 96; ++r) {
    const std::vector<double> want = SoftmaxRef(logits, r * 96, 96, 0.7);
    for (size_t i = 0; i < 96; ++i) ExpectClose(got[r * 96 + i], want[i], 1e-6, 1e-9, "row " + std::to_string(r));
  }
}

// Attention rows whose logits lie far apart (masked keys): terms under the
// denormal cutoff are exactly 0, the rest as the formula.
TEST(VectorMath, SoftmaxFarApartLogitsFlushToZero) {
  for (size_t n : {2, 17, 32, 33}) {
    std::vector<float> x = RandomFloats(n, 9, -1.f, 1.f);
    for (size_t i = 1; i < n; i += 2) x[i] = -1e9f;
    if (n > 2) x[n - 1] = -95.f;  // exp(-95 - max) is a denormal
    std::vector<float> y(n);
    cpu::SoftmaxRow(x.data(), y.data(), static_cast<int64_t>(n), 1.f);
    const std::vector<double> want = SoftmaxRef(x, 0, n, 1.0);
    for (size_t i = 0; i < n; ++i) {
      if (x[i] < -90.f) {
        EXPECT_EQ(y[i], 0.f) << "n " << n << " i " << i;
      } else {
        ExpectClose(y[i], want[i], 1e-6, 1e-9, "n " + std::to_string(n));
      }
    }
  }
}

// Layer norm of x's rows (c values each) in double precision, with gamma
// and beta of c values.
std::vector<double> LayerNormRef(const std::vector<float>& x, size_t c, const std::vector<float>& gamma,
                                 const std::vector<float>& beta, double eps) {
  std::vector<double> y(x.size());
  for (size_t r = 0; r < x.size() / c; ++r) {
    double mean = 0, var = 0;
    for (size_t i = 0; i < c; ++i) mean += x[r * c + i];
    mean /= static_cast<double>(c);
    for (size_t i = 0; i < c; ++i) var += (x[r * c + i] - mean) * (x[r * c + i] - mean);
    var /= static_cast<double>(c);
    for (size_t i = 0; i < c; ++i) {
      y[r * c + i] = (x[r * c + i] - mean) / std::sqrt(var + eps) * gamma[i] + beta[i];
    }
  }
  return y;
}

TEST(VectorMath, LayerNormRowsEveryWidthAndSpecials) {
  for (size_t c = 1; c <= 70; ++c) {
    const size_t rows = 3;
    std::vector<float> x = RandomFloats(rows * c, static_cast<uint32_t>(c), 2.f, 6.f);  // mean far from 0
    const std::vector<float> gamma = RandomFloats(c, 100 + static_cast<uint32_t>(c), 0.5f, 1.5f);
    const std::vector<float> beta = RandomFloats(c, 200 + static_cast<uint32_t>(c), -1.f, 1.f);
    std::vector<float> y(rows * c + 1, 42.f);
    cpu::LayerNormRows(x.data(), y.data(), static_cast<int64_t>(rows), static_cast<int64_t>(c), gamma.data(),
                       beta.data(), 1e-3f);
    const std::vector<double> want = LayerNormRef(x, c, gamma, beta, 1e-3);
    for (size_t i = 0; i < rows * c; ++i) ExpectClose(y[i], want[i], 1e-5, 1e-5, "c " + std::to_string(c));
    EXPECT_EQ(y[rows * c], 42.f);
    // In place.
    cpu::LayerNormRows(x.data(), x.data(), static_cast<int64_t>(rows), static_cast<int64_t>(c), gamma.data(),
                       beta.data(), 1e-3f);
    for (size_t i = 0; i < rows * c; ++i) EXPECT_EQ(x[i], y[i]) << "in place, c " << c;
  }
  // A NaN or an infinity anywhere in a row makes that row NaN; the other
  // rows keep their values.
  for (size_t c : {5, 16, 37, 64}) {
    for (float special : {kNan, kInf, -kInf}) {
      for (size_t at : {size_t{0}, c / 2, c - 1}) {
        std::vector<float> x = RandomFloats(2 * c, 5, -1.f, 1.f);
        x[c + at] = special;
        const std::vector<float> gamma(c, 1.f), beta(c, 0.f);
        std::vector<float> y(2 * c);
        cpu::LayerNormRows(x.data(), y.data(), 2, static_cast<int64_t>(c), gamma.data(), beta.data(), 1e-5f);
        const std::vector<double> want = LayerNormRef(x, c, gamma, beta, 1e-5);
        for (size_t i = 0; i < c; ++i) ExpectClose(y[i], want[i], 1e-5, 1e-5, "clean row");
        for (size_t i = c; i < 2 * c; ++i) EXPECT_TRUE(std::isnan(y[i])) << "c " << c << " at " << at << " i " << i;
      }
    }
  }
}

// GLD_LAYER_NORM over [B, T, C] with odd C: one and two threads (rows
// split across them), gamma and beta of C values or of one.
TEST(VectorMath, LayerNormKernel) {
  const Shape shape = {2, 300, 67};
  const size_t n = static_cast<size_t>(NumElements(shape)), c = 67;
  std::vector<float> x = RandomFloats(n, 21, -4.f, 8.f);
  x[c * 7 + 3] = kNan;
  for (bool per_channel : {true, false}) {
    const size_t ng = per_channel ? c : 1;
    const std::vector<float> gamma = RandomFloats(ng, 22, 0.5f, 1.5f), beta = RandomFloats(ng, 23, -1.f, 1.f);
    std::vector<float> gamma_c(c), beta_c(c);
    for (size_t i = 0; i < c; ++i) {
      gamma_c[i] = gamma[per_channel ? i : 0];
      beta_c[i] = beta[per_channel ? i : 0];
    }
    const std::vector<double> want = LayerNormRef(x, c, gamma_c, beta_c, 1e-6);
    for (int threads : {1, 2}) {
      OpTest t;
      const int in = t.Input<float>(shape, x);
      const int g = t.Const<float>({static_cast<int32_t>(ng)}, gamma);
      const int b = t.Const<float>({static_cast<int32_t>(ng)}, beta);
      const int out = t.Output();
      LayerNormAttributes attrs;
      attrs.epsilon = 1e-6f;
      t.Node(OpType::kLayerNorm, {in, g, b}, {out}, attrs);
      GLD_ASSERT_OK(t.RunPrepared(threads));
      const std::vector<float> got = t.Get(out);
      ASSERT_EQ(got.size(), n);
      for (size_t i = 0; i < n; ++i) {
        ExpectClose(got[i], want[i], 1e-5, 1e-5, "at " + std::to_string(i) + " threads " + std::to_string(threads));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace gld::testing
