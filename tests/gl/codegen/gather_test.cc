// GATHER on the GPU vs the CPU kernel: int32 index tensors uploaded to the
// GPU (embedding lookups), other axes, batch_dims, constant int64 indices;
// the refusal of an index range fp16 storage cannot hold; int32 moved by a
// RESHAPE into a GATHER or a CAST.
#include <gtest/gtest.h>

#include "gl/codegen/support.h"
#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

std::vector<int32_t> RandomIndices(const Shape& shape, int32_t n, uint32_t seed) {
  return RandomInts<int32_t>(static_cast<size_t>(NumElements(shape)), 0, n - 1, seed);
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

// GATHER_ND: rows of 1..rank coordinates from an int32 input; EMBEDDING_LOOKUP
// (ids, table); BROADCAST_TO, which shares elementwise.comp's broadcast map.
TEST(GatherTest, GatherNdMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape params, indices;
  };
  const Case cases[] = {
      {{5, 6}, {4, 2}},          // elements
      {{7, 3, 5}, {2, 3, 1}},    // rows
      {{4, 5, 6}, {3, 2}},       // slices of C 6
      {{3, 4, 2, 5}, {2, 4}},    // depth 4
      {{6, 9}, {1, 1}},          // one row
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 50;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int params = t.Input(c.params);
      const size_t depth = static_cast<size_t>(c.indices.back());
      std::vector<int32_t> idx(static_cast<size_t>(NumElements(c.indices)));
      const std::vector<int32_t> r = RandomInts<int32_t>(idx.size(), 0, 1 << 20, seed);
      for (size_t k = 0; k < idx.size(); ++k) idx[k] = r[k] % c.params[k % depth];
      int i = t.InputBytes(c.indices, DataType::kInt32, Bytes(idx));
      t.Op(OpType::kGatherNd, {params, i});
      t.ExpectGpuMatchesCpu(*env, p, "GATHER_ND " + ShapeToString(c.params) + " by " + ShapeToString(c.indices));
    }
  }
}

TEST(GatherTest, EmbeddingLookupMatchesCpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 60;
    for (const Shape& table : {Shape{30, 8}, Shape{12, 3, 5}, Shape{9, 1}}) {
      GlOpTest t(seed++);
      int ids = t.InputBytes({7}, DataType::kInt32, Bytes(RandomIndices({7}, table[0], seed)));
      int tab = t.Const(table);
      t.Op(OpType::kEmbeddingLookup, {ids, tab});
      t.ExpectGpuMatchesCpu(*env, p, "EMBEDDING_LOOKUP table " + ShapeToString(table));
    }
  }
}

TEST(GatherTest, BroadcastToMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape in, out;
  };
  const Case cases[] = {
      {{1, 5}, {3, 5}}, {{4, 1}, {4, 6}}, {{3}, {2, 4, 3}}, {{1, 3, 1, 6}, {2, 3, 4, 6}}, {{2, 1, 1}, {1, 2, 5, 1}},
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 80;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.in);
      std::vector<int32_t> dims(c.out.begin(), c.out.end());
      int shape = t.ConstInts<int32_t>({static_cast<int32_t>(dims.size())}, dims);
      t.Op(OpType::kBroadcastTo, {x, shape});
      t.ExpectGpuMatchesCpu(*env, p, "BROADCAST_TO " + ShapeToString(c.in) + " -> " + ShapeToString(c.out));
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

