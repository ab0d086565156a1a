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

// litert-torch's LayerNorm over x [1, 5, 12] (keep_reduced_dims.cc): MEANs
// over axes [0, 2] that drop them, the row math on [5], RESHAPEs to [1, 5, 1];
// `affine`: then its elementwise affine, MUL(gamma) and ADD(beta) per channel.
struct SqueezedLayerNorm {
  Graph g;
  int x, y, mean, r, axes;
  explicit SqueezedLayerNorm(bool affine = false) {
    const Shape rows = {5}, keep = {1, 5, 1}, full = {1, 5, 12};
    x = AddTensor(g, "x", full);
    axes = AddConstant<int32_t>(g, "axes", {2}, DataType::kInt32, {0, 2});
    int shape = AddConstant<int32_t>(g, "shape", {3}, DataType::kInt32, {1, 5, 1});
    int eps = AddConstant<float>(g, "eps", {}, DataType::kFloat32, {1e-5f});
    int zero = AddConstant<float>(g, "zero", {}, DataType::kFloat32, {0.0f});
    mean = AddTensor(g, "mean", rows);
    int mean_k = AddTensor(g, "mean_k", keep);
    int sd = AddTensor(g, "sd", full);
    int var = AddTensor(g, "var", rows);
    int ve = AddTensor(g, "ve", rows);
    r = AddTensor(g, "r", rows);
    int mr = AddTensor(g, "mr", rows);
    int shift = AddTensor(g, "shift", rows);
    int r_k = AddTensor(g, "r_k", keep);
    int xr = AddTensor(g, "xr", full);
    int shift_k = AddTensor(g, "shift_k", keep);
    y = AddTensor(g, "y", full);
    AddNode(g, OpType::kMean, {x, axes}, {mean}, 0, ReduceAttributes{false});
    AddNode(g, OpType::kReshape, {mean, shape}, {mean_k}, 1, ReshapeAttributes{{1, 5, 1}, true});
    AddNode(g, OpType::kSquaredDifference, {x, mean_k}, {sd}, 2, BinaryAttributes{});
    AddNode(g, OpType::kMean, {sd, axes}, {var}, 3, ReduceAttributes{false});
    AddNode(g, OpType::kAdd, {var, eps}, {ve}, 4, BinaryAttributes{});
    AddNode(g, OpType::kRsqrt, {ve}, {r}, 5);
    AddNode(g, OpType::kMul, {r, mean}, {mr}, 6, BinaryAttributes{});
    AddNode(g, OpType::kSub, {zero, mr}, {shift}, 7, BinaryAttributes{});
    AddNode(g, OpType::kReshape, {r, shape}, {r_k}, 8, ReshapeAttributes{{1, 5, 1}, true});
    AddNode(g, OpType::kMul, {x, r_k}, {xr}, 9, BinaryAttributes{});
    AddNode(g, OpType::kReshape, {shift, shape}, {shift_k}, 10, ReshapeAttributes{{1, 5, 1}, true});
    AddNode(g, OpType::kAdd, {xr, shift_k}, {y}, 11, BinaryAttributes{});
    if (affine) {
      int gamma = AddConstant<float>(g, "gamma", {12}, DataType::kFloat32, testing::RandomFloats(12, 3, 0.5f, 1.5f));
      int beta = AddConstant<float>(g, "beta", {12}, DataType::kFloat32, testing::RandomFloats(12, 4, -1.f, 1.f));
      int scaled = AddTensor(g, "scaled", full);
      int norm = y;
      y = AddTensor(g, "y_affine", full);
      AddNode(g, OpType::kMul, {norm, gamma}, {scaled}, 12, BinaryAttributes{});
      AddNode(g, OpType::kAdd, {scaled, beta}, {y}, 13, BinaryAttributes{});
    }
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(KeepReducedDims, TheRowsTakeTheKeepDimsShapeAndComputeTheSame) {
  SqueezedLayerNorm m;
  PassLog log;
  ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(KeepReducedDims(g, log).ok()); });
  ASSERT_EQ(m.g.nodes.size(), 12u) << "shapes change, nodes do not";
  for (int t : {m.mean, m.r}) EXPECT_EQ(m.g.tensors[static_cast<size_t>(t)].shape, (Shape{1, 5, 1}));
  for (size_t n : {size_t{0}, size_t{3}}) {
    const Node& mean = m.g.nodes[n];
    EXPECT_TRUE(mean.attrs<ReduceAttributes>().keep_dims);
    std::vector<int64_t> axes;
    ASSERT_TRUE(ConstantInts(m.g, mean.inputs[1], &axes));
    EXPECT_EQ(axes, (std::vector<int64_t>{2})) << "the size-1 axis 0 reduces nothing once kept";
  }
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0],
            "keep_reduced_dims: 2 reduction(s) of 'x' [1, 5, 12] float32 and 4 elementwise row(s) keep their "
            "dimensions; 3 RESHAPE(s) back become identities");
}

