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

enum class Shift { kBeta, kNegProduct, kNegMean };

// The converter's layer norm over x [2, 5, 12] (see fuse_layer_norm.cc), with
// the shift written as `shift`; `with_gamma` false leaves the scale out.
struct LayerNormChain {
  Graph g;
  int x, y, mean, s;
  LayerNormChain(Shift shift, bool with_gamma) {
    const Shape row = {2, 5, 1};
    x = AddTensor(g, "x", {2, 5, 12});
    int axes = AddConstant<int32_t>(g, "axes", {1}, DataType::kInt32, {-1});
    int eps = AddConstant<float>(g, "eps", {}, DataType::kFloat32, {1e-3f});
    mean = AddTensor(g, "mean", row);
    int sd = AddTensor(g, "sd", {2, 5, 12});
    int var = AddTensor(g, "var", row);
    int ve = AddTensor(g, "ve", row);
    int r = AddTensor(g, "r", row);
    AddNode(g, OpType::kMean, {x, axes}, {mean}, 0, ReduceAttributes{true});
    AddNode(g, OpType::kSquaredDifference, {x, mean}, {sd}, 1, BinaryAttributes{});
    AddNode(g, OpType::kMean, {sd, axes}, {var}, 2, ReduceAttributes{true});
    AddNode(g, OpType::kAdd, {var, eps}, {ve}, 3, BinaryAttributes{});
    AddNode(g, OpType::kRsqrt, {ve}, {r}, 4);
    s = r;
    if (with_gamma) {
      int gamma = AddConstant<float>(g, "gamma", {12}, DataType::kFloat32, RandomFloats(12, 3, 0.5f, 1.5f));
      s = AddTensor(g, "s", {2, 5, 12});
      AddNode(g, OpType::kMul, {r, gamma}, {s}, 5, BinaryAttributes{});
    }
    int xs = AddTensor(g, "xs", {2, 5, 12});
    AddNode(g, OpType::kMul, {x, s}, {xs}, 6, BinaryAttributes{});
    int m = mean;
    if (shift == Shift::kNegMean) {
      m = AddTensor(g, "neg_mean", row);
      AddNode(g, OpType::kNeg, {mean}, {m}, 7);
    }
    const Shape scaled = with_gamma ? Shape{2, 5, 12} : row;  // mean * s
    int ms = AddTensor(g, "ms", scaled);
    AddNode(g, OpType::kMul, {m, s}, {ms}, 8, BinaryAttributes{});
    int sh = ms;
    if (shift == Shift::kBeta) {
      int beta = AddConstant<float>(g, "beta", {12}, DataType::kFloat32, RandomFloats(12, 4, -2.f, 2.f));
      sh = AddTensor(g, "shift", {2, 5, 12});
      AddNode(g, OpType::kSub, {beta, ms}, {sh}, 9, BinaryAttributes{});
    } else if (shift == Shift::kNegProduct) {
      sh = AddTensor(g, "shift", scaled);
      AddNode(g, OpType::kNeg, {ms}, {sh}, 9);
    }
    y = AddTensor(g, "y", {2, 5, 12});
    AddNode(g, OpType::kAdd, {xs, sh}, {y}, 10, BinaryAttributes{});
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(FuseLayerNorm, EachConverterFormBecomesOneNodeComputingTheSame) {
  for (Shift shift : {Shift::kBeta, Shift::kNegProduct, Shift::kNegMean}) {
    for (bool gamma : {true, false}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(shift)) + (gamma ? " with gamma" : " without gamma"));
      LayerNormChain m(shift, gamma);
      PassLog log;
      ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FuseLayerNorm(g, log).ok()); });
      ASSERT_EQ(m.g.nodes.size(), 1u);
      const Node& n = m.g.nodes[0];
      EXPECT_EQ(n.op, OpType::kLayerNorm);
      EXPECT_EQ(n.inputs[0], m.x);
      EXPECT_EQ(n.outputs[0], m.y) << "the graph output keeps its tensor";
      EXPECT_FLOAT_EQ(n.attrs<LayerNormAttributes>().epsilon, 1e-3f);
      ASSERT_EQ(log.lines.size(), 1u);
      EXPECT_EQ(log.lines[0].rfind("fuse_layer_norm: node 0 (MEAN), node 1 (SQUARED_DIFFERENCE)", 0), 0u)
          << log.lines[0];
    }
  }
}

TEST(FuseLayerNorm, LeavesAChainWhoseIntermediateIsReadElsewhere) {
  {
    LayerNormChain m(Shift::kBeta, true);
    m.g.outputs.push_back(m.mean);  // the mean is a graph output
    PassLog log;
    ASSERT_TRUE(FuseLayerNorm(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 10u);
    EXPECT_TRUE(log.lines.empty());
  }
  {
    LayerNormChain m(Shift::kBeta, true);
    int extra = AddTensor(m.g, "extra", {2, 5, 12});
    AddNode(m.g, OpType::kRelu, {m.s}, {extra}, 11);  // s has a third reader
    m.g.outputs.push_back(extra);
    PassLog log;
    ASSERT_TRUE(FuseLayerNorm(m.g, log).ok());
    EXPECT_EQ(m.g.nodes.size(), 11u);
    EXPECT_TRUE(log.lines.empty());
  }
}

TEST(FuseLayerNorm, FoldsATrailingPerChannelAffineButNotARowScale) {
  for (bool per_channel : {true, false}) {
    SCOPED_TRACE(per_channel ? "per channel [1, 1, 12]" : "per row [2, 5, 1]");
    LayerNormChain m(Shift::kBeta, true);
    const Shape shape = per_channel ? Shape{1, 1, 12} : Shape{2, 5, 1};
    const size_t count = per_channel ? 12 : 10;
    int scale = AddConstant<float>(m.g, "scale", shape, DataType::kFloat32, RandomFloats(count, 5, 0.5f, 1.5f));
    int y = AddTensor(m.g, "scaled", {2, 5, 12});
    AddNode(m.g, OpType::kMul, {m.y, scale}, {y}, 11, BinaryAttributes{});
    m.g.outputs = {y};
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FuseLayerNorm(g, log).ok()); });
    ASSERT_EQ(m.g.nodes.size(), per_channel ? 1u : 2u);
    EXPECT_EQ(m.g.nodes[0].op, OpType::kLayerNorm);
    EXPECT_EQ(m.g.nodes.back().outputs[0], y);
  }
}

}  // namespace
}  // namespace gld
