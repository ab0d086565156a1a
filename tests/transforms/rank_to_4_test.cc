// transpose_to_rank4 and merge_reshapes on PyTorch's rank-5/6 idioms: the
// channel shuffle, pixel_shuffle, Swin's window partition and the q/k/v
// split. Each graph runs on the CPU kernels before and after on the same
// distinct values (so equal outputs mean every element came from the same
// place), and after them no node reads or writes a tensor above rank 4
// except a graph input or output that has that rank.
#include <gtest/gtest.h>

#include <numeric>

#include "common/graph_builder.h"
#include "graph_runner.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ExpectSameOutputs;

int Reshape(Graph& g, int x, const Shape& to, const std::string& name) {
  const int out = AddTensor(g, name, to);
  const int s = AddConstant<int32_t>(g, name + "/s", {static_cast<int>(to.size())}, DataType::kInt32,
                                     std::vector<int32_t>(to.begin(), to.end()));
  AddNode(g, OpType::kReshape, {x, s}, {out});
  return out;
}

int Transpose(Graph& g, int x, const std::vector<int32_t>& perm, const std::string& name) {
  const Shape& in = g.tensors[static_cast<size_t>(x)].shape;
  Shape to;
  for (int32_t p : perm) to.push_back(in[static_cast<size_t>(p)]);
  const int out = AddTensor(g, name, to);
  const int pc = AddConstant<int32_t>(g, name + "/p", {static_cast<int>(perm.size())}, DataType::kInt32, perm);
  AddNode(g, OpType::kTranspose, {x, pc}, {out});
  return out;
}

// Both passes; the largest rank of a tensor a node touches that is neither
// a graph input nor output.
void Lower(Graph& graph, PassLog& log) {
  ASSERT_TRUE(TransposeToRank4(graph, log).ok());
  ASSERT_TRUE(MergeReshapes(graph, log).ok());
}

size_t MaxInnerRank(const Graph& g) {
  size_t rank = 0;
  for (const Node& n : g.nodes) {
    for (const std::vector<int>* list : {&n.inputs, &n.outputs}) {
      for (int t : *list) {
        if (t < 0 || g.IsGraphOutput(t) || g.IsGraphInput(t)) continue;
        rank = std::max(rank, g.tensors[static_cast<size_t>(t)].shape.size());
      }
    }
  }
  return rank;
}

size_t Count(const Graph& g, OpType op) {
  size_t n = 0;
  for (const Node& node : g.nodes) n += node.op == op ? 1 : 0;
  return n;
}

// ShuffleNetV2's channel shuffle in NCHW: [1, 8, 4, 5] -> [1, 2, 4, 4, 5]
// perm 0 2 1 3 4 -> [1, 8, 4, 5]: one rank-3 transpose [2, 4, 20] perm 1 0 2.
TEST(TransposeToRank4, ChannelShuffleBecomesOneRank3Transpose) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 8, 4, 5});
  const int y = Reshape(g, Transpose(g, Reshape(g, x, {1, 2, 4, 4, 5}, "split"), {0, 2, 1, 3, 4}, "t"), {1, 8, 4, 5},
                        "y");
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { Lower(graph, log); });
  EXPECT_EQ(MaxInnerRank(g), 3u);
  ASSERT_EQ(Count(g, OpType::kTranspose), 1u);
  EXPECT_EQ(g.nodes.size(), 3u);  // RESHAPE, TRANSPOSE, RESHAPE
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kTranspose) {
      EXPECT_EQ(g.tensors[static_cast<size_t>(n.inputs[0])].shape, Shape({2, 4, 20}));
    }
  }
}

