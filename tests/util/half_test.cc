#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "util/half.h"

namespace gld {
namespace {

TEST(Half, KnownValues) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
}

TEST(Half, RoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie -> even
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // rounds to infinity
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie with 0 -> even
  EXPECT_EQ(FloatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(NAN) & 0x7c00, 0x7c00);
  EXPECT_NE(FloatToHalf(NAN) & 0x03ff, 0);
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
}

// The bulk conversion (F16C where the CPU has it) gives HalfToFloat's value
// for every half, from any start and with a tail shorter than a vector.
TEST(Half, ArrayConversionMatchesTheScalarOne) {
  std::vector<uint16_t> halves(0x10000 + 3);
  for (size_t i = 0; i < halves.size(); ++i) halves[i] = static_cast<uint16_t>(i);
  for (size_t start : {0, 1, 5}) {
    const int64_t n = static_cast<int64_t>(halves.size() - start);
    std::vector<float> got(static_cast<size_t>(n), -7.0f);
    HalfToFloatArray(halves.data() + start, got.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const float want = HalfToFloat(halves[start + static_cast<size_t>(i)]);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got[static_cast<size_t>(i)])) << "half " << std::hex << halves[start + i];
      } else {
        ASSERT_EQ(std::memcmp(&want, &got[static_cast<size_t>(i)], 4), 0)
            << "half " << std::hex << halves[start + i] << ": " << got[static_cast<size_t>(i)] << " != " << want;
      }
    }
  }
}

}  // namespace
}  // namespace gld
