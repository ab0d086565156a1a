// The pass after an XNNPACK operator: NaN / infinity check fused with the
// activation (cpu_kernels/finite_check.h).
#include "cpu_kernels/finite_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "cpu_kernels/kernel_util.h"

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

}  // namespace
}  // namespace gld::testing
