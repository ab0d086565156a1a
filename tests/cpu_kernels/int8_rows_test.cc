// The AVX-512 loops of cpu_kernels/micro/int8_rows/int8_rows.h against the portable loops
// they replace, value for value: random operands and parameters, the int8
// extremes, rounding ties (multipliers and scales that put results on
// halves), zero points at both ends, lengths and shapes that are not
// multiples of the 16 lanes, broadcast strides. The portable loops are the
// ones the networks' tests hold to LiteRT's integers. Skipped where the CPU
// has no AVX-512 VNNI (there only the portable loops run).
#include "cpu_kernels/micro/int8_rows/int8_rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "util/cpu_features.h"

namespace gld::testing {
namespace {

using cpu::Int8Path;

#define SKIP_WITHOUT_VECTOR_LOOPS() \
  if (!cpu::HasInt8Rows16()) GTEST_SKIP() << "no AVX-512 VNNI: only the portable loops run here"
// The loops that also have a NEON form (AArch64).
#define SKIP_WITHOUT_ROW_LOOPS()                           \
  if (!cpu::HasInt8Rows16() && !cpu::HasInt8RowsNeon()) \
  GTEST_SKIP() << "no AVX-512 VNNI or NEON: only the portable loops run here"

// Random int8 values with -128 and 127 sprinkled in.
std::vector<int8_t> Bytes(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int r = d(rng);
    v[i] = static_cast<int8_t>(i % 7 == 3 ? -128 : i % 11 == 5 ? 127 : r);
  }
  return v;
}

int32_t Uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return static_cast<int32_t>(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

TEST(Int8Rows, MultiplyByQuantizedMultiplierMatchesScalar) {
  SKIP_WITHOUT_ROW_LOOPS();
  std::mt19937 rng(1);
  const int32_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  const std::vector<int32_t> multipliers = {kMin, kMax, 1 << 30, (1 << 30) + 1, 1518500250, 0, 1, -(1 << 30)};
  for (int trial = 0; trial < 400; ++trial) {
    const int32_t mult = trial < static_cast<int>(multipliers.size()) * 8 ? multipliers[static_cast<size_t>(trial / 8)]
                                                                          : Uniform(rng, 1 << 30, kMax);
    const int shift = trial % 8 == 0 ? 0 : Uniform(rng, -31, 8);
    const size_t n = static_cast<size_t>(trial % 41);
    std::vector<int32_t> x(n);
    for (size_t i = 0; i < n; ++i) {
      switch (i % 6) {
        case 0:
          x[i] = Uniform(rng, kMin, kMax);
          break;
        case 1:
          x[i] = i % 12 == 1 ? kMin : kMax;
          break;
        // Ties of the rounding right shift: odd multiples of 2^(e-1).
        case 2:
          x[i] = static_cast<int32_t>((2 * Uniform(rng, -1000, 1000) + 1) * (int64_t{1} << std::max(0, -shift - 1)));
          break;
        case 3:
          x[i] = Uniform(rng, -70000, 70000);
          break;
        case 4:
          x[i] = Uniform(rng, -2, 2);
          break;
        default:
          x[i] = Uniform(rng, -(1 << 20), 1 << 20);
      }
    }
    std::vector<int32_t> want(n + 1, 42), got(n + 1, 42);
    cpu::MultiplyByQuantizedMultiplierRow(x.data(), want.data(), static_cast<int64_t>(n), mult, shift,
                                          Int8Path::kPortable);
    cpu::MultiplyByQuantizedMultiplierRow(x.data(), got.data(), static_cast<int64_t>(n), mult, shift, Int8Path::kAuto);
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got[i], want[i]) << "x " << x[i] << " multiplier " << mult << " shift " << shift;
    }
    EXPECT_EQ(got[n], 42) << "wrote past the end";
  }
}

