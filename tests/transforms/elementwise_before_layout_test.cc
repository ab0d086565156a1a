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
using testing::RandomFloats;

int Perm(Graph& g, const std::string& name, const std::vector<int32_t>& perm) {
  return AddConstant<int32_t>(g, name, {static_cast<int>(perm.size())}, DataType::kInt32, perm);
}

// BatchNorm1d on the NCW view of an NHWC [1, 1, 6, 4] tensor, as litert-torch
// writes it after a Conv1d (elementwise_before_layout.cc).
struct NcwAffine {
  Graph g;
  int x, y, mul, add;
  NcwAffine() {
    x = AddTensor(g, "x", {1, 1, 6, 4});
    int t = AddTensor(g, "t", {1, 4, 1, 6});
    int r = AddTensor(g, "r", {1, 4, 6});
    int m = AddTensor(g, "m", {1, 4, 6});
    int a = AddTensor(g, "a", {1, 4, 6});
    int r2 = AddTensor(g, "r2", {1, 4, 1, 6});
    y = AddTensor(g, "y", {1, 1, 6, 4});
    int scale = AddConstant<float>(g, "scale", {1, 4, 1}, DataType::kFloat32, RandomFloats(4, 1, 0.5f, 1.5f));
    int shift = AddConstant<float>(g, "shift", {4, 1}, DataType::kFloat32, RandomFloats(4, 2, -1.f, 1.f));
    int s3 = AddConstant<int32_t>(g, "s3", {3}, DataType::kInt32, {1, 4, 6});
    int s4 = AddConstant<int32_t>(g, "s4", {4}, DataType::kInt32, {1, 4, 1, 6});
    AddNode(g, OpType::kTranspose, {x, Perm(g, "p", {0, 3, 1, 2})}, {t}, 0);
    AddNode(g, OpType::kReshape, {t, s3}, {r}, 1, ReshapeAttributes{{1, 4, 6}, true});
    mul = AddNode(g, OpType::kMul, {r, scale}, {m}, 2, BinaryAttributes{});
    add = AddNode(g, OpType::kAdd, {m, shift}, {a}, 3, BinaryAttributes{});
    AddNode(g, OpType::kReshape, {a, s4}, {r2}, 4, ReshapeAttributes{{1, 4, 1, 6}, true});
    AddNode(g, OpType::kTranspose, {r2, Perm(g, "q", {0, 2, 3, 1})}, {y}, 5);
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(ElementwiseBeforeLayout, TheAffineReadsTheNhwcTensorAndTheLayoutCancels) {
  NcwAffine m;
  PassLog log;
  ExpectSameOutputs(m.g, [&](Graph& g) {
    ASSERT_TRUE(ElementwiseBeforeLayout(g, log).ok());
    ASSERT_TRUE(MergeReshapes(g, log).ok());
    ASSERT_TRUE(MergeTransposes(g, log).ok());
    ASSERT_TRUE(RemoveNoops(g, log).ok());
  });
  ASSERT_EQ(m.g.nodes.size(), 2u);
  EXPECT_EQ(m.g.nodes[0].op, OpType::kMul);
  EXPECT_EQ(m.g.nodes[0].inputs[0], m.x);
  EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.g.nodes[0].inputs[1])].shape, (Shape{1, 1, 1, 4})) << "per channel";
  EXPECT_EQ(m.g.nodes[1].op, OpType::kAdd);
  EXPECT_EQ(m.g.nodes[1].outputs[0], m.y) << "the graph output keeps its tensor";
}

// A constant with two non-unit dimensions, the constant the first operand
// (SUB is not commutative), through a rank-3 TRANSPOSE: its values move.
TEST(ElementwiseBeforeLayout, TransposesAConstantOfSeveralDimensions) {
  Graph g;
  int x = AddTensor(g, "x", {2, 3, 4});
  int t = AddTensor(g, "t", {4, 2, 3});
  int y = AddTensor(g, "y", {4, 2, 3});
  int c = AddConstant<float>(g, "c", {4, 1, 3}, DataType::kFloat32, RandomFloats(12, 3, -2.f, 2.f));
  AddNode(g, OpType::kTranspose, {x, Perm(g, "p", {2, 0, 1})}, {t}, 0);
  AddNode(g, OpType::kSub, {c, t}, {y}, 1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& h) { ASSERT_TRUE(ElementwiseBeforeLayout(h, log).ok()); });
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, OpType::kSub);
  EXPECT_EQ(g.nodes[0].inputs[1], x);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.nodes[0].inputs[0])].shape, (Shape{1, 3, 4}));
  EXPECT_EQ(g.nodes[1].op, OpType::kTranspose);
  EXPECT_EQ(g.nodes[1].outputs[0], y);
}

