// integer_view: the CPU backend's form of a quantized graph.
#include <gtest/gtest.h>

#include <cstdint>

#include "common/graph_builder.h"
#include "transforms/pass.h"
#include "transforms/pass_list.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddQuantized;
using testing::AddTensor;
using testing::Ops;
using testing::Quant;


// int8 x -> ADD(x, x) -> a -> EXP -> t -> RESHAPE -> int8 output r; a is
// also an output. ADD has an integer kernel, EXP none, RESHAPE moves
// values.
struct Mixed {
  Graph g;
  int x, a, t, r;
  Mixed() {
    x = AddQuantized(g, "x", {1, 4}, DataType::kInt8, Quant(0.5f, -1));
    a = AddQuantized(g, "a", {1, 4}, DataType::kInt8, Quant(0.25f, 3));
    t = AddQuantized(g, "t", {1, 4}, DataType::kInt8, Quant(1.f / 128, 0));
    r = AddQuantized(g, "r", {4}, DataType::kInt8, Quant(1.f / 128, 0));
    const int shape = AddConstant<int32_t>(g, "shape", {1}, DataType::kInt32, {4});
    AddNode(g, OpType::kAdd, {x, x}, {a}, -1, BinaryAttributes{});
    AddNode(g, OpType::kExp, {a}, {t});
    AddNode(g, OpType::kReshape, {t, shape}, {r});
    g.inputs = {x};
    g.outputs = {r, a};
  }
};

TEST(IntegerView, IntegerNodesKeepIntegersAndTheFloatViewMeetsThemAtSeams) {
  Mixed m;
  PassLog log;
  ASSERT_TRUE(CpuIntegerView(m.g, log).ok());
  // ADD on integers; EXP reads a's float view and writes an unrounded
  // float that a QUANTIZE turns into the integer t, which RESHAPE moves.
  EXPECT_EQ(Ops(m.g), (std::vector<OpType>{OpType::kAdd, OpType::kDequantize, OpType::kExp, OpType::kQuantize,
                                           OpType::kReshape}));
  for (int t : {m.x, m.a, m.t, m.r}) EXPECT_EQ(m.g.tensors[static_cast<size_t>(t)].type, DataType::kInt8) << t;
  const Node& dequantize = m.g.nodes[1];
  EXPECT_EQ(dequantize.inputs[0], m.a);
  const Tensor& view = m.g.tensors[static_cast<size_t>(dequantize.outputs[0])];
  EXPECT_EQ(view.type, DataType::kFloat32);
  EXPECT_EQ(view.quant.scale, std::vector<float>{0.25f});
  EXPECT_EQ(m.g.nodes[2].inputs[0], dequantize.outputs[0]);
  const Tensor& unrounded = m.g.tensors[static_cast<size_t>(m.g.nodes[2].outputs[0])];
  EXPECT_EQ(unrounded.type, DataType::kFloat32);
  EXPECT_TRUE(unrounded.quant.empty());
  EXPECT_EQ(m.g.nodes[3].outputs[0], m.t);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].rfind("integer_view: 2 node(s) run on integers, 1 in the float view;", 0), 0u)
      << log.lines[0];
}

TEST(IntegerView, FloatGraphIsUnchanged) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 4}, DataType::kFloat32);
  const int y = AddTensor(g, "y", {1, 4}, DataType::kFloat32);
  AddNode(g, OpType::kExp, {x}, {y});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(CpuIntegerView(g, log).ok());
  EXPECT_EQ(Ops(g), std::vector<OpType>{OpType::kExp});
  EXPECT_TRUE(log.lines.empty());
  EXPECT_FALSE(HasQuantizedActivations(g));
}

// Only float-view nodes: integer inputs and outputs stay integers, converted
// where they are read and made.
TEST(IntegerView, WithoutIntegerNodesItIsTheFloatView) {
  Graph g;
  const int x = AddQuantized(g, "x", {1, 4}, DataType::kInt8, Quant(0.5f, -1));
  const int t = AddQuantized(g, "t", {1, 4}, DataType::kInt8, Quant(1.f / 128, 0));
  const int u = AddQuantized(g, "u", {1, 4}, DataType::kInt8, Quant(1.f / 128, 0));
  AddNode(g, OpType::kExp, {x}, {t});
  AddNode(g, OpType::kNeg, {t}, {u});
  g.inputs = {x};
  g.outputs = {u};
  ASSERT_TRUE(HasQuantizedActivations(g));
  PassLog log;
  ASSERT_TRUE(CpuIntegerView(g, log).ok());
  EXPECT_EQ(Ops(g), (std::vector<OpType>{OpType::kDequantize, OpType::kExp, OpType::kQuantize, OpType::kNeg,
                                         OpType::kQuantize}));
  EXPECT_EQ(g.tensors[static_cast<size_t>(t)].type, DataType::kFloat32);  // the float view, fake-quantized
  EXPECT_EQ(g.tensors[static_cast<size_t>(u)].type, DataType::kInt8);
}

TEST(IntegerView, AValueMovingNodeReadsAnInt8CopyOfADecodedConstant) {
  // GATHER from an embedding table the reader decoded from int8 (scale 0.5,
  // zero point 2): the node runs on integers and reads the stored integers;
  // the decoded table stays for whatever else reads it.
  Graph g;
  const std::vector<float> decoded{-1.f, 0.f, 0.5f, 62.5f};  // stored q -> (q - 2) x 0.5
  const int table = AddConstant<float>(g, "table", {2, 2}, DataType::kFloat32, decoded);
  g.tensors[static_cast<size_t>(table)].quant = Quant(0.5f, 2, DataType::kInt8);
  const int ids = AddTensor(g, "ids", {3}, DataType::kInt32);
  const int out = AddQuantized(g, "out", {3, 2}, DataType::kInt8, Quant(0.5f, 2));
  AddNode(g, OpType::kGather, {table, ids}, {out}, -1, AxisAttributes{});
  g.inputs = {ids};
  g.outputs = {out};
  PassLog log;
  ASSERT_TRUE(CpuIntegerView(g, log).ok());
  EXPECT_EQ(Ops(g), (std::vector<OpType>{OpType::kGather}));
  const int read = g.nodes[0].inputs[0];
  ASSERT_NE(read, table);
  const Tensor& copy = g.tensors[static_cast<size_t>(read)];
  EXPECT_TRUE(copy.is_constant);
  EXPECT_EQ(copy.type, DataType::kInt8);
  EXPECT_EQ(copy.shape, (Shape{2, 2}));
  ASSERT_EQ(copy.data.size(), 4u);
  const int8_t* stored = reinterpret_cast<const int8_t*>(copy.data.data());
  EXPECT_EQ((std::vector<int8_t>(stored, stored + 4)), (std::vector<int8_t>{0, 2, 3, 127}));
  EXPECT_EQ(g.tensors[static_cast<size_t>(table)].type, DataType::kFloat32);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(log.lines[0].find("1 node(s) run on integers, 0 in the float view"), std::string::npos) << log.lines[0];
}

// First after inline_composites (which only puts a composite's
// decomposition in its place): every later pass sees the integer view.
TEST(IntegerView, CpuPassListStartsWithIt) {
  const std::vector<Pass>& passes = CpuIntegerPasses();
  ASSERT_GE(passes.size(), 2u);
  EXPECT_STREQ(passes[0].name, "inline_composites");
  EXPECT_STREQ(passes[1].name, "integer_view");
}

}  // namespace
}  // namespace gld
