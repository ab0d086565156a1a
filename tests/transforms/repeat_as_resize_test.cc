#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "graph_runner.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ExpectSameOutputs;

// RESHAPE `from` -> `expanded`, TILE by `multiples`, RESHAPE -> `to`.
int Repeat(Graph& g, int from, const Shape& expanded, const std::vector<int32_t>& multiples, const Shape& to,
           int first_index) {
  const int e = AddTensor(g, "e" + std::to_string(first_index), expanded);
  Shape tiled = expanded;
  for (size_t d = 0; d < tiled.size(); ++d) tiled[d] *= multiples[d];
  const int t = AddTensor(g, "t" + std::to_string(first_index), tiled);
  const int out = AddTensor(g, "r" + std::to_string(first_index), to);
  const int es = AddConstant<int32_t>(g, "es", {static_cast<int>(expanded.size())}, DataType::kInt32,
                                      std::vector<int32_t>(expanded.begin(), expanded.end()));
  const int m = AddConstant<int32_t>(g, "m", {static_cast<int>(multiples.size())}, DataType::kInt32, multiples);
  const int ts = AddConstant<int32_t>(g, "ts", {static_cast<int>(to.size())}, DataType::kInt32,
                                      std::vector<int32_t>(to.begin(), to.end()));
  AddNode(g, OpType::kReshape, {from, es}, {e}, first_index);
  AddNode(g, OpType::kTile, {e, m}, {t}, first_index + 1);
  AddNode(g, OpType::kReshape, {t, ts}, {out}, first_index + 2);
  return out;
}

// Keras 3's UpSampling2D((2, 3)) on [2, 4, 5, 3]: rows, then columns.
TEST(RepeatAsResize, KerasUpSamplingBecomesOneNearestResize) {
  Graph g;
  const int x = AddTensor(g, "x", {2, 4, 5, 3});
  const int rows = Repeat(g, x, {2, 4, 1, 5, 3}, {1, 1, 2, 1, 1}, {2, 8, 5, 1, 3}, 0);
  // The converter merges the rows and opens the column axis in one RESHAPE;
  // here the row repeat ends on a rank-5 tensor that the column one reshapes.
  const int y = Repeat(g, rows, {2, 8, 5, 1, 3}, {1, 1, 1, 3, 1}, {2, 8, 15, 3}, 3);
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(RepeatAsResize(graph, log).ok()); });
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.op, OpType::kResizeNearestNeighbor);
  EXPECT_EQ(n.inputs[0], x);
  EXPECT_EQ(n.outputs[0], y);
  EXPECT_EQ(n.fused_names.size(), 6u);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(log.lines[0].find("2x3"), std::string::npos) << log.lines[0];
}

TEST(RepeatAsResize, LeavesTilesThatAreNotAnUpsampling) {
  {  // the whole image twice, one above the other: a tile, not a repeat
    Graph g;
    const int x = AddTensor(g, "x", {1, 4, 5, 3});
    const int y = Repeat(g, x, {1, 1, 4, 5, 3}, {1, 2, 1, 1, 1}, {1, 8, 5, 3}, 0);
    g.inputs = {x};
    g.outputs = {y};
    PassLog log;
    ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(RepeatAsResize(graph, log).ok()); });
    EXPECT_EQ(g.nodes.size(), 3u);
    EXPECT_TRUE(log.lines.empty());
  }
  {  // channels repeated: the output's channels differ from the input's
    Graph g;
    const int x = AddTensor(g, "x", {1, 4, 5, 3});
    const int y = Repeat(g, x, {1, 4, 5, 3, 1}, {1, 1, 1, 1, 2}, {1, 4, 5, 6}, 0);
    g.inputs = {x};
    g.outputs = {y};
    PassLog log;
    ASSERT_TRUE(RepeatAsResize(g, log).ok());
    EXPECT_EQ(g.nodes.size(), 3u);
  }
  {  // an intermediate tensor read elsewhere stays
    Graph g;
    const int x = AddTensor(g, "x", {1, 4, 5, 3});
    const int y = Repeat(g, x, {1, 4, 1, 5, 3}, {1, 1, 2, 1, 1}, {1, 8, 5, 3}, 0);
    g.inputs = {x};
    g.outputs = {y, 1 + x};  // "e0", the first RESHAPE's output
    PassLog log;
    ASSERT_TRUE(RepeatAsResize(g, log).ok());
    EXPECT_EQ(g.nodes.size(), 3u);
  }
}

}  // namespace
}  // namespace gld