// pixel_shuffle(r = 2) in NCHW: [1, 8, 3, 5] -> [1, 2, 2, 2, 3, 5] perm
// 0 1 4 2 5 3 -> [1, 2, 3, 2, 5, 2] -> [1, 2, 6, 10]. Five dimensions stay
// after merging, so it takes rank-4 steps; checked on the element indices
// too: out[c, y, x] = in[c * 4 + (y % 2) * 2 + x % 2, y / 2, x / 2].
TEST(TransposeToRank4, PixelShuffleBecomesRank4Steps) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 8, 3, 5});
  const int t = Transpose(g, Reshape(g, x, {1, 2, 2, 2, 3, 5}, "split"), {0, 1, 4, 2, 5, 3}, "t");
  const int y = Reshape(g, t, {1, 2, 6, 10}, "y");
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { Lower(graph, log); });
  EXPECT_LE(MaxInnerRank(g), 4u);
  EXPECT_GE(Count(g, OpType::kTranspose), 2u);
  std::vector<float> iota(120);
  std::iota(iota.begin(), iota.end(), 0.f);
  auto out = testing::RunOnCpu(g, {iota});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (int c = 0; c < 2; ++c) {
    for (int yy = 0; yy < 6; ++yy) {
      for (int xx = 0; xx < 10; ++xx) {
        const int src = ((c * 4 + (yy % 2) * 2 + xx % 2) * 3 + yy / 2) * 5 + xx / 2;
        ASSERT_EQ((*out)[0][static_cast<size_t>((c * 6 + yy) * 10 + xx)], static_cast<float>(src)) << c << yy << xx;
      }
    }
  }
}

// Swin's window partition (NHWC, window 4): [1, 8, 8, 3] -> [1, 2, 4, 2, 4, 3]
// perm 0 1 3 2 4 5 -> [4, 4, 4, 3] and its reverse.
TEST(TransposeToRank4, WindowPartitionAndReverse) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 8, 8, 3});
  const int w = Reshape(g, Transpose(g, Reshape(g, x, {1, 2, 4, 2, 4, 3}, "a"), {0, 1, 3, 2, 4, 5}, "b"), {4, 4, 4, 3},
                        "windows");
  const int back = Reshape(g, Transpose(g, Reshape(g, w, {1, 2, 2, 4, 4, 3}, "c"), {0, 1, 3, 2, 4, 5}, "d"),
                           {1, 8, 8, 3}, "y");
  g.inputs = {x};
  g.outputs = {w, back};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { Lower(graph, log); });
  EXPECT_EQ(MaxInnerRank(g), 4u);
  EXPECT_EQ(Count(g, OpType::kTranspose), 2u);
}

// The q/k/v split of timm's attention: [1, 6, 24] -> [1, 6, 3, 2, 4] perm
// 2 0 3 1 4 -> [3, 1, 2, 6, 4]: the batch dropped, the q/k/v and head axes
// stay adjacent: one rank-3 transpose [6, 6, 4] perm 1 0 2.
TEST(TransposeToRank4, QkvSplitDropsTheUnitBatch) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 6, 24});
  const int t = Transpose(g, Reshape(g, x, {1, 6, 3, 2, 4}, "qkv"), {2, 0, 3, 1, 4}, "t");
  const int y = Reshape(g, t, {3, 2, 6, 4}, "y");
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { Lower(graph, log); });
  EXPECT_EQ(MaxInnerRank(g), 3u);
  ASSERT_EQ(Count(g, OpType::kTranspose), 1u);
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kTranspose) {
      EXPECT_EQ(g.tensors[static_cast<size_t>(n.inputs[0])].shape, Shape({6, 6, 4}));
    }
  }
}

