#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "common/graph_builder.h"
#include "runtime/runtime.h"
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


// int8 input -> MUL -> RESHAPE -> int8 output.
struct Int8Chain {
  Graph g;
  int x, m, r;
  Int8Chain() {
    x = AddQuantized(g, "x", {1, 4}, DataType::kInt8, Quant(0.5f, -1));
    m = AddQuantized(g, "m", {1, 4}, DataType::kInt8, Quant(0.25f, 3));
    r = AddQuantized(g, "r", {4}, DataType::kInt8, Quant(0.25f, 3));
    const int shape = AddConstant<int32_t>(g, "shape", {1}, DataType::kInt32, {4});
    AddNode(g, OpType::kMul, {x, x}, {m});
    AddNode(g, OpType::kReshape, {m, shape}, {r});
    g.inputs = {x};
    g.outputs = {r};
  }
};

TEST(QuantizedFloatView, FloatGraphIsUnchanged) {
  Graph g;
  const int a = AddTensor(g, "a", {1, 4});
  const int b = AddTensor(g, "b", {1, 4});
  AddNode(g, OpType::kRelu, {a}, {b});
  g.inputs = {a};
  g.outputs = {b};
  PassLog log;
  ASSERT_TRUE(QuantizedFloatView(g, log).ok());
  EXPECT_TRUE(log.lines.empty());
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.tensors.size(), 2u);
}

TEST(QuantizedFloatView, EdgesKeepTheirTypesAndIntermediatesBecomeFloatViews) {
  Int8Chain c;
  PassLog log;
  ASSERT_TRUE(QuantizedFloatView(c.g, log).ok());
  const Graph& g = c.g;
  // DEQUANTIZE at the input, MUL rounded by a fake QUANTIZE, RESHAPE only
  // moves values, QUANTIZE back to int8 at the output.
  EXPECT_EQ(Ops(g), (std::vector<OpType>{OpType::kDequantize, OpType::kMul, OpType::kQuantize, OpType::kReshape,
                                         OpType::kQuantize}));
  EXPECT_EQ(g.tensors[static_cast<size_t>(c.x)].type, DataType::kInt8);
  EXPECT_EQ(g.tensors[static_cast<size_t>(c.r)].type, DataType::kInt8);
  const Tensor& m = g.tensors[static_cast<size_t>(c.m)];
  EXPECT_EQ(m.type, DataType::kFloat32);
  ASSERT_EQ(m.quant.scale.size(), 1u);
  EXPECT_EQ(m.quant.scale[0], 0.25f);
  EXPECT_EQ(m.quant.storage_type, DataType::kInt8);

  const Node& deq = g.nodes[0];
  EXPECT_EQ(deq.inputs[0], c.x);
  const int x_view = deq.outputs[0];
  EXPECT_EQ(g.tensors[static_cast<size_t>(x_view)].type, DataType::kFloat32);
  EXPECT_EQ(g.tensors[static_cast<size_t>(x_view)].name, "x/float_view");
  EXPECT_EQ(g.nodes[1].inputs, (std::vector<int>{x_view, x_view}));
  const int unrounded = g.nodes[1].outputs[0];
  EXPECT_TRUE(g.tensors[static_cast<size_t>(unrounded)].quant.empty());
  EXPECT_EQ(g.nodes[2].inputs[0], unrounded);
  EXPECT_EQ(g.nodes[2].outputs[0], c.m);
  EXPECT_EQ(g.nodes[3].inputs[0], c.m);
  const int r_view = g.nodes[3].outputs[0];
  EXPECT_NE(r_view, c.r);
  EXPECT_EQ(g.tensors[static_cast<size_t>(r_view)].type, DataType::kFloat32);
  EXPECT_EQ(g.nodes[4].inputs[0], r_view);
  EXPECT_EQ(g.nodes[4].outputs[0], c.r);
  EXPECT_EQ(g.inputs, (std::vector<int>{c.x}));
  EXPECT_EQ(g.outputs, (std::vector<int>{c.r}));
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[0].rfind("quantized_float_view: input 'x'", 0), 0u) << log.lines[0];
  EXPECT_NE(log.lines[2].find("1 result(s) rounded"), std::string::npos) << log.lines[2];
}

