#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ConstantValues;

TEST(FoldConstantDequantize, Float16ConstantBecomesFloat32Constant) {
  Graph g;
  int x = AddTensor(g, "x", {1, 2});
  // 1.0, -2.0, 0.5, 65504 (max half) in binary16.
  int wq = AddConstant<uint16_t>(g, "w_fp16", {2, 2}, DataType::kFloat16, {0x3c00, 0xc000, 0x3800, 0x7bff});
  int w = AddTensor(g, "w", {2, 2});
  int y = AddTensor(g, "y", {1, 2});
  AddNode(g, OpType::kDequantize, {wq}, {w}, 0);
  AddNode(g, OpType::kFullyConnected, {x, w, kNoTensor}, {y}, 1, FullyConnectedAttributes{});
  g.inputs = {x};
  g.outputs = {y};

  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpType::kFullyConnected);
  EXPECT_EQ(g.nodes[0].inputs[1], w) << "tensor indices stay stable";
  const Tensor& wt = g.tensors[w];
  EXPECT_TRUE(wt.is_constant);
  EXPECT_EQ(wt.type, DataType::kFloat32);
  EXPECT_EQ(ConstantValues<float>(wt), (std::vector<float>{1.0f, -2.0f, 0.5f, 65504.0f}));
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0], "fold_constant_dequantize: node 0 (DEQUANTIZE) -> constant tensor 'w' [2, 2] float32");
}

TEST(FoldConstantDequantize, PerTensorInt8UsesScaleAndZeroPoint) {
  Graph g;
  int q = AddConstant<int8_t>(g, "q", {3}, DataType::kInt8, {-128, 0, 127});
  g.tensors[q].quant.scale = {0.5f};
  g.tensors[q].quant.zero_point = {-1};
  int w = AddTensor(g, "w", {3});
  AddNode(g, OpType::kDequantize, {q}, {w});
  g.outputs = {w};
  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_EQ(ConstantValues<float>(g.tensors[w]), (std::vector<float>{-63.5f, 0.5f, 64.0f}));
  EXPECT_TRUE(g.tensors[w].quant.empty());
}

TEST(FoldConstantDequantize, PerChannelUint8AlongQuantizedDimension) {
  Graph g;
  // Shape [2, 3], channels on dimension 1: scales (1, 2, 4), zero points (0, 10, 100).
  int q = AddConstant<uint8_t>(g, "q", {2, 3}, DataType::kUInt8, {1, 11, 101, 2, 12, 102});
  g.tensors[q].quant.scale = {1.0f, 2.0f, 4.0f};
  g.tensors[q].quant.zero_point = {0, 10, 100};
  g.tensors[q].quant.quantized_dimension = 1;
  int w = AddTensor(g, "w", {2, 3});
  AddNode(g, OpType::kDequantize, {q}, {w});
  g.outputs = {w};
  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  EXPECT_EQ(ConstantValues<float>(g.tensors[w]), (std::vector<float>{1, 2, 4, 2, 4, 8}));
}

TEST(FoldConstantDequantize, PerChannelScaleCountMismatchIsAnError) {
  Graph g;
  int q = AddConstant<int8_t>(g, "q", {2, 3}, DataType::kInt8, {1, 2, 3, 4, 5, 6});
  g.tensors[q].quant.scale = {1.0f, 2.0f};
  g.tensors[q].quant.zero_point = {0, 0};
  g.tensors[q].quant.quantized_dimension = 1;
  int w = AddTensor(g, "w", {2, 3});
  AddNode(g, OpType::kDequantize, {q}, {w}, 7);
  g.outputs = {w};
  PassLog log;
  Status s = FoldConstantDequantize(g, log);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 7 (DEQUANTIZE)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'q'"), std::string::npos) << s.message();
}

TEST(FoldConstantDequantize, ShortConstantDataIsAnError) {
  Graph g;
  int q = AddConstant<uint16_t>(g, "q", {4}, DataType::kFloat16, {1, 2});
  int w = AddTensor(g, "w", {4});
  AddNode(g, OpType::kDequantize, {q}, {w});
  g.outputs = {w};
  PassLog log;
  EXPECT_EQ(FoldConstantDequantize(g, log).code(), StatusCode::kInvalidArgument);
}

TEST(FoldConstantDequantize, NonConstantInputIsLeftAlone) {
  Graph g;
  int x = AddTensor(g, "x", {4}, DataType::kFloat16);
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kDequantize, {x}, {y});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_FALSE(g.tensors[y].is_constant);
  EXPECT_TRUE(log.lines.empty());
}

TEST(FoldConstantDequantize, AlreadyDecodedFloat32ConstantIsFolded) {
  Graph g;
  int c = AddConstant<float>(g, "c", {2}, DataType::kFloat32, {3.5f, -1.0f});
  int w = AddTensor(g, "w", {2});
  AddNode(g, OpType::kDequantize, {c}, {w});
  g.outputs = {w};
  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_EQ(ConstantValues<float>(g.tensors[w]), (std::vector<float>{3.5f, -1.0f}));
  EXPECT_TRUE(g.tensors[c].data.empty()) << "its only reader folded: the bytes moved, not copied";
}

TEST(FoldConstantDequantize, AFloat32ConstantWithTwoReadersKeepsItsBytes) {
  Graph g;
  int c = AddConstant<float>(g, "c", {2}, DataType::kFloat32, {3.5f, -1.0f});
  int w1 = AddTensor(g, "w1", {2});
  int w2 = AddTensor(g, "w2", {2});
  AddNode(g, OpType::kDequantize, {c}, {w1});
  AddNode(g, OpType::kDequantize, {c}, {w2});
  g.outputs = {w1, w2};
  PassLog log;
  ASSERT_TRUE(FoldConstantDequantize(g, log).ok());
  EXPECT_TRUE(g.nodes.empty());
  EXPECT_EQ(ConstantValues<float>(g.tensors[w1]), (std::vector<float>{3.5f, -1.0f}));
  EXPECT_EQ(ConstantValues<float>(g.tensors[w2]), (std::vector<float>{3.5f, -1.0f}));
}

}  // namespace
}  // namespace gld