TEST(ElementwiseBeforeLayout, LeavesAViewReadElsewhereOrBroadcastToMore) {
  {
    NcwAffine m;
    int other = AddTensor(m.g, "other", {1, 4, 6});
    AddNode(m.g, OpType::kRelu, {m.g.nodes[1].outputs[0]}, {other}, 6);  // the NCW view has a second reader
    m.g.outputs.push_back(other);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(ElementwiseBeforeLayout(g, log).ok()); });
    EXPECT_EQ(m.g.nodes[2].op, OpType::kMul);
    EXPECT_EQ(m.g.nodes[2].inputs[0], m.g.nodes[1].outputs[0]) << "the MUL stays on the view";
  }
  {
    // [1, 4, 1] * [1, 4, 6]: the op widens its input, nothing moves.
    Graph g;
    int x = AddTensor(g, "x", {1, 1, 4});
    int t = AddTensor(g, "t", {1, 4, 1});
    int y = AddTensor(g, "y", {1, 4, 6});
    int c = AddConstant<float>(g, "c", {1, 4, 6}, DataType::kFloat32, RandomFloats(24, 4, -1.f, 1.f));
    AddNode(g, OpType::kTranspose, {x, Perm(g, "p", {0, 2, 1})}, {t}, 0);
    AddNode(g, OpType::kMul, {t, c}, {y}, 1, BinaryAttributes{});
    g.inputs = {x};
    g.outputs = {y};
    PassLog log;
    ASSERT_TRUE(ElementwiseBeforeLayout(g, log).ok());
    EXPECT_EQ(g.nodes[0].op, OpType::kTranspose);
    EXPECT_TRUE(log.lines.empty());
  }
}

// Nothing moves onto a tensor above rank 4 (a rank-5 q/k/v view before the
// RESHAPE that leaves it): the GPU layout takes rank <= 4.
TEST(ElementwiseBeforeLayout, LeavesOpsOutOfRankFive) {
  Graph g;
  int x = AddTensor(g, "x", {1, 1, 2, 3, 4});
  int r = AddTensor(g, "r", {1, 2, 3, 4});
  int y = AddTensor(g, "y", {1, 2, 3, 4});
  int shape = AddConstant<int32_t>(g, "shape", {4}, DataType::kInt32, {1, 2, 3, 4});
  int c = AddConstant<float>(g, "c", {}, DataType::kFloat32, {0.25f});
  AddNode(g, OpType::kReshape, {x, shape}, {r}, 0, ReshapeAttributes{{1, 2, 3, 4}, true});
  AddNode(g, OpType::kMul, {r, c}, {y}, 1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(ElementwiseBeforeLayout(g, log).ok());
  EXPECT_EQ(g.nodes[0].op, OpType::kReshape);
  EXPECT_TRUE(log.lines.empty());
}

TEST(MergeTransposes, ComposesOrCancels) {
  {
    Graph g;
    int x = AddTensor(g, "x", {2, 3, 4});
    int t = AddTensor(g, "t", {2, 4, 3});
    int y = AddTensor(g, "y", {4, 2, 3});
    AddNode(g, OpType::kTranspose, {x, Perm(g, "p", {0, 2, 1})}, {t}, 0);
    AddNode(g, OpType::kTranspose, {t, Perm(g, "q", {1, 0, 2})}, {y}, 1);
    g.inputs = {x};
    g.outputs = {y};
    PassLog log;
    ExpectSameOutputs(g, [&](Graph& h) { ASSERT_TRUE(MergeTransposes(h, log).ok()); });
    ASSERT_EQ(g.nodes.size(), 1u);
    std::vector<int64_t> perm;
    ASSERT_TRUE(TransposePermutation(g, g.nodes[0], &perm));
    EXPECT_EQ(perm, (std::vector<int64_t>{2, 0, 1}));
  }
  {
    // Inverse pair ending in a graph output: an identity TRANSPOSE that
    // remove_noops then drops, the input's producer writing the output.
    Graph g;
    int x = AddTensor(g, "x", {2, 3});
    int r = AddTensor(g, "r", {2, 3});
    int t = AddTensor(g, "t", {3, 2});
    int y = AddTensor(g, "y", {2, 3});
    AddNode(g, OpType::kRelu, {x}, {r}, 0);
    AddNode(g, OpType::kTranspose, {r, Perm(g, "p", {1, 0})}, {t}, 1);
    AddNode(g, OpType::kTranspose, {t, Perm(g, "q", {1, 0})}, {y}, 2);
    g.inputs = {x};
    g.outputs = {y};
    PassLog log;
    ExpectSameOutputs(g, [&](Graph& h) {
      ASSERT_TRUE(MergeTransposes(h, log).ok());
      ASSERT_TRUE(RemoveNoops(h, log).ok());
    });
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op, OpType::kRelu);
    EXPECT_EQ(g.nodes[0].outputs[0], y);
  }
}

}  // namespace
}  // namespace gld
