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

// x [1,5,5,3] -> `layer` -> c [.., O] ; the test adds what follows.
struct Layer {
  Graph g;
  int x, c;
  int out_channels;
  Layer(OpType op, bool with_bias) {
    x = AddTensor(g, "x", {1, 5, 5, 3});
    if (op == OpType::kConv2d) {
      out_channels = 4;
      int w = AddConstant<float>(g, "w", {4, 3, 3, 3}, DataType::kFloat32, RandomFloats(108, 1, -2.f, 2.f));
      int b = with_bias ? AddConstant<float>(g, "b", {4}, DataType::kFloat32, RandomFloats(4, 2, -2.f, 2.f))
                        : kNoTensor;
      c = AddTensor(g, "c", {1, 5, 5, 4});
      Conv2dAttributes a;
      a.padding = Padding::kSame;
      AddNode(g, op, {x, w, b}, {c}, 1, a);
    } else if (op == OpType::kDepthwiseConv2d) {
      out_channels = 6;  // depth multiplier 2
      int w = AddConstant<float>(g, "w", {1, 3, 3, 6}, DataType::kFloat32, RandomFloats(54, 1, -2.f, 2.f));
      int b = with_bias ? AddConstant<float>(g, "b", {6}, DataType::kFloat32, RandomFloats(6, 2, -2.f, 2.f))
                        : kNoTensor;
      c = AddTensor(g, "c", {1, 5, 5, 6});
      DepthwiseConv2dAttributes a;
      a.padding = Padding::kSame;
      a.depth_multiplier = 2;
      AddNode(g, op, {x, w, b}, {c}, 1, a);
    } else {
      out_channels = 2;
      int w = AddConstant<float>(g, "w", {2, 3}, DataType::kFloat32, RandomFloats(6, 1, -2.f, 2.f));
      int b = with_bias ? AddConstant<float>(g, "b", {2}, DataType::kFloat32, RandomFloats(2, 2, -2.f, 2.f))
                        : kNoTensor;
      c = AddTensor(g, "c", {1, 5, 5, 2});
      FullyConnectedAttributes a;
      a.keep_num_dims = true;
      AddNode(g, op, {x, w, b}, {c}, 1, a);
    }
    g.inputs = {x};
  }
  // c -> op(c, constant) -> y (graph output)
  int Then(OpType op, const Shape& shape, Activation act = Activation::kNone) {
    int k = AddConstant<float>(g, "k", shape, DataType::kFloat32,
                               RandomFloats(static_cast<size_t>(NumElements(shape)), 5, 0.5f, 1.5f));
    int y = AddTensor(g, "y", g.tensors[static_cast<size_t>(c)].shape);
    AddNode(g, op, {c, k}, {y}, 2, BinaryAttributes{act});
    g.outputs = {y};
    return y;
  }
};