TEST(Int8Rows, TableLookupMatchesScalar) {
  if (!HostCpuFeatures().avx512vbmi && !cpu::HasInt8RowsNeon()) {
    GTEST_SKIP() << "no AVX-512 VBMI or NEON: only the portable loop runs here";
  }
  std::mt19937 rng(6);
  for (int trial = 0; trial < 60; ++trial) {
    const std::vector<int8_t> table = Bytes(256, rng);
    const size_t n = trial < 10 ? 256 : static_cast<size_t>(Uniform(rng, 0, 300));
    std::vector<int8_t> x = Bytes(n, rng);
    if (trial < 10) {
      for (size_t i = 0; i < n; ++i) x[i] = static_cast<int8_t>(i);  // every entry
    }
    std::vector<int8_t> want(n + 1, 42), got(n + 1, 42);
    cpu::Int8TableLookup(table.data(), x.data(), static_cast<int64_t>(n), want.data(), Int8Path::kPortable);
    cpu::Int8TableLookup(table.data(), x.data(), static_cast<int64_t>(n), got.data(), Int8Path::kAuto);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(int{got[i]}, int{want[i]}) << "trial " << trial << " x " << int{x[i]};
    EXPECT_EQ(got[n], 42) << "wrote past the end";
  }
}

// Parameters of every kind in the ranges integer_ops.cc's prepare gives
// them, with the offsets at both ends in turn.
cpu::Int8BinaryParams RandomBinaryParams(cpu::Int8BinaryKind kind, int trial, std::mt19937& rng) {
  cpu::Int8BinaryParams p;
  p.kind = kind;
  const int32_t ends[] = {-127, 128, 0};
  p.a_offset = trial % 4 < 3 ? ends[trial % 3] : Uniform(rng, -127, 128);
  p.b_offset = trial % 5 < 3 ? ends[(trial + 1) % 3] : Uniform(rng, -127, 128);
  p.out_offset = trial % 3 == 0 ? -128 : trial % 3 == 1 ? 127 : Uniform(rng, -128, 127);
  if (trial % 4 == 1) {
    p.lo = Uniform(rng, -128, 0);
    p.hi = Uniform(rng, p.lo, 127);
  }
  p.out_mult = trial % 6 == 0 ? (1 << 30) : Uniform(rng, 1 << 30, std::numeric_limits<int32_t>::max());
  switch (kind) {
    case cpu::Int8BinaryKind::kMul:
      p.out_shift = Uniform(rng, -22, 1);
      break;
    case cpu::Int8BinaryKind::kXnnMul: {
      const float ties[] = {0.5f, 0.25f, 1.f / 64.f, 1.f / 65536.f};
      p.xnn_scale = trial % 3 == 0
                        ? ties[trial % 4]
                        : std::ldexp(std::uniform_real_distribution<float>(1.f, 2.f)(rng), Uniform(rng, -16, 7));
      break;
    }
    case cpu::Int8BinaryKind::kXnnAdd:
    case cpu::Int8BinaryKind::kXnnSub: {
      p.out_shift = Uniform(rng, 10, 30);
      const int64_t big = int64_t{1} << 21;
      p.a_mult = Uniform(rng, -big, big);
      p.b_mult = Uniform(rng, -big, big);
      p.xnn_bias = (int64_t{1} << (p.out_shift - 1)) - int64_t{p.a_mult} * Uniform(rng, -128, 127) -
                   int64_t{p.b_mult} * Uniform(rng, -128, 127);
      break;
    }
    default: {
      // The operands on the common scale, as prepare scales them: onto
      // twice the larger input scale (multipliers of 1/2 to 1/2^8 of the
      // other), with 20 bits of headroom for ADD / SUB and 7 for
      // SQUARED_DIFFERENCE (so the square fits).
      const bool squared = kind == cpu::Int8BinaryKind::kSquaredDifference;
      p.left_shift = squared ? 7 : 20;
      p.a_mult = Uniform(rng, 1 << 30, std::numeric_limits<int32_t>::max());
      p.b_mult = trial % 2 == 0 ? (1 << 30) : Uniform(rng, 1 << 30, std::numeric_limits<int32_t>::max());
      p.a_shift = trial % 3 == 0 ? 0 : Uniform(rng, -8, 0);
      p.b_shift = trial % 2 == 0 ? 0 : Uniform(rng, -8, 0);
      cpu::FillScaledTables(&p);
      p.out_shift = squared ? Uniform(rng, -31, -8) : Uniform(rng, -31, -15);
    }
  }
  return p;
}

