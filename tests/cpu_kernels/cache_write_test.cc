// The cache writes of generative decoders on the CPU: DYNAMIC_UPDATE_SLICE
// (starts clamped so the update fits, as TFLite) and STABLEHLO_SCATTER in
// the forms litert-torch emits (index_copy: one index per updated row;
// index_put: a full index per element).
// The decoders test (tests/models/decoders_test.cc) checks both against
// LiteRT inside whole models.
#include <string>
#include <vector>

#include "op_test_util.h"

namespace gld::testing {
namespace {

TEST(DynamicUpdateSlice, WritesAtTheStartsAndClamps) {
  // A [1, 4, 2] cache, a [1, 1, 2] update at position 2.
  OpTest t;
  const int cache = t.Input<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const int update = t.Input<float>({1, 1, 2}, {-1, -2});
  const int out = t.Output();
  t.Node(OpType::kDynamicUpdateSlice, {cache, update, t.Input<int32_t>({3}, {0, 2, 0})}, {out});
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<float>(out), (std::vector<float>{0, 1, 2, 3, -1, -2, 6, 7}));
  // Starts past the end (and negative) are clamped: the update lands at the
  // last row, the first column.
  OpTest c;
  const int out2 = c.Output();
  c.Node(OpType::kDynamicUpdateSlice,
         {c.Input<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), c.Input<float>({1, 2, 1}, {-1, -2}),
          c.Input<int64_t>({3}, {0, 9, -3})},
         {out2});
  GLD_ASSERT_OK(c.Run());
  EXPECT_EQ(c.Get<float>(out2), (std::vector<float>{0, 1, 2, 3, -1, 5, -2, 7}));
}

TEST(DynamicUpdateSlice, RefusesAnUpdateLargerThanTheOperand) {
  OpTest t;
  t.Node(OpType::kDynamicUpdateSlice,
         {t.Input<float>({2, 2}, {0, 0, 0, 0}), t.Input<float>({3, 1}, {1, 2, 3}), t.Input<int32_t>({2}, {0, 0})},
         {t.Output()});
  const Status s = t.Run();
  EXPECT_NE(s.message().find("does not fit"), std::string::npos) << s.message();
}

// index_copy(1, pos, k) on a [1, 4, 2] cache: indices [2, 1] (the
// positions, index_vector_dim 1), update_window_dims {0, 2},
// inserted_window_dims {1}, scatter_dims_to_operand_dims {1}.
ScatterAttributes IndexCopyAttrs() {
  ScatterAttributes a;
  a.update_window_dims = {0, 2};
  a.inserted_window_dims = {1};
  a.scatter_dims_to_operand_dims = {1};
  a.index_vector_dim = 1;
  return a;
}

TEST(StablehloScatter, IndexCopyReplacesRows) {
  OpTest t;
  const int cache = t.Input<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const int pos = t.Input<int32_t>({2, 1}, {3, 0});
  const int rows = t.Input<float>({1, 2, 2}, {-1, -2, -3, -4});  // row 0 -> position 3, row 1 -> 0
  const int out = t.Output();
  t.Node(OpType::kStablehloScatter, {cache, pos, rows}, {out}, IndexCopyAttrs());
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<float>(out), (std::vector<float>{-3, -4, 2, 3, 4, 5, -1, -2}));
}

TEST(StablehloScatter, OutOfRangeIndicesAreSkipped) {
  OpTest t;
  const int cache = t.Input<float>({1, 4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const int pos = t.Input<int32_t>({2, 1}, {1, 4});  // 4 is past the end: skipped
  const int out = t.Output();
  t.Node(OpType::kStablehloScatter, {cache, pos, t.Input<float>({1, 2, 2}, {10, 20, 30, 40})}, {out},
         IndexCopyAttrs());
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<float>(out), (std::vector<float>{0, 1, 10, 20, 4, 5, 6, 7}));
}

// index_put((i, j), v) on a [3, 2] operand: full index vectors, no window.
TEST(StablehloScatter, IndexPutWritesElements) {
  ScatterAttributes a;
  a.inserted_window_dims = {0, 1};
  a.scatter_dims_to_operand_dims = {0, 1};
  a.index_vector_dim = 1;
  OpTest t;
  const int out = t.Output();
  t.Node(OpType::kStablehloScatter,
         {t.Input<float>({3, 2}, {0, 0, 0, 0, 0, 0}), t.Input<int64_t>({2, 2}, {2, 1, 0, 0}),
          t.Input<float>({2}, {5, 6})},
         {out}, a);
  GLD_ASSERT_OK(t.Run());
  EXPECT_EQ(t.Get<float>(out), (std::vector<float>{6, 0, 0, 0, 0, 5}));
}

TEST(StablehloScatter, RefusesDimensionNumbersThatDoNotFit) {
  ScatterAttributes a = IndexCopyAttrs();
  a.update_window_dims = {0, 5};
  OpTest t;
  t.Node(OpType::kStablehloScatter,
         {t.Input<float>({1, 4, 2}, std::vector<float>(8, 0)), t.Input<int32_t>({1, 1}, {0}),
          t.Input<float>({1, 1, 2}, {1, 2})},
         {t.Output()}, a);
  const Status s = t.Run();
  EXPECT_NE(s.message().find("out of range"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gld::testing
