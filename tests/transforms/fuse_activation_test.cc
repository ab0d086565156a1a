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

// x [1,4,4,3] -> CONV_2D 3x3 SAME (2 filters) -> c -> `act` -> y.
struct ConvAct {
  Graph g;
  int x, c, y;
  explicit ConvAct(OpType act) {
    x = AddTensor(g, "x", {1, 4, 4, 3});
    int w = AddConstant<float>(g, "w", {2, 3, 3, 3}, DataType::kFloat32, RandomFloats(54, 1, -2.f, 2.f));
    int b = AddConstant<float>(g, "b", {2}, DataType::kFloat32, {0.5f, -0.25f});
    c = AddTensor(g, "c", {1, 4, 4, 2});
    y = AddTensor(g, "y", {1, 4, 4, 2});
    Conv2dAttributes a;
    a.padding = Padding::kSame;
    AddNode(g, OpType::kConv2d, {x, w, b}, {c}, 0, a);
    AddNode(g, act, {c}, {y}, 1);
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(FuseActivation, EachActivationBecomesTheConvolutionsAndKeepsTheOutputTensor) {
  const std::pair<OpType, Activation> cases[] = {{OpType::kRelu, Activation::kRelu},
                                                 {OpType::kRelu6, Activation::kRelu6},
                                                 {OpType::kReluN1To1, Activation::kReluN1To1},
                                                 {OpType::kTanh, Activation::kTanh},
                                                 {OpType::kLogistic, Activation::kSigmoid}};
  for (const auto& [op, act] : cases) {
    SCOPED_TRACE(OpTypeName(op));
    ConvAct m(op);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FuseActivation(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    EXPECT_EQ(m.g.nodes[0].attrs<Conv2dAttributes>().activation, act);
    EXPECT_EQ(m.g.nodes[0].outputs[0], m.y) << "the graph output keeps its tensor";
    ASSERT_EQ(m.g.nodes[0].fused_names.size(), 1u);
    EXPECT_EQ(m.g.nodes[0].fused_names[0], std::string("node 1 (") + OpTypeName(op) + ")");
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_EQ(log.lines[0].rfind(std::string("fuse_activation: node 1 (") + OpTypeName(op) +
                                     ") fused into node 0 (CONV_2D) as activation " + ActivationName(act),
                                 0),
              0u)
        << log.lines[0];
  }
}

TEST(FuseActivation, LeavesAProducerWhoseOutputHasAnotherReader) {
  ConvAct m(OpType::kRelu);
  int z = AddTensor(m.g, "z", {1, 4, 4, 2});
  AddNode(m.g, OpType::kNeg, {m.c}, {z}, 2);
  m.g.outputs = {m.y, z};
  PassLog log;
  ASSERT_TRUE(FuseActivation(m.g, log).ok());
  EXPECT_EQ(m.g.nodes.size(), 3u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(FuseActivation, LeavesAProducerWithAnActivationAlreadyOrWithoutTheField) {
  ConvAct m(OpType::kRelu6);
  m.g.nodes[0].attrs<Conv2dAttributes>().activation = Activation::kRelu;
  PassLog log;
  ASSERT_TRUE(FuseActivation(m.g, log).ok());
  EXPECT_EQ(m.g.nodes.size(), 2u);

  // RELU of a graph input and RELU after a NEG (no activation field).
  Graph g;
  int x = AddTensor(g, "x", {4});
  int a = AddTensor(g, "a", {4});
  int b = AddTensor(g, "b", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {a});
  AddNode(g, OpType::kNeg, {a}, {b});
  AddNode(g, OpType::kRelu, {b}, {y});
  g.inputs = {x};
  g.outputs = {y};
  ASSERT_TRUE(FuseActivation(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 3u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(FuseActivation, FusesIntoAResidualAdd) {
  Graph g;
  int x = AddTensor(g, "x", {1, 2, 2, 4});
  int r = AddTensor(g, "r", {1, 2, 2, 4});
  int s = AddTensor(g, "s", {1, 2, 2, 4});
  int y = AddTensor(g, "y", {1, 2, 2, 4});
  AddNode(g, OpType::kAdd, {x, r}, {s}, 0, BinaryAttributes{});
  AddNode(g, OpType::kRelu6, {s}, {y}, 1);
  g.inputs = {x, r};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(FuseActivation(graph, log).ok()); });
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].attrs<BinaryAttributes>().activation, Activation::kRelu6);
}

}  // namespace
}  // namespace gld
