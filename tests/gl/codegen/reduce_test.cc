// MEAN (and the other reductions) and SOFTMAX on the GPU vs the CPU kernels.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

struct ReduceCase {
  Shape input;
  std::vector<int32_t> axes;
  bool keep_dims;
};

const ReduceCase kReduceCases[] = {
    {{1, 7, 7, 17}, {1, 2}, true},    // spatial, keep dims (hand_landmark's MEAN)
    {{1, 5, 6, 5}, {1, 2}, false},    // spatial -> [1, 5]
    {{2, 4, 3, 3}, {3}, true},        // channels, keep dims
    {{1, 4, 3, 5}, {-1}, false},      // channels -> [1, 4, 3]: W becomes the channel axis
    {{2, 3, 4, 4}, {0, 3}, false},    // batch and channels
    {{1, 1, 5, 1}, {2}, true},        // C 1
    {{3, 20}, {1}, false},            // rank 2
    {{3, 20}, {0}, true},             // rank 2 over the batch
    {{2, 5, 6}, {1}, false},          // rank 3 middle axis
    {{2, 3, 4, 18}, {1, 2, 3}, false},
    {{1, 4, 3, 1}, {1, 2}, true},     // spatial, C 1
    {{1, 3, 5, 3}, {2, 1}, false},    // spatial, C 3
    {{2, 3, 3, 4}, {1, 2}, true},     // spatial, C 4
    {{1, 2, 3, 1}, {3}, true},        // channels, C 1
    {{1, 3, 2, 17}, {3}, true},       // channels, C >= 17
    {{2, 2, 3, 20}, {-1}, false},     // channels, C >= 17 -> [2, 2, 3]
};

class ReduceTest : public ::testing::TestWithParam<OpType> {};

TEST_P(ReduceTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  const OpType op = GetParam();
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const ReduceCase& c : kReduceCases) {
      GlOpTest t(seed++);
      // PROD stays in range with factors near 1.
      int x = op == OpType::kReduceProd ? t.Input(c.input, 0.8f, 1.2f) : t.Input(c.input);
      int axes = t.ConstInts<int32_t>({static_cast<int32_t>(c.axes.size())}, c.axes);
      t.Op(op, {x, axes}, ReduceAttributes{c.keep_dims});
      std::string axes_text;
      for (int32_t a : c.axes) axes_text += std::to_string(a) + " ";
      t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(op)) + " " + ShapeToString(c.input) + " axes " +
                                         axes_text + (c.keep_dims ? "keep" : "drop"));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, ReduceTest,
                         ::testing::Values(OpType::kMean, OpType::kSum, OpType::kReduceMax, OpType::kReduceMin,
                                           OpType::kReduceProd),
                         [](const ::testing::TestParamInfo<OpType>& info) { return std::string(OpTypeName(info.param)); });

// REDUCE_ALL and REDUCE_ANY over bools (held as 0.0 / 1.0 on the GPU): the
// reduction cases, plus a decoder's position check (litert_gen's
// REDUCE_ALL over [1, 1] and prefill's [8, 1]). The values lean to true for
// ALL and to false for ANY, so that both answers occur.
TEST(LogicalReduceTest, AllAndAnyMatchCpu) {
  GLD_REQUIRE_GL(env);
  std::vector<ReduceCase> cases(std::begin(kReduceCases), std::end(kReduceCases));
  cases.push_back({{1, 1}, {1}, false});
  cases.push_back({{8, 1}, {1}, false});
  for (Precision p : BothPrecisions()) {
    for (OpType op : {OpType::kReduceAll, OpType::kReduceAny}) {
      uint32_t seed = 40;
      for (const ReduceCase& c : cases) {
        GlOpTest t(seed);
        const std::vector<int> draws = RandomInts<int>(static_cast<size_t>(NumElements(c.input)), 0, 15, seed++);
        std::vector<uint8_t> bools(draws.size());
        for (size_t i = 0; i < draws.size(); ++i) bools[i] = (op == OpType::kReduceAll) == (draws[i] != 0) ? 1 : 0;
        int x = t.InputBytes(c.input, DataType::kBool, bools);
        int axes = t.ConstInts<int32_t>({static_cast<int32_t>(c.axes.size())}, c.axes);
        t.Op(op, {x, axes}, ReduceAttributes{c.keep_dims});
        t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(op)) + " " + ShapeToString(c.input));
      }
    }
  }
}

TEST(SoftmaxTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  const Shape shapes[] = {{1, 1, 1, 1}, {1, 3, 4, 3}, {2, 2, 3, 4}, {1, 2, 2, 5}, {1, 1, 1, 17}, {4, 1001}, {2, 3, 20}};
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 5;
    for (const Shape& s : shapes) {
      for (float beta : {1.0f, 0.5f}) {
        GlOpTest t(seed++);
        int x = t.Input(s, -5, 5);
        t.Op(OpType::kSoftmax, {x}, SoftmaxAttributes{beta});
        t.ExpectGpuMatchesCpu(*env, p, "SOFTMAX " + ShapeToString(s) + " beta " + std::to_string(beta));
      }
    }
  }
}

// LOG_SOFTMAX and L2_NORMALIZATION share softmax.comp (its MODE define).
TEST(SoftmaxTest, LogSoftmaxAndL2NormalizationMatchCpu) {
  GLD_REQUIRE_GL(env);
  const Shape shapes[] = {{1, 4, 3, 5}, {2, 10}, {1, 1, 1, 17}, {3, 2, 2}, {1, 2, 2, 4}};
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 40;
    for (const Shape& s : shapes) {
      for (OpType op : {OpType::kLogSoftmax, OpType::kL2Normalization}) {
        GlOpTest t(seed++);
        int x = t.Input(s, -5, 5);
        t.Op(op, {x});
        t.ExpectGpuMatchesCpu(*env, p, std::string(OpTypeName(op)) + " " + ShapeToString(s));
      }
    }
  }
}

}  // namespace
}  // namespace gld::testing