TEST(QuantizedFloatView, ConcatenationRoundsOnlyWhenParametersDiffer) {
  for (bool same : {true, false}) {
    Graph g;
    const int a = AddQuantized(g, "a", {1, 2}, DataType::kInt8, Quant(0.1f, 0));
    const int b = AddQuantized(g, "b", {1, 2}, DataType::kInt8, Quant(same ? 0.1f : 0.2f, 0));
    const int a2 = AddQuantized(g, "a2", {1, 2}, DataType::kInt8, Quant(0.1f, 0));
    const int b2 = AddQuantized(g, "b2", {1, 2}, DataType::kInt8, Quant(same ? 0.1f : 0.2f, 0));
    const int c = AddQuantized(g, "c", {1, 4}, DataType::kInt8, Quant(0.1f, 0));
    const int d = AddQuantized(g, "d", {1, 4}, DataType::kInt8, Quant(0.1f, 0));
    AddNode(g, OpType::kReshape, {a}, {a2});
    AddNode(g, OpType::kReshape, {b}, {b2});
    AddNode(g, OpType::kConcatenation, {a2, b2}, {c}, -1, ConcatenationAttributes{1, Activation::kNone});
    AddNode(g, OpType::kRelu, {c}, {d});
    g.inputs = {a, b};
    g.outputs = {d};
    PassLog log;
    ASSERT_TRUE(QuantizedFloatView(g, log).ok());
    int fake_quant = 0;
    for (const Node& n : g.nodes) {
      if (n.op == OpType::kQuantize && n.outputs[0] == c) ++fake_quant;
    }
    EXPECT_EQ(fake_quant, same ? 0 : 1) << (same ? "same" : "different") << " parameters";
  }
}

TEST(QuantizedFloatView, StorageTypeDecidesTheGrid) {
  // A uint8 tensor with zero point 0 and an int8 one with zero point 0 lie on
  // different grids once both are float views.
  EXPECT_EQ(QuantizedGridType(Quant(1.0f, 0, DataType::kUInt8), DataType::kFloat32), DataType::kUInt8);
  EXPECT_EQ(QuantizedGridType(Quant(1.0f, 0, DataType::kInt8), DataType::kFloat32), DataType::kInt8);
  EXPECT_EQ(QuantizedGridType(Quant(1.0f, 0, DataType::kInt8), DataType::kUInt8), DataType::kUInt8);
  EXPECT_EQ(QuantizedGridType(Quant(1.0f, 200), DataType::kFloat32), DataType::kUInt8);  // no storage type: guess
  Graph g;
  const int x = AddQuantized(g, "x", {3}, DataType::kUInt8, Quant(1.0f, 0));
  const int y = AddQuantized(g, "y", {3}, DataType::kUInt8, Quant(1.0f, 0));
  const int z = AddTensor(g, "z", {3});
  AddNode(g, OpType::kRelu, {x}, {y});
  AddNode(g, OpType::kDequantize, {y}, {z});
  g.inputs = {x};
  g.outputs = {z};
  PassLog log;
  ASSERT_TRUE(QuantizedFloatView(g, log).ok());
  EXPECT_EQ(g.tensors[static_cast<size_t>(y)].type, DataType::kFloat32);
  EXPECT_EQ(g.tensors[static_cast<size_t>(y)].quant.storage_type, DataType::kUInt8);
}

TEST(QuantizedFloatView, CastReadsTheStoredIntegers) {
  Graph g;
  const int x = AddQuantized(g, "x", {2}, DataType::kInt8, Quant(0.5f, 4));
  const int y = AddTensor(g, "y", {2}, DataType::kInt32);
  AddNode(g, OpType::kCast, {x}, {y});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ASSERT_TRUE(QuantizedFloatView(g, log).ok());
  // DEQUANTIZE at the edge, then QUANTIZE back to int8 for the CAST.
  ASSERT_EQ(Ops(g), (std::vector<OpType>{OpType::kDequantize, OpType::kQuantize, OpType::kCast}));
  const int integers = g.nodes[2].inputs[0];
  EXPECT_EQ(g.nodes[1].outputs[0], integers);
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
  EXPECT_EQ(g.tensors[static_cast<size_t>(integers)].type, DataType::kInt8);
  EXPECT_EQ(g.tensors[static_cast<size_t>(integers)].quant.zero_point, (std::vector<int64_t>{4}));
}

