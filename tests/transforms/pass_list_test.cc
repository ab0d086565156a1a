#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "transforms/pass_list.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ConstantValues;

Status Fails(Graph&, PassLog&) { return InvalidArgumentError("broken"); }

TEST(PassList, RunsPassesInOrderAndStopsAtTheFirstError) {
  Graph g;
  PassLog log;
  std::vector<Pass> passes = {{"ok_pass", RemoveDeadNodes}, {"bad_pass", Fails}, {"never", RemoveDeadNodes}};
  Status s = RunPasses(g, passes, log);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "pass bad_pass: broken");
}

TEST(PassList, DefaultPassesFoldWeightsAndReleaseTheirSource) {
  // x -> FC(x, DEQUANTIZE(w_fp16)) -> y, plus a dead branch.
  Graph g;
  int x = AddTensor(g, "x", {1, 2});
  int wq = AddConstant<uint16_t>(g, "w_fp16", {1, 2}, DataType::kFloat16, {0x3c00, 0x4000});  // 1, 2
  int w = AddTensor(g, "w", {1, 2});
  int y = AddTensor(g, "y", {1, 1});
  int unused = AddTensor(g, "unused", {1, 2});
  AddNode(g, OpType::kDequantize, {wq}, {w}, 0);
  AddNode(g, OpType::kFullyConnected, {x, w, kNoTensor}, {y}, 1, FullyConnectedAttributes{});
  AddNode(g, OpType::kRelu, {x}, {unused}, 2);
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  Status s = RunDefaultPasses(g, log);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpType::kFullyConnected);
  EXPECT_EQ(ConstantValues<float>(g.tensors[w]), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_TRUE(g.tensors[wq].data.empty()) << "the float16 source is released";
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[0].rfind("fold_constant_dequantize: node 0 (DEQUANTIZE)", 0), 0u) << log.lines[0];
  EXPECT_EQ(log.lines[1].rfind("remove_dead_nodes: node 2 (RELU)", 0), 0u) << log.lines[1];
  EXPECT_EQ(log.lines[2], "release_unused_constants: freed 4 bytes of 1 unused constant tensor");
}

TEST(ReleaseUnusedConstants, KeepsConstantsStillReadOrOutput) {
  Graph g;
  int a = AddConstant<float>(g, "a", {1}, DataType::kFloat32, {1});
  int b = AddConstant<float>(g, "b", {1}, DataType::kFloat32, {2});
  int c = AddConstant<float>(g, "c", {1}, DataType::kFloat32, {3});
  int y = AddTensor(g, "y", {1});
  AddNode(g, OpType::kNeg, {a}, {y});
  g.outputs = {y, b};
  PassLog log;
  ASSERT_TRUE(ReleaseUnusedConstants(g, log).ok());
  EXPECT_FALSE(g.tensors[a].data.empty());
  EXPECT_FALSE(g.tensors[b].data.empty());
  EXPECT_TRUE(g.tensors[c].data.empty());
  EXPECT_EQ(log.lines.size(), 1u);
}

}  // namespace
}  // namespace gld
