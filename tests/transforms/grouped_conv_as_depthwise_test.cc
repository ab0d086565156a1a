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

// CONV_2D over x [1, 6, 7, 4] with weights [8, 3, 3, per_group]: 4 / per_group
// groups.
Graph GroupedConv(int per_group) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 6, 7, 4});
  const int w = AddConstant<float>(g, "w", {8, 3, 3, per_group}, DataType::kFloat32,
                                   RandomFloats(static_cast<size_t>(8 * 9 * per_group), 5, -2.f, 2.f));
  const int b = AddConstant<float>(g, "b", {8}, DataType::kFloat32, RandomFloats(8, 6, -2.f, 2.f));
  const int y = AddTensor(g, "y", {1, 3, 4, 8});
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  a.activation = Activation::kRelu6;
  AddNode(g, OpType::kConv2d, {x, w, b}, {y}, 0, a);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(GroupedConvAsDepthwise, OneChannelPerGroupBecomesADepthwiseLayer) {
  Graph g = GroupedConv(1);
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(GroupedConvAsDepthwise(graph, log).ok()); });
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpType::kDepthwiseConv2d);
  const auto& a = g.nodes[0].attrs<DepthwiseConv2dAttributes>();
  EXPECT_EQ(a.depth_multiplier, 2);
  EXPECT_EQ(a.stride_h, 2);
  EXPECT_EQ(a.activation, Activation::kRelu6);
  EXPECT_EQ(g.tensors[static_cast<size_t>(g.nodes[0].inputs[1])].shape, (Shape{1, 3, 3, 8}));
  ASSERT_EQ(log.lines.size(), 1u);
}

TEST(GroupedConvAsDepthwise, LeavesGroupsOfSeveralChannels) {
  Graph g = GroupedConv(2);
  PassLog log;
  ASSERT_TRUE(GroupedConvAsDepthwise(g, log).ok());
  EXPECT_EQ(g.nodes[0].op, OpType::kConv2d);
  EXPECT_TRUE(log.lines.empty());
}

}  // namespace
}  // namespace gld