// End to end on the CPU backend: int8 in, int8 out, with an intermediate
// result that LiteRT's integer MUL rounds to its grid before the ADD reads it.
// Expected values by TFLite's rule (round half away from zero, clamp):
//   x = q * 0.5           = [1.5, 2.5, -3.5, 0.5, 50, -0.5]
//   m = round(x * x / 1)  = [2, 6, 12, 0, 127 (2500 clamped), 0]
//   y = round((m + m) / 1) clamped = [4, 12, 24, 0, 127, 0]
// Without rounding m first, y would be [5, 13, 25, 1, 127, 1].
TEST(QuantizedFloatView, Int8ChainRoundsLikeLiteRT) {
  Graph g;
  const int x = AddQuantized(g, "x", {6}, DataType::kInt8, Quant(0.5f, 0));
  const int m = AddQuantized(g, "m", {6}, DataType::kInt8, Quant(1.0f, 0));
  const int y = AddQuantized(g, "y", {6}, DataType::kInt8, Quant(1.0f, 0));
  AddNode(g, OpType::kMul, {x, x}, {m}, -1, BinaryAttributes{});
  AddNode(g, OpType::kAdd, {m, m}, {y}, -1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  Options options;
  options.backend = Backend::kCpu;
  auto rt = Runtime::Create(std::move(g), options);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const Graph& graph = (*rt)->graph();
  ASSERT_EQ(graph.tensors[graph.inputs[0]].type, DataType::kInt8);
  ASSERT_EQ(graph.tensors[graph.outputs[0]].type, DataType::kInt8);
  const int8_t in[6] = {3, 5, -7, 1, 100, -1};
  ASSERT_TRUE((*rt)->SetInput(0, in, sizeof(in)).ok());
  ASSERT_TRUE((*rt)->Invoke().ok());
  int8_t out[6] = {};
  ASSERT_TRUE((*rt)->GetOutput(0, out, sizeof(out)).ok());
  const int8_t expected[6] = {4, 12, 24, 0, 127, 0};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], expected[i]) << "element " << i;
}

// A uint8 intermediate with zero point 0 keeps the range [0, 255] once it is
// a float view (a grid guessed from the zero point would clamp at 127).
TEST(QuantizedFloatView, UInt8IntermediateKeepsItsRange) {
  Graph g;
  const int x = AddQuantized(g, "x", {4}, DataType::kUInt8, Quant(1.0f, 0));
  const int m = AddQuantized(g, "m", {4}, DataType::kUInt8, Quant(1.0f, 0));
  const int y = AddQuantized(g, "y", {4}, DataType::kUInt8, Quant(1.0f, 0));
  AddNode(g, OpType::kRelu, {x}, {m});
  AddNode(g, OpType::kRelu, {m}, {y});
  g.inputs = {x};
  g.outputs = {y};
  Options options;
  options.backend = Backend::kCpu;
  auto rt = Runtime::Create(std::move(g), options);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const uint8_t in[4] = {200, 0, 255, 100};
  ASSERT_TRUE((*rt)->SetInput(0, in, sizeof(in)).ok());
  ASSERT_TRUE((*rt)->Invoke().ok());
  uint8_t out[4] = {};
  ASSERT_TRUE((*rt)->GetOutput(0, out, sizeof(out)).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], in[i]) << "element " << i;
}

// First after inline_composites (which only puts a composite's
// decomposition in its place): every later pass sees a float graph.
TEST(QuantizedFloatView, RunsFirstInTheDefaultPasses) {
  const auto& passes = DefaultPasses();
  ASSERT_GE(passes.size(), 3u);
  // After the composites only: the fused ones (float32 only) and the inlined.
  EXPECT_STREQ(passes[0].name, "fuse_composites");
  EXPECT_STREQ(passes[1].name, "inline_composites");
  EXPECT_STREQ(passes[2].name, "quantized_float_view");
}

}  // namespace
}  // namespace gld
