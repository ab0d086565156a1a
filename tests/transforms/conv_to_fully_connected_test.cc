#include <gtest/gtest.h>

#include "graph/shape_inference.h"
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

// x [B, H, W, 5] -> CONV_2D k x k (3 filters, bias) -> y.
struct Conv {
  Graph g;
  int x, w, y;
  Conv(int batch, int hw, int k, Conv2dAttributes a, int out_hw = 1) {
    x = AddTensor(g, "x", {batch, hw, hw, 5});
    w = AddConstant<float>(g, "w", {3, k, k, 5}, DataType::kFloat32,
                           RandomFloats(static_cast<size_t>(15 * k * k), 3, -2.f, 2.f));
    int b = AddConstant<float>(g, "b", {3}, DataType::kFloat32, {0.5f, -0.25f, 2.0f});
    y = AddTensor(g, "y", {batch, out_hw, out_hw, 3});
    AddNode(g, OpType::kConv2d, {x, w, b}, {y}, 0, a);
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(ConvToFullyConnected, OneByOneKernelOverOnePixelBecomesFullyConnected) {
  for (Padding padding : {Padding::kSame, Padding::kValid}) {
    Conv2dAttributes a;
    a.padding = padding;
    a.stride_h = a.stride_w = 2;  // one output pixel reads input (0, 0) whatever the stride
    a.activation = Activation::kRelu6;
    Conv m(/*batch=*/2, /*hw=*/1, /*k=*/1, a);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(ConvToFullyConnected(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    const Node& n = m.g.nodes[0];
    ASSERT_EQ(n.op, OpType::kFullyConnected);
    EXPECT_EQ(n.attrs<FullyConnectedAttributes>().activation, Activation::kRelu6);
    EXPECT_TRUE(n.attrs<FullyConnectedAttributes>().keep_num_dims);
    EXPECT_EQ(n.inputs[0], m.x);
    EXPECT_EQ(n.outputs[0], m.y) << "the graph output keeps its tensor";
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(n.inputs[1])].shape, (Shape{3, 5}));
    // Shape inference agrees with the tensor the convolution wrote.
    ASSERT_TRUE(InferShapes(m.g).ok());
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.y)].shape, (Shape{2, 1, 1, 3}));
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_EQ(log.lines[0], "conv_to_fully_connected: node 0 (CONV_2D) (1x1 kernel over [2, 1, 1, 5]) is a "
                            "FULLY_CONNECTED with weights 'w' [3, 5] float32");
  }
}

TEST(ConvToFullyConnected, ASharedFilterIsCopiedNotReshaped) {
  Conv m(1, 1, 1, Conv2dAttributes{});
  int y2 = AddTensor(m.g, "y2", {1, 1, 1, 3});
  AddNode(m.g, OpType::kConv2d, {m.x, m.w}, {y2}, 1, Conv2dAttributes{});
  m.g.outputs = {m.y, y2};
  PassLog log;
  ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(ConvToFullyConnected(g, log).ok()); });
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_EQ(m.g.nodes[0].op, OpType::kFullyConnected);
  EXPECT_EQ(m.g.nodes[1].op, OpType::kFullyConnected);
  EXPECT_NE(m.g.nodes[0].inputs[1], m.w) << "the first reader gets a copy while the filter is shared";
  EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.g.nodes[0].inputs[1])].shape, (Shape{3, 5}));
  EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.g.nodes[1].inputs[1])].shape, (Shape{3, 5}));
}

TEST(ConvToFullyConnected, LeavesOnePixelThatAResizeMayGrow) {
  // A free batch changes nothing; free spatial dimensions do.
  for (bool spatial_free : {false, true}) {
    Conv m(1, 1, 1, Conv2dAttributes{});
    m.g.tensors[static_cast<size_t>(m.x)].signature = {-1, spatial_free ? -1 : 1, spatial_free ? -1 : 1, 5};
    m.g.tensors[static_cast<size_t>(m.y)].signature = {-1, spatial_free ? -1 : 1, spatial_free ? -1 : 1, 3};
    PassLog log;
    ASSERT_TRUE(ConvToFullyConnected(m.g, log).ok());
    EXPECT_EQ(m.g.nodes[0].op, spatial_free ? OpType::kConv2d : OpType::kFullyConnected) << spatial_free;
  }
}

TEST(ConvToFullyConnected, LeavesOtherConvolutions) {
  {
    SCOPED_TRACE("1x1 kernel over 2x2 pixels");
    Conv m(1, 2, 1, Conv2dAttributes{}, /*out_hw=*/2);
    PassLog log;
    ASSERT_TRUE(ConvToFullyConnected(m.g, log).ok());
    EXPECT_EQ(m.g.nodes[0].op, OpType::kConv2d);
    EXPECT_TRUE(log.lines.empty());
  }
  {
    SCOPED_TRACE("3x3 kernel over one pixel");
    Conv2dAttributes a;
    a.padding = Padding::kSame;
    Conv m(1, 1, 3, a);
    PassLog log;
    ASSERT_TRUE(ConvToFullyConnected(m.g, log).ok());
    EXPECT_EQ(m.g.nodes[0].op, OpType::kConv2d);
  }
  {
    SCOPED_TRACE("a merged PAD: the one output pixel reads padding");
    Conv2dAttributes a;
    a.stride_h = a.stride_w = 2;
    a.explicit_padding = {1, 0, 1, 0};
    Conv m(1, 1, 1, a);
    PassLog log;
    ASSERT_TRUE(ConvToFullyConnected(m.g, log).ok());
    EXPECT_EQ(m.g.nodes[0].op, OpType::kConv2d);
  }
}

}  // namespace
}  // namespace gld