// int32 on the GPU through a RESHAPE: ids reshaped on their way to a GATHER,
// an attention mask reshaped on its way to a CAST (BERT's input edge).
TEST(GatherTest, Int32ReshapedIntoGatherAndCast) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(11);
    int params = t.Const({50, 12});
    int ids = t.InputBytes({1, 7}, DataType::kInt32, Bytes(RandomIndices({1, 7}, 50, 3)));
    int flat = t.Tensor({}, DataType::kInt32);
    t.Node(OpType::kReshape, {ids, t.ConstInts<int32_t>({1}, {7})}, {flat}, ReshapeAttributes{});
    t.Op(OpType::kGather, {params, flat}, AxisAttributes{});
    const std::vector<int32_t> mask_values = {1, 1, 0, 1, 0, 0, 3};
    int mask = t.InputBytes({1, 7}, DataType::kInt32, Bytes(mask_values));
    int shaped = t.Tensor({}, DataType::kInt32);
    t.Node(OpType::kReshape, {mask, t.ConstInts<int32_t>({3}, {1, 1, 7})}, {shaped}, ReshapeAttributes{});
    t.Op(OpType::kCast, {shaped});
    // ... and to a bool mask (BERT's attention mask before its LOGICAL_AND).
    int as_bool = t.Output(t.Tensor({}, DataType::kBool));
    t.Node(OpType::kCast, {shaped}, {as_bool});
    t.ExpectGpuMatchesCpu(*env, p, "int32 RESHAPE into GATHER and CAST");
  }
}