TEST(FoldMulAddIntoConv, FoldsAPerChannelOrScalarMulOrAddAfterTheLayer) {
  struct Case {
    OpType layer, op;
    bool bias, scalar;
  };
  const Case cases[] = {
      {OpType::kConv2d, OpType::kMul, true, false},          {OpType::kConv2d, OpType::kAdd, false, false},
      {OpType::kDepthwiseConv2d, OpType::kMul, false, false}, {OpType::kDepthwiseConv2d, OpType::kAdd, true, true},
      {OpType::kFullyConnected, OpType::kMul, true, true},    {OpType::kFullyConnected, OpType::kAdd, true, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(OpTypeName(c.layer)) + " then " + OpTypeName(c.op) + (c.bias ? " bias" : "") +
                 (c.scalar ? " scalar" : ""));
    Layer m(c.layer, c.bias);
    const Shape shape = c.scalar ? Shape{} : Shape{1, 1, m.out_channels};
    int y = m.Then(c.op, shape, Activation::kRelu6);
    const int old_weights = m.g.nodes[0].inputs[1];
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FoldMulAddIntoConv(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    const Node& n = m.g.nodes[0];
    EXPECT_EQ(n.outputs[0], y);
    ASSERT_EQ(n.inputs.size(), 3u);
    EXPECT_NE(n.inputs[2], kNoTensor);
    EXPECT_EQ(c.op == OpType::kMul, n.inputs[1] != old_weights) << "only MUL needs new weights";
    const Activation act = c.layer == OpType::kConv2d           ? n.attrs<Conv2dAttributes>().activation
                           : c.layer == OpType::kDepthwiseConv2d ? n.attrs<DepthwiseConv2dAttributes>().activation
                                                                 : n.attrs<FullyConnectedAttributes>().activation;
    EXPECT_EQ(act, Activation::kRelu6) << "the MUL/ADD's activation moves to the layer";
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_EQ(log.lines[0].rfind(std::string("fold_mul_add_into_conv: node 2 (") + OpTypeName(c.op) + ")", 0), 0u)
        << log.lines[0];
  }
}

TEST(FoldMulAddIntoConv, LeavesWhatIsNotExact) {
  PassLog log;
  {  // the layer has an activation of its own
    Layer m(OpType::kConv2d, true);
    m.g.nodes[0].attrs<Conv2dAttributes>().activation = Activation::kRelu;
    m.Then(OpType::kMul, {4});
    ASSERT_TRUE(FoldMulAddIntoConv(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 2u);
  }
  {  // the constant varies along more than the channels
    Layer m(OpType::kConv2d, true);
    m.Then(OpType::kMul, {5, 1, 4});
    ASSERT_TRUE(FoldMulAddIntoConv(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 2u);
  }
  {  // the other operand is not a constant
    Layer m(OpType::kConv2d, true);
    int k = AddTensor(m.g, "k", {4});
    int y = AddTensor(m.g, "y", {1, 5, 5, 4});
    AddNode(m.g, OpType::kMul, {m.c, k}, {y}, 2, BinaryAttributes{});
    m.g.inputs = {m.x, k};
    m.g.outputs = {y};
    ASSERT_TRUE(FoldMulAddIntoConv(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 2u);
  }
  {  // the layer's output is read elsewhere too
    Layer m(OpType::kConv2d, true);
    int y = m.Then(OpType::kAdd, {4});
    m.g.outputs = {y, m.c};
    ASSERT_TRUE(FoldMulAddIntoConv(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 2u);
  }
  EXPECT_TRUE(log.lines.empty());
}

// x -> MUL(x, s) -> m -> layer -> y
struct MulBefore {
  Graph g;
  int y;
  MulBefore(OpType op, const std::string& first, std::vector<float> scale, OpType mul = OpType::kMul) {
    int x = AddTensor(g, "x", {1, 5, 5, 3});
    int s = AddConstant<float>(g, "s", {static_cast<int32_t>(scale.size())}, DataType::kFloat32, scale);
    int m = AddTensor(g, "m", {1, 5, 5, 3});
    AddNode(g, mul, first == "x" ? std::vector<int>{x, s} : std::vector<int>{s, x}, {m}, 0, BinaryAttributes{});
    if (op == OpType::kConv2d) {
      int w = AddConstant<float>(g, "w", {4, 3, 3, 3}, DataType::kFloat32, RandomFloats(108, 1, -2.f, 2.f));
      int b = AddConstant<float>(g, "b", {4}, DataType::kFloat32, RandomFloats(4, 2, -2.f, 2.f));
      y = AddTensor(g, "y", {1, 5, 5, 4});
      Conv2dAttributes a;
      a.padding = Padding::kSame;
      AddNode(g, op, {m, w, b}, {y}, 1, a);
    } else {
      int w = AddConstant<float>(g, "w", {1, 3, 3, 6}, DataType::kFloat32, RandomFloats(54, 1, -2.f, 2.f));
      int b = AddConstant<float>(g, "b", {6}, DataType::kFloat32, RandomFloats(6, 2, -2.f, 2.f));
      y = AddTensor(g, "y", {1, 5, 5, 6});
      DepthwiseConv2dAttributes a;
      a.padding = Padding::kSame;
      a.depth_multiplier = 2;
      AddNode(g, op, {m, w, b}, {y}, 1, a);
    }
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(FoldMulAddIntoConv, FoldsAMulBeforeTheLayerIntoItsInputChannels) {
  for (OpType op : {OpType::kConv2d, OpType::kDepthwiseConv2d}) {
    for (const char* first : {"x", "s"}) {
      SCOPED_TRACE(std::string(OpTypeName(op)) + " first operand " + first);
      MulBefore m(op, first, {0.5f, -2.0f, 3.0f});
      PassLog log;
      ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FoldMulAddIntoConv(g, log).ok()); });
      ASSERT_EQ(m.g.nodes.size(), 1u);
      EXPECT_EQ(m.g.nodes[0].inputs[0], m.g.inputs[0]);
      ASSERT_EQ(log.lines.size(), 1u);
      EXPECT_EQ(log.lines[0].rfind("fold_mul_add_into_conv: node 0 (MUL)", 0), 0u) << log.lines[0];
    }
  }
}

TEST(FoldMulAddIntoConv, LeavesAnAddBeforeAPaddedConvolution) {
  MulBefore m(OpType::kConv2d, "x", {0.5f, -2.0f, 3.0f}, OpType::kAdd);
  PassLog log;
  ASSERT_TRUE(FoldMulAddIntoConv(m.g, log).ok());
  EXPECT_EQ(m.g.nodes.size(), 2u);
  EXPECT_TRUE(log.lines.empty());
}

}  // namespace
}  // namespace gld
