// GATHER on the GPU vs the CPU kernel: int32 index tensors uploaded to the
// GPU (embedding lookups), other axes, batch_dims, constant int64 indices;
// and the refusal of an index range fp16 storage cannot hold.
#include <gtest/gtest.h>

#include <random>

#include "gl/codegen/support.h"
#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

std::vector<int32_t> RandomIndices(const Shape& shape, int32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int32_t> d(0, n - 1);
  std::vector<int32_t> v(static_cast<size_t>(NumElements(shape)));
  for (int32_t& x : v) x = d(rng);
  return v;
}

struct GatherCase {
  Shape params, indices;
  int32_t axis, batch_dims;
  bool const_params;
};

const GatherCase kCases[] = {
    {{50, 12}, {1, 9}, 0, 0, true},     // embedding rows by token id
    {{40, 7}, {2, 3}, 0, 0, false},     // params an activation, C 7
    {{3, 10, 5}, {4}, 1, 0, false},     // middle axis
    {{2, 6, 9}, {6}, -1, 0, false},     // the channel axis
    {{2, 5, 3}, {2, 4}, 1, 1, false},   // batch_dims 1
};

TEST(GatherTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const GatherCase& c : kCases) {
      GlOpTest t(seed++);
      int params = c.const_params ? t.Const(c.params) : t.Input(c.params);
      const int32_t axis = c.axis < 0 ? c.axis + static_cast<int32_t>(c.params.size()) : c.axis;
      const int32_t n = c.params[static_cast<size_t>(axis)];
      int idx = t.InputBytes(c.indices, DataType::kInt32, Bytes(RandomIndices(c.indices, n, seed)));
      AxisAttributes a;
      a.axis = c.axis;
      a.batch_dims = c.batch_dims;
      t.Op(OpType::kGather, {params, idx}, a);
      t.ExpectGpuMatchesCpu(*env, p, "GATHER " + ShapeToString(c.params) + " by " + ShapeToString(c.indices) +
                                         " axis " + std::to_string(c.axis));
    }
  }
}

TEST(GatherTest, ConstantInt64Indices) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(9);
    int params = t.Input({4, 6, 5});
    int idx = t.ConstInts<int64_t>({3}, {5, 0, 2});
    AxisAttributes a;
    a.axis = 1;
    t.Op(OpType::kGather, {params, idx}, a);
    t.ExpectGpuMatchesCpu(*env, p, "GATHER int64 constant indices");
  }
}

TEST(GatherTest, IndexRangeBeyondFp16StorageStaysOnTheCpu) {
  GlOpTest t;
  int params = t.Placeholder({3000, 4});
  int idx = t.Placeholder({1, 5}, DataType::kInt32);
  t.Op(OpType::kGather, {params, idx}, AxisAttributes{});
  ASSERT_TRUE(InferShapes(t.graph).ok());
  std::string why;
  EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32)) << why;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp16));
  EXPECT_NE(why.find("only up to 2048"), std::string::npos) << why;
}

}  // namespace
}  // namespace gld::testing