TEST(Int8Rows, BinaryRunsMatchScalar) {
  SKIP_WITHOUT_ROW_LOOPS();
  using K = cpu::Int8BinaryKind;
  const K kinds[] = {K::kAdd, K::kSub, K::kMul, K::kSquaredDifference, K::kXnnAdd, K::kXnnSub, K::kXnnMul};
  const int64_t strides[][2] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}, {2, 1}};
  std::mt19937 rng(2);
  for (K kind : kinds) {
    for (int trial = 0; trial < 60; ++trial) {
      const cpu::Int8BinaryParams p = RandomBinaryParams(kind, trial, rng);
      const int64_t n = trial % 3 == 0 ? 64 : Uniform(rng, 0, 70);
      const int64_t* s = strides[trial % 5];
      const std::vector<int8_t> a = Bytes(static_cast<size_t>(2 * n + 1), rng),
                                b = Bytes(static_cast<size_t>(n + 1), rng);
      std::vector<int8_t> want(static_cast<size_t>(n + 1), 42), got(static_cast<size_t>(n + 1), 42);
      cpu::Int8BinaryRun(p, a.data(), s[0], b.data(), s[1], want.data(), n, Int8Path::kPortable);
      cpu::Int8BinaryRun(p, a.data(), s[0], b.data(), s[1], got.data(), n, Int8Path::kAuto);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ(int{got[static_cast<size_t>(i)]}, int{want[static_cast<size_t>(i)]})
            << "kind " << static_cast<int>(kind) << " trial " << trial << " element " << i << " of " << n << " a "
            << int{a[static_cast<size_t>(i * s[0])]} << " b " << int{b[static_cast<size_t>(i * s[1])]};
      }
      EXPECT_EQ(got[static_cast<size_t>(n)], 42) << "wrote past the end";
    }
  }
}

TEST(Int8Rows, SoftmaxRowsMatchScalar) {
  SKIP_WITHOUT_VECTOR_LOOPS();
  std::mt19937 rng(3);
  for (int trial = 0; trial < 120; ++trial) {
    cpu::Int8SoftmaxParams p;
    const float scale = -std::ldexp(std::uniform_real_distribution<float>(1.f, 2.f)(rng), Uniform(rng, -9, 0));
    for (int d = 0; d <= 255; ++d) p.table[255 - d] = std::exp(scale * static_cast<float>(d));
    p.out_scale = trial % 2 == 0 ? 1.f / 256.f : std::uniform_real_distribution<float>(0.001f, 0.02f)(rng);
    if (trial % 3 == 2) {
      // Quarters and an output scale of 1/8: a flat row of 16 sums to 16,
      // every probability is 1/2 on the output's grid (rounding ties).
      for (int i = 0; i < 256; ++i) p.table[i] = 0.25f * static_cast<float>(1 + i % 4);
      p.out_scale = 0.125f;
    }
    p.out_zero_point = trial % 2 == 0 ? -128 : Uniform(rng, -128, 127);
    const int64_t rows = trial % 4 == 0 ? 64 : Uniform(rng, 1, 37);
    const int64_t n = trial % 4 == 0 || trial % 5 == 1 ? 16 : Uniform(rng, 1, 40);
    std::vector<int8_t> x = Bytes(static_cast<size_t>(rows * n), rng);
    if (trial % 5 == 1) std::fill(x.begin(), x.begin() + n, static_cast<int8_t>(-128));  // a flat row: ties
    if (trial % 5 == 2) std::fill(x.begin(), x.end(), static_cast<int8_t>(127));
    std::vector<int8_t> want(x.size() + 1, 42), got(x.size() + 1, 42);
    cpu::Int8SoftmaxRows(p, x.data(), rows, n, want.data(), Int8Path::kPortable);
    cpu::Int8SoftmaxRows(p, x.data(), rows, n, got.data(), Int8Path::kAuto);
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(int{got[i]}, int{want[i]}) << "trial " << trial << " rows " << rows << " n " << n << " element " << i;
    }
    EXPECT_EQ(got[x.size()], 42) << "wrote past the end";
  }
}