TEST(KeepReducedDims, ThenTheChainIsOneLayerNormWithTheAffineFoldedIn) {
  for (bool affine : {false, true}) {
    SCOPED_TRACE(affine ? "with the affine" : "without");
    SqueezedLayerNorm m(affine);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) {
      ASSERT_TRUE(KeepReducedDims(g, log).ok());
      ASSERT_TRUE(RemoveNoops(g, log).ok());
      ASSERT_TRUE(FuseLayerNorm(g, log).ok());
    });
    ASSERT_EQ(m.g.nodes.size(), 1u);
    const Node& n = m.g.nodes[0];
    EXPECT_EQ(n.op, OpType::kLayerNorm);
    EXPECT_EQ(n.inputs[0], m.x);
    EXPECT_EQ(n.outputs[0], m.y) << "the graph output keeps its tensor";
    EXPECT_FLOAT_EQ(n.attrs<LayerNormAttributes>().epsilon, 1e-5f);
    std::vector<float> gamma;
    ASSERT_TRUE(ConstantFloats(m.g, n.inputs[1], &gamma));
    EXPECT_EQ(gamma.size(), affine ? 12u : 1u);
  }
}

TEST(KeepReducedDims, LeavesRowsReadOtherwise) {
  {
    SqueezedLayerNorm m;
    m.g.outputs.push_back(m.r);  // a row is a graph output
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(KeepReducedDims(g, log).ok()); });
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.mean)].shape, (Shape{5}));
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_NE(log.lines[0].find("'r' is a graph output"), std::string::npos) << log.lines[0];
  }
  {
    SqueezedLayerNorm m;
    // A row read by an op that is not elementwise (a softmax over the rows).
    int sm = AddTensor(m.g, "sm", {5});
    AddNode(m.g, OpType::kSoftmax, {m.r}, {sm}, 12, SoftmaxAttributes{1.0f});
    m.g.outputs.push_back(sm);
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(KeepReducedDims(g, log).ok()); });
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.r)].shape, (Shape{5}));
    ASSERT_EQ(log.lines.size(), 1u);
    EXPECT_NE(log.lines[0].find("SOFTMAX is not elementwise"), std::string::npos) << log.lines[0];
  }
  {
    SqueezedLayerNorm m;
    // The second MEAN over other axes: other rows.
    m.g.nodes[3].inputs[1] = AddConstant<int32_t>(m.g, "axes2", {1}, DataType::kInt32, {2});
    m.g.tensors[static_cast<size_t>(m.g.nodes[3].outputs[0])].shape = {1, 5};
    PassLog log;
    ASSERT_TRUE(KeepReducedDims(m.g, log).ok());
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.mean)].shape, (Shape{5}));
  }
  {
    SqueezedLayerNorm m;
    // A per-row constant operand: it has the squeezed shape but no producer.
    const int c = AddConstant<float>(m.g, "c", {5}, DataType::kFloat32, {1, 2, 3, 4, 5});
    m.g.nodes[4].inputs[1] = c;
    PassLog log;
    ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(KeepReducedDims(g, log).ok()); });
    EXPECT_EQ(m.g.tensors[static_cast<size_t>(m.mean)].shape, (Shape{5}));
    ASSERT_EQ(log.lines.size(), 1u) << log.lines[0] << "\n" << log.lines.back();
    EXPECT_NE(log.lines[0].find("'c' comes from outside the rows"), std::string::npos) << log.lines[0];
  }
}

TEST(KeepReducedDims, LeavesAPoolingMeanAlone) {
  // Global average pooling: MEAN over H, W read by a FULLY_CONNECTED. Nothing
  // is RESHAPEd back, so nothing changes and nothing is logged.
  Graph g;
  int x = AddTensor(g, "x", {1, 4, 4, 8});
  int axes = AddConstant<int32_t>(g, "axes", {2}, DataType::kInt32, {1, 2});
  int pooled = AddTensor(g, "pooled", {1, 8});
  int w = AddConstant<float>(g, "w", {3, 8}, DataType::kFloat32, std::vector<float>(24, 0.5f));
  int y = AddTensor(g, "y", {1, 3});
  AddNode(g, OpType::kMean, {x, axes}, {pooled}, 0, ReduceAttributes{false});
  AddNode(g, OpType::kFullyConnected, {pooled, w, kNoTensor}, {y}, 1, FullyConnectedAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(KeepReducedDims(g, log).ok());
  EXPECT_EQ(g.tensors[static_cast<size_t>(pooled)].shape, (Shape{1, 8}));
  EXPECT_TRUE(log.lines.empty());
}

}  // namespace
}  // namespace gld
