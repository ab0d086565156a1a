#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddNode;
using testing::AddTensor;

TEST(RemoveDeadNodes, RemovesChainsThatReachNoOutput) {
  Graph g;
  int x = AddTensor(g, "x", {4});
  int a = AddTensor(g, "a", {4});
  int dead1 = AddTensor(g, "dead1", {4});
  int dead2 = AddTensor(g, "dead2", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {a}, 0);
  AddNode(g, OpType::kTanh, {a}, {dead1}, 1);       // read only by node 2, which is dead
  AddNode(g, OpType::kExp, {dead1}, {dead2}, 2);    // output unused
  AddNode(g, OpType::kLogistic, {a}, {y}, 3);
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(RemoveDeadNodes(g, log).ok());
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, OpType::kRelu);
  EXPECT_EQ(g.nodes[1].op, OpType::kLogistic);
  EXPECT_EQ(g.nodes[1].outputs[0], y);
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_EQ(log.lines[0], "remove_dead_nodes: node 1 (TANH) removed: no graph output depends on 'dead1' [4] float32");
  EXPECT_EQ(log.lines[1], "remove_dead_nodes: node 2 (EXP) removed: no graph output depends on 'dead2' [4] float32");
  EXPECT_EQ(g.tensors.size(), 5u) << "tensors are kept so indices stay stable";
}

TEST(RemoveDeadNodes, KeepsMultiOutputNodeWithOneUsedOutput) {
  Graph g;
  int x = AddTensor(g, "x", {2, 4});
  int axis = AddTensor(g, "axis", {});
  g.tensors[axis].is_constant = true;
  g.tensors[axis].type = DataType::kInt32;
  g.tensors[axis].data = {1, 0, 0, 0};
  int p = AddTensor(g, "p", {2, 2});
  int q = AddTensor(g, "q", {2, 2});
  AddNode(g, OpType::kSplit, {axis, x}, {p, q});
  g.inputs = {x};
  g.outputs = {q};
  PassLog log;
  ASSERT_TRUE(RemoveDeadNodes(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(RemoveDeadNodes, KeepsNodesWritingVariables) {
  Graph g;
  int x = AddTensor(g, "x", {4});
  int state = AddTensor(g, "state", {4});
  g.tensors[state].is_variable = true;
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {state});
  AddNode(g, OpType::kNeg, {x}, {y});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(RemoveDeadNodes(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 2u);
}

}  // namespace
}  // namespace gld