TEST(Int8Rows, MatMulMatchesScalar) {
  SKIP_WITHOUT_VECTOR_LOOPS();
  std::mt19937 rng(4);
  std::vector<int16_t> scratch;
  for (int trial = 0; trial < 160; ++trial) {
    cpu::Int8MatMulParams p;
    const int32_t ends[] = {-128, 127, 0};
    p.a_zero_point = trial % 4 < 3 ? ends[trial % 3] : Uniform(rng, -128, 127);
    // A second zero point of 0 takes the float requantization, others the
    // fixed point.
    p.b_zero_point = trial % 2 == 0 ? 0 : trial % 3 == 0 ? -128 : trial % 3 == 1 ? 127 : Uniform(rng, -128, 127);
    p.out_zero_point = trial % 5 == 0 ? -128 : trial % 5 == 1 ? 127 : Uniform(rng, -128, 127);
    p.mult = Uniform(rng, 1 << 30, std::numeric_limits<int32_t>::max());
    p.shift = Uniform(rng, -20, -6);
    p.xnn_scale = trial % 6 == 0
                      ? 1.f / 256.f
                      : std::ldexp(std::uniform_real_distribution<float>(1.f, 2.f)(rng), Uniform(rng, -16, -6));
    cpu::Int8MatMulShape s;
    s.m = trial % 8 == 0 ? 16 : Uniform(rng, 1, 21);
    s.k = trial % 8 == 0 ? 16 : Uniform(rng, 1, 37);
    s.n = trial % 8 == 0 ? 16 : Uniform(rng, 1, 37);
    const bool adj_x = trial % 3 == 1, adj_y = trial % 4 >= 2;
    s.a_stride_m = adj_x ? 1 : s.k, s.a_stride_k = adj_x ? s.m : 1;
    s.b_stride_k = adj_y ? 1 : s.n, s.b_stride_n = adj_y ? s.k : 1;
    const std::vector<int8_t> x = Bytes(static_cast<size_t>(s.m * s.k), rng),
                              w = Bytes(static_cast<size_t>(s.k * s.n), rng);
    std::vector<int8_t> want(static_cast<size_t>(s.m * s.n + 1), 42), got(want.size(), 42);
    cpu::Int8MatMul(p, s, x.data(), w.data(), want.data(), &scratch, Int8Path::kPortable);
    cpu::Int8MatMul(p, s, x.data(), w.data(), got.data(), &scratch, Int8Path::kAuto);
    for (size_t i = 0; i + 1 < want.size(); ++i) {
      ASSERT_EQ(int{got[i]}, int{want[i]})
          << "trial " << trial << " m " << s.m << " k " << s.k << " n " << s.n << " element " << i;
    }
    EXPECT_EQ(got.back(), 42) << "wrote past the end";
  }
}

TEST(Int8Rows, MeanSumsAndRequantizationMatchScalar) {
  SKIP_WITHOUT_ROW_LOOPS();
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t outer = Uniform(rng, 1, 9);
    const int64_t reduced = trial % 4 == 0 ? 64 : Uniform(rng, 1, 200);
    const int64_t inner = trial % 3 == 0 ? 1 : Uniform(rng, 1, 40);
    std::vector<int8_t> x = Bytes(static_cast<size_t>(outer * reduced * inner), rng);
    if (trial % 7 == 1) std::fill(x.begin(), x.end(), static_cast<int8_t>(-128));
    if (trial % 7 == 2) std::fill(x.begin(), x.end(), static_cast<int8_t>(127));
    const size_t count = static_cast<size_t>(outer * inner);
    std::vector<int32_t> want(count + 1, 42), got(count + 1, 42);
    cpu::Int8SumBlock(x.data(), outer, reduced, inner, want.data(), Int8Path::kPortable);
    cpu::Int8SumBlock(x.data(), outer, reduced, inner, got.data(), Int8Path::kAuto);
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(got[i], want[i]) << "trial " << trial << " sum " << i;
    EXPECT_EQ(got[count], 42) << "wrote past the end";

    // The requantization of those sums (and of sums with halves: scale
    // 1/2 and a bias of 0.5 put results on ties).
    const float scale = trial % 5 == 0
                            ? 0.5f
                            : std::ldexp(std::uniform_real_distribution<float>(1.f, 2.f)(rng), Uniform(rng, -14, 0)) /
                                  static_cast<float>(reduced);
    const float bias = trial % 5 == 0 ? 0.5f : std::uniform_real_distribution<float>(-300.f, 300.f)(rng);
    std::vector<int8_t> qwant(count + 1, 42), qgot(count + 1, 42);
    cpu::Int8MeanRequantize(want.data(), static_cast<int64_t>(count), scale, bias, qwant.data(), Int8Path::kPortable);
    cpu::Int8MeanRequantize(want.data(), static_cast<int64_t>(count), scale, bias, qgot.data(), Int8Path::kAuto);
    for (size_t i = 0; i < count; ++i) {
      ASSERT_EQ(int{qgot[i]}, int{qwant[i]})
          << "trial " << trial << " sum " << want[i] << " scale " << scale << " bias " << bias;
    }
    EXPECT_EQ(qgot[count], 42) << "wrote past the end";
  }
}

}  // namespace
}  // namespace gld::testing