// An int32 RESHAPE runs on the GPU only where its readers take int32 held as
// floats, over a range the storage holds exactly.
TEST(GatherTest, Int32ReshapeNeedsReadersThatTakeFloats) {
  std::string why;
  {
    GlOpTest t;  // read by a GATHER of 3000 rows: fp32 only
    int ids = t.Placeholder({1, 5}, DataType::kInt32);
    int flat = t.Tensor({}, DataType::kInt32);
    t.Node(OpType::kReshape, {ids, t.ConstInts<int32_t>({1}, {5})}, {flat}, ReshapeAttributes{});
    t.Op(OpType::kGather, {t.Placeholder({3000, 4}), flat}, AxisAttributes{});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    EXPECT_TRUE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32)) << why;
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp16));
    EXPECT_NE(why.find("only up to 2048"), std::string::npos) << why;
  }
  {
    GlOpTest t;  // read by an int32 ADD: integer arithmetic, not on the GPU
    int ids = t.Placeholder({1, 5}, DataType::kInt32);
    int flat = t.Tensor({}, DataType::kInt32);
    t.Node(OpType::kReshape, {ids, t.ConstInts<int32_t>({1}, {5})}, {flat}, ReshapeAttributes{});
    t.Node(OpType::kAdd, {flat, flat}, {t.Output(t.Tensor({}, DataType::kInt32))}, BinaryAttributes{});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32));
    EXPECT_NE(why.find("is read by node 1 (ADD), which does not take int32 values held as floats"),
              std::string::npos) << why;
  }
  {
    GlOpTest t;  // a graph output: it would come back rounded
    int ids = t.Placeholder({1, 5}, DataType::kInt32);
    int flat = t.Output(t.Tensor({}, DataType::kInt32));
    t.Node(OpType::kReshape, {ids, t.ConstInts<int32_t>({1}, {5})}, {flat}, ReshapeAttributes{});
    ASSERT_TRUE(InferShapes(t.graph).ok());
    EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &why, Precision::kFp32));
    EXPECT_NE(why.find("is a graph output"), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace gld::testing

namespace gld::testing {
namespace {

// DYNAMIC_UPDATE_SLICE on the GPU vs the CPU kernel: a decoder's KV-cache
// write (one position of [1, 64, 2, 16]), lower ranks, a C not a multiple of
// 4, and start indices past either end, which both clamp as TFLite does (the
// update lands inside the operand; nothing is written outside it).
TEST(GatherTest, DynamicUpdateSliceMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape operand, update;
    std::vector<int32_t> starts;
  };
  const Case cases[] = {
      {{1, 64, 2, 16}, {1, 1, 2, 16}, {0, 9, 0, 0}},    // the cache write at position 9
      {{1, 64, 2, 16}, {1, 1, 2, 16}, {0, 70, 0, 0}},   // past the end: clamped to 63
      {{1, 64, 2, 16}, {1, 2, 1, 16}, {0, -5, 1, 0}},   // negative: clamped to 0
      {{5, 7, 6}, {2, 3, 5}, {1, 2, 3}},                // rank 3, clamped on C
      {{9, 10}, {3, 4}, {4, 100}},                      // rank 2
      {{11}, {4}, {8}},                                 // rank 1, clamped to 7
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 90;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int operand = t.Input(c.operand);
      int update = t.Input(c.update);
      int starts = t.InputBytes({static_cast<int32_t>(c.starts.size())}, DataType::kInt32, Bytes(c.starts));
      t.Op(OpType::kDynamicUpdateSlice, {operand, update, starts});
      t.ExpectGpuMatchesCpu(*env, p, "DYNAMIC_UPDATE_SLICE " + ShapeToString(c.update) + " into " +
                                         ShapeToString(c.operand));
    }
  }
}

// STABLEHLO_SCATTER on the GPU vs the CPU kernel, in the forms litert-torch
// emits: index_copy along dimension 1 of a [1, 64, 2, 16] KV cache (decode's
// one position, prefill's eight), positions past either end (skipped, as the
// CPU kernel and StableHLO skip them: the operand stays), a position given
// twice (the later update wins), index_put's full index vectors, a C not a
// multiple of 4, and an implicit index vector dimension.
TEST(GatherTest, StablehloScatterMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape operand, indices, updates;
    std::vector<int32_t> index_values;
    ScatterAttributes attrs;
  };
  ScatterAttributes index_copy;  // index_copy(1, pos, rows) on a rank-4 cache
  index_copy.update_window_dims = {0, 2, 3};
  index_copy.inserted_window_dims = {1};
  index_copy.scatter_dims_to_operand_dims = {1};
  index_copy.index_vector_dim = 1;
  ScatterAttributes rows3 = index_copy;  // the same on a rank-3 tensor
  rows3.update_window_dims = {0, 2};
  ScatterAttributes index_put;  // full (i, j) index vectors, no window
  index_put.inserted_window_dims = {0, 1};
  index_put.scatter_dims_to_operand_dims = {0, 1};
  index_put.index_vector_dim = 1;
  ScatterAttributes implicit;  // rows of a [N, C] tensor by a 1-D index list
  implicit.update_window_dims = {1};
  implicit.inserted_window_dims = {0};
  implicit.scatter_dims_to_operand_dims = {0};
  implicit.index_vector_dim = 1;
  const Case cases[] = {
      {{1, 64, 2, 16}, {1, 1}, {1, 1, 2, 16}, {9}, index_copy},                           // decode at 9
      {{1, 64, 2, 16}, {8, 1}, {1, 8, 2, 16}, {56, 57, 58, 59, 60, 61, 62, 63}, index_copy},  // prefill
      {{1, 64, 2, 16}, {1, 1}, {1, 1, 2, 16}, {64}, index_copy},                          // past the end
      {{1, 64, 2, 16}, {4, 1}, {1, 4, 2, 16}, {-1, 3, 1000000, -70000}, index_copy},      // one of four inside
      {{1, 64, 2, 16}, {3, 1}, {1, 3, 2, 16}, {5, 7, 5}, index_copy},                     // 5 twice: the last wins
      {{5, 7, 3}, {2, 1}, {5, 2, 3}, {6, 0}, rows3},                                      // C 3
      {{3, 6}, {4, 2}, {4}, {2, 1, 0, 0, 2, 1, 3, 0}, index_put},                         // (3, 0) skipped
      {{9, 6}, {3}, {3, 6}, {8, 0, 4}, implicit},                                         // implicit vector dim
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 120;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int operand = t.Input(c.operand);
      int indices = t.InputBytes(c.indices, DataType::kInt32, Bytes(c.index_values));
      int updates = t.Input(c.updates);
      t.Op(OpType::kStablehloScatter, {operand, indices, updates}, c.attrs);
      t.ExpectGpuMatchesCpu(*env, p, "STABLEHLO_SCATTER " + ShapeToString(c.updates) + " into " +
                                         ShapeToString(c.operand) + " at " + ShapeToString(c.indices));
    }
  }
}

}  // namespace
}  // namespace gld::testing
