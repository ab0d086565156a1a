#include "graph/dequantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace gld {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The claim DequantizeAffine's comment makes: for 16-bit (and so 8-bit)
// values the double product rounds to the same float as the float product
// LiteRT's kernels compute. Every int16 value, many scales and zero points.
TEST(DequantizeAffine, MatchesTheFloatProductForEveryInt16Value) {
  std::vector<int16_t> values;
  for (int v = -32768; v <= 32767; ++v) values.push_back(static_cast<int16_t>(v));
  std::vector<float> out(values.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> exponent(-30.f, 10.f);
  for (int trial = 0; trial < 200; ++trial) {
    const float scale = std::ldexp(1.f + std::generate_canonical<float, 24>(rng), static_cast<int>(exponent(rng)));
    const int64_t zero_point = static_cast<int64_t>(rng() % 512) - 256;
    AffineQuantization q;
    q.scale = &scale;
    q.zero_point = &zero_point;
    DequantizeAffine<int16_t>(values.data(), 0, static_cast<int64_t>(values.size()), q, out.data());
    for (size_t i = 0; i < values.size(); ++i) {
      const float want = static_cast<float>(static_cast<int64_t>(values[i]) - zero_point) * scale;
      ASSERT_EQ(Bits(out[i]), Bits(want)) << "value " << values[i] << " scale " << scale << " zero point "
                                          << zero_point;
    }
  }
}

TEST(DequantizeAffine, PerChannelAlongTheQuantizedDimension) {
  // Shape [2, 3] quantized along dimension 0 (inner 3), then dimension 1 (inner 1).
  const int8_t values[6] = {1, 2, 3, 4, 5, 6};
  const float scales[3] = {0.5f, 2.f, -1.f};
  const int64_t zero_points[3] = {1, 0, -1};
  float out[6];
  AffineQuantization rows{scales, zero_points, 2, 3};
  DequantizeAffine<int8_t>(values, 0, 6, rows, out);
  EXPECT_EQ(std::vector<float>(out, out + 6), (std::vector<float>{0.f, 0.5f, 1.f, 8.f, 10.f, 12.f}));
  AffineQuantization columns{scales, nullptr, 3, 1};
  DequantizeAffine<int8_t>(values, 2, 6, columns, out);
  EXPECT_EQ(std::vector<float>(out + 2, out + 6), (std::vector<float>{-3.f, 2.f, 10.f, -6.f}));
}

// Run by run, from any begin inside a run: every range of a [4, 5, 3]
// tensor, per channel along each dimension, matches the value-by-value rule.
TEST(DequantizeAffine, PerChannelRunsMatchTheRuleFromAnyBegin) {
  const int64_t dims[3] = {4, 5, 3};
  std::vector<int8_t> values(60);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int8_t>(static_cast<int>(i * 37 % 256) - 128);
  for (int axis = 0; axis < 3; ++axis) {
    const int64_t channels = dims[axis];
    int64_t inner = 1;
    for (int d = axis + 1; d < 3; ++d) inner *= dims[d];
    std::vector<float> scales;
    std::vector<int64_t> zero_points;
    for (int64_t c = 0; c < channels; ++c) {
      scales.push_back(0.125f * static_cast<float>(c + 1));
      zero_points.push_back(c - 2);
    }
    AffineQuantization q{scales.data(), zero_points.data(), channels, inner};
    for (int64_t begin = 0; begin < 60; ++begin) {
      for (int64_t end = begin; end <= 60; end += 7) {
        std::vector<float> out(60, -1.f);
        DequantizeAffine<int8_t>(values.data(), begin, end, q, out.data());
        for (int64_t i = 0; i < 60; ++i) {
          const size_t c = static_cast<size_t>((i / inner) % channels);
          const float want = i < begin || i >= end ? -1.f
                                                   : static_cast<float>((static_cast<double>(values[i]) -
                                                                         static_cast<double>(zero_points[c])) *
                                                                        static_cast<double>(scales[c]));
          ASSERT_EQ(Bits(out[static_cast<size_t>(i)]), Bits(want)) << "axis " << axis << " [" << begin << ", " << end
                                                                   << ") at " << i;
        }
      }
    }
  }
}

TEST(DequantizeAffine, ReadsValuesAtAnOddAddress) {
  alignas(4) uint8_t bytes[9] = {};
  const int32_t value = -123456;
  std::memcpy(bytes + 1, &value, 4);
  const float scale = 0.25f;
  AffineQuantization q;
  q.scale = &scale;
  float out = 0;
  DequantizeAffine<int32_t>(bytes + 1, 0, 1, q, &out);
  EXPECT_EQ(out, -30864.f);
}

// A corrupt file's zero point near INT64_MIN (found by the loader fuzzer):
// the difference cannot overflow (UBSan stops on it), and it is the nearest
// double to the exact one, scaled.
TEST(DequantizeAffine, ExtremeZeroPointDoesNotOverflow) {
  const int8_t values[2] = {127, -128};
  const int64_t zero_point = INT64_MIN + 1;
  const float scale = 0.5f;
  AffineQuantization q;
  q.scale = &scale;
  q.zero_point = &zero_point;
  float out[2] = {};
  DequantizeAffine<int8_t>(values, 0, 2, q, out);
  EXPECT_EQ(out[0], static_cast<float>(9223372036854775807.0 * 0.5));
  EXPECT_EQ(out[1], static_cast<float>(9223372036854775807.0 * 0.5));
}

}  // namespace
}  // namespace gld