TEST(TransposeToRank4, LeavesRank4AndFreeDimensions) {
  Graph g;
  const int x = AddTensor(g, "x", {2, 3, 4, 5});
  const int y = Transpose(g, x, {0, 2, 1, 3}, "y");
  const int z = AddTensor(g, "z", {2, 1, 3, 4, 5});
  g.tensors[static_cast<size_t>(z)].signature = {-1, 1, 3, 4, 5};
  const int w = Transpose(g, z, {0, 1, 3, 2, 4}, "w");
  g.inputs = {x, z};
  g.outputs = {y, w};
  PassLog log;
  ASSERT_TRUE(TransposeToRank4(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 2u);
  EXPECT_TRUE(log.lines.empty());
}

// A reshape chain through rank 5 with another reader of the middle tensor:
// the chain is merged, the first RESHAPE stays for the other reader.
TEST(MergeReshapes, JoinsChainsAndKeepsReadMiddles) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 4, 6});
  const int mid = Reshape(g, x, {1, 4, 2, 3, 1}, "mid");
  const int y = Reshape(g, mid, {4, 6}, "y");
  const int same = Reshape(g, Reshape(g, x, {24}, "flat"), {1, 4, 6}, "same");
  const int z = AddTensor(g, "z", {1, 4, 6});
  AddNode(g, OpType::kAdd, {same, x}, {z});
  g.inputs = {x};
  g.outputs = {y, mid, z};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(MergeReshapes(graph, log).ok()); });
  // mid's RESHAPE (a graph output), y's from x, and the ADD reading x twice.
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[1].inputs[0], x);
  EXPECT_EQ(g.nodes[2].op, OpType::kAdd);
  EXPECT_EQ(g.nodes[2].inputs[0], x);
}

// q, k and v out of the transposed [3, 1, 2, 6, 4]: SLICE and STRIDED_SLICE
// (shrink_axis_mask on the first axis) of rank 5 as slices of rank 1 or 2.
TEST(SliceToRank4, QkvSlicesOfTheUnitBatchView) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 6, 24});
  const int t = Transpose(g, Reshape(g, x, {1, 6, 3, 2, 4}, "qkv"), {2, 0, 3, 1, 4}, "t");
  const int q5 = AddTensor(g, "q5", {1, 1, 2, 6, 4});
  AddNode(g, OpType::kSlice,
          {t, AddConstant<int32_t>(g, "b", {5}, DataType::kInt32, {0, 0, 0, 0, 0}),
           AddConstant<int32_t>(g, "s", {5}, DataType::kInt32, {1, -1, -1, -1, -1})},
          {q5});
  const int q = Reshape(g, q5, {1, 2, 6, 4}, "q");
  const int k = AddTensor(g, "k", {1, 2, 6, 4});
  StridedSliceAttributes a;
  a.shrink_axis_mask = 1;
  a.end_mask = 30;
  AddNode(g, OpType::kStridedSlice,
          {t, AddConstant<int32_t>(g, "kb", {5}, DataType::kInt32, {1, 0, 0, 0, 0}),
           AddConstant<int32_t>(g, "ke", {5}, DataType::kInt32, {2, 0, 0, 0, 0}),
           AddConstant<int32_t>(g, "ks", {5}, DataType::kInt32, {1, 1, 1, 1, 1})},
          {k}, -1, a);
  // v with a slice that starts inside the second axis: [1, 1, 1, 6, 4] at (2, 0, 1).
  const int v = AddTensor(g, "v", {1, 1, 1, 6, 4});
  AddNode(g, OpType::kSlice,
          {t, AddConstant<int32_t>(g, "vb", {5}, DataType::kInt32, {2, 0, 1, 0, 0}),
           AddConstant<int32_t>(g, "vs", {5}, DataType::kInt32, {1, 1, 1, 6, 4})},
          {v});
  g.inputs = {x};
  g.outputs = {q, k, v};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) {
    Lower(graph, log);
    ASSERT_TRUE(SliceToRank4(graph, log).ok());
    ASSERT_TRUE(MergeReshapes(graph, log).ok());
  });
  EXPECT_LE(MaxInnerRank(g), 4u);
  // q and k: rows of the flat [144]; v starts inside the head axis: [3, 48].
  std::vector<Shape> views;
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kSlice) views.push_back(g.tensors[static_cast<size_t>(n.inputs[0])].shape);
    EXPECT_NE(n.op, OpType::kStridedSlice);
  }
  EXPECT_EQ(views, (std::vector<Shape>{{144}, {144}, {3, 48}}));
}

