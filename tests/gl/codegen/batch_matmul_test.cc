// BATCH_MATMUL on the GPU vs the CPU kernel: adj_x / adj_y, K and N not
// multiples of 4, broadcast batch dimensions, constant operands, and an
// elementwise node fused into its epilogue.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

struct MatMulCase {
  Shape x, y;
  bool adj_x, adj_y;
};

const MatMulCase kCases[] = {
    {{1, 4, 17, 16}, {1, 4, 17, 16}, false, true},  // attention logits: Q K^T
    {{1, 4, 17, 17}, {1, 4, 17, 16}, false, false}, // attention values
    {{2, 7, 5}, {2, 5, 9}, false, false},
    {{2, 5, 7}, {2, 5, 9}, true, false},
    {{2, 5, 7}, {2, 9, 5}, true, true},
    {{3, 6}, {6, 3}, false, false},                 // rank 2: rows on the batch axis
    {{2, 1, 3, 6}, {1, 4, 6, 5}, false, false},     // broadcast on both sides
    {{6, 11}, {2, 3, 11, 2}, false, false},         // rank-2 lhs against rank-4 rhs
};

TEST(BatchMatMulTest, MatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const MatMulCase& c : kCases) {
      GlOpTest t(seed++);
      int x = t.Input(c.x, -1, 1);
      int y = t.Input(c.y, -1, 1);
      t.Op(OpType::kBatchMatMul, {x, y}, BatchMatMulAttributes{c.adj_x, c.adj_y});
      t.ExpectGpuMatchesCpu(*env, p, "BATCH_MATMUL " + ShapeToString(c.x) + (c.adj_x ? "^T" : "") + " x " +
                                         ShapeToString(c.y) + (c.adj_y ? "^T" : ""));
    }
  }
}

TEST(BatchMatMulTest, ConstantOperandAndFusedEpilogue) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(7);
    int x = t.Input({1, 2, 9, 6}, -1, 1);
    int w = t.Const({1, 2, 10, 6});
    int mm = t.Tensor();
    t.Node(OpType::kBatchMatMul, {x, w}, {mm}, BatchMatMulAttributes{false, true});
    int scale = t.Const({10});
    t.Op(OpType::kMul, {mm, scale}, BinaryAttributes{});
    t.ExpectGpuMatchesCpu(*env, p, "BATCH_MATMUL + MUL");
    ASSERT_NE(t.segment, nullptr);
    EXPECT_EQ(t.segment->dispatches(), 3) << "upload, the matmul with its epilogue, download";
  }
}

}  // namespace
}  // namespace gld::testing
