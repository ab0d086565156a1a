// The pass after an XNNPACK operator: NaN / infinity check fused with the
// activation (cpu_kernels/xnnpack/finite_check.h).
#include "cpu_kernels/xnnpack/finite_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/micro/vector_math/activation.h"

namespace gld::testing {
namespace {

std::vector<float> Ramp(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(static_cast<int>(i % 19) - 9) * 0.75f;
  return v;
}

// Sizes below, at and around the vector loop's block of 32.
const size_t kSizes[] = {0, 1, 7, 31, 32, 33, 64, 100, 1000};

TEST(ActivateCheckingFinite, FiniteDataGetsTheActivation) {
  for (Activation a : {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kReluN1To1,
                       Activation::kTanh, Activation::kSigmoid, Activation::kSignBit}) {
    for (size_t n : kSizes) {
      std::vector<float> data = Ramp(n);
      std::vector<float> expected = data;
      for (float& x : expected) x = cpu::ApplyActivation(a, x);
      EXPECT_TRUE(cpu::ActivateCheckingFinite(a, data.data(), static_cast<int64_t>(n)));
      EXPECT_EQ(data, expected) << "activation " << static_cast<int>(a) << ", " << n << " elements";
    }
  }
}

TEST(ActivateCheckingFinite, FindsEachNonFiniteValueAnywhere) {
  const float kValues[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  for (Activation a : {Activation::kNone, Activation::kRelu, Activation::kRelu6, Activation::kTanh}) {
    for (size_t n : kSizes) {
      for (size_t at = 0; at < n; at += (n > 40 ? 13 : 1)) {
        for (float bad : kValues) {
          std::vector<float> data = Ramp(n);
          data[at] = bad;
          EXPECT_FALSE(cpu::ActivateCheckingFinite(a, data.data(), static_cast<int64_t>(n)))
              << bad << " at " << at << " of " << n << ", activation " << static_cast<int>(a);
        }
      }
    }
  }
}

TEST(ActivateCheckingFinite, TheLargestFiniteValuesPass) {
  std::vector<float> data(70, std::numeric_limits<float>::max());
  data[3] = -std::numeric_limits<float>::max();
  data[40] = std::numeric_limits<float>::denorm_min();
  EXPECT_TRUE(cpu::ActivateCheckingFinite(Activation::kNone, data.data(), 70));
  EXPECT_TRUE(cpu::ActivateCheckingFinite(Activation::kRelu6, data.data(), 70));
  EXPECT_EQ(data[0], 6.f);
  EXPECT_EQ(data[3], 0.f);
}

TEST(MaxAbs, TheLargestMagnitudeAnywhere) {
  EXPECT_EQ(cpu::MaxAbs(nullptr, 0), 0.f);
  for (size_t n : kSizes) {
    for (size_t at = 0; at < n; at += (n > 40 ? 13 : 1)) {
      for (float big : {-1e30f, 1e30f, -std::numeric_limits<float>::max(), 20.f}) {
        std::vector<float> data = Ramp(n);  // |x| <= 7.5
        data[at] = big;
        EXPECT_EQ(cpu::MaxAbs(data.data(), static_cast<int64_t>(n)), std::fabs(big)) << big << " at " << at << " of " << n;
      }
    }
  }
  const float tiny[] = {-0.f, std::numeric_limits<float>::denorm_min(), 0.f};
  EXPECT_EQ(cpu::MaxAbs(tiny, 3), std::numeric_limits<float>::denorm_min());
}

TEST(MaxAbs, NanAboveInfinityAboveNumbers) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t n : kSizes) {
    for (size_t at = 0; at < n; at += (n > 40 ? 13 : 1)) {
      std::vector<float> data = Ramp(n);
      data[at] = -inf;
      EXPECT_EQ(cpu::MaxAbs(data.data(), static_cast<int64_t>(n)), inf) << at << " of " << n;
      data[(at * 7) % n] = -nan;  // may replace the infinity: NaN either way
      EXPECT_TRUE(std::isnan(cpu::MaxAbs(data.data(), static_cast<int64_t>(n)))) << at << " of " << n;
    }
  }
  EXPECT_EQ(cpu::MaxAbsOf(-3.f, 2.f), 3.f);
  EXPECT_EQ(cpu::MaxAbsOf(std::numeric_limits<float>::max(), -inf), inf);
  EXPECT_TRUE(std::isnan(cpu::MaxAbsOf(inf, -nan)));
  EXPECT_TRUE(std::isnan(cpu::MaxAbsOf(nan, 1.f)));
}

}  // namespace
}  // namespace gld::testing