// Swin's Linear on the rank-6 window view: [1, 2, 2, 3, 3, 4] x [5, 4]^T.
TEST(FullyConnectedToRank4, RowsOfARank6View) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 2, 2, 3, 3, 4});
  std::vector<float> w(20), b(5);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * static_cast<float>(i) - 0.7f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = 0.2f * static_cast<float>(i);
  const int y = AddTensor(g, "y", {1, 2, 2, 3, 3, 5});
  FullyConnectedAttributes a;
  a.keep_num_dims = true;
  AddNode(g, OpType::kFullyConnected,
          {x, AddConstant<float>(g, "w", {5, 4}, DataType::kFloat32, w),
           AddConstant<float>(g, "b", {5}, DataType::kFloat32, b)},
          {y}, -1, a);
  const int z = Reshape(g, y, {1, 36, 5}, "z");
  g.inputs = {x};
  g.outputs = {z};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) {
    ASSERT_TRUE(FullyConnectedToRank4(graph, log).ok());
    ASSERT_TRUE(MergeReshapes(graph, log).ok());
  });
  EXPECT_EQ(MaxInnerRank(g), 2u);
  ASSERT_EQ(Count(g, OpType::kFullyConnected), 1u);
  EXPECT_EQ(g.nodes.size(), 3u);
}


// grid_sample's gather: [1, 2, 3, 4, 1] index columns (a constant row id, a
// column from the input) concatenated on the last axis into rank-5 indices
// of a GATHER_ND on [2, 4]; after concat_gather_nd_to_rank4 and
// merge_reshapes no inner tensor is above rank 4.
TEST(ConcatGatherNdToRank4, GridSampleIndices) {
  Graph g;
  const int params = AddTensor(g, "params", {2, 4});
  const int y = AddTensor(g, "y", {1, 2, 3, 4});
  const int shifted = AddTensor(g, "shifted", {1, 2, 3, 4});
  AddNode(g, OpType::kAdd, {y, AddConstant<float>(g, "two", {}, DataType::kFloat32, {2.f})}, {shifted});
  const int floored = AddTensor(g, "floored", {1, 2, 3, 4});
  AddNode(g, OpType::kFloor, {shifted}, {floored});
  const int cols = AddTensor(g, "cols", {1, 2, 3, 4}, DataType::kInt32);
  AddNode(g, OpType::kCast, {floored}, {cols});
  std::vector<int32_t> row_ids(24);
  for (size_t i = 0; i < row_ids.size(); ++i) row_ids[i] = static_cast<int32_t>(i % 2);
  const int rows = AddConstant<int32_t>(g, "rows", {1, 2, 3, 4, 1}, DataType::kInt32, row_ids);
  const int col5 = AddTensor(g, "col5", {1, 2, 3, 4, 1}, DataType::kInt32);
  AddNode(g, OpType::kReshape,
          {cols, AddConstant<int32_t>(g, "s5", {5}, DataType::kInt32, {1, 2, 3, 4, 1})}, {col5});
  const int indices = AddTensor(g, "indices", {1, 2, 3, 4, 2}, DataType::kInt32);
  ConcatenationAttributes c;
  c.axis = -1;
  AddNode(g, OpType::kConcatenation, {rows, col5}, {indices}, -1, c);
  const int out = AddTensor(g, "out", {1, 2, 3, 4});
  AddNode(g, OpType::kGatherNd, {params, indices}, {out});
  g.inputs = {params, y};
  g.outputs = {out};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) {
    ASSERT_TRUE(ConcatGatherNdToRank4(graph, log).ok());
    ASSERT_TRUE(MergeReshapes(graph, log).ok());
  });
  EXPECT_LE(MaxInnerRank(g), 4u);
  EXPECT_GE(log.lines.size(), 2u);
}

}  // namespace
}  // namespace gld
