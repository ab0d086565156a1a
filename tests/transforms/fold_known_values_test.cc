#include <gtest/gtest.h>

#include "cpu_kernels/kernel_interface.h"
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

// Keras' Reshape with a free batch dimension, as the converter writes it:
// RESHAPE(x, PACK(STRIDED_SLICE(SHAPE(x), [0], [1]), 60)) over x [2, 3, 4, 5].
struct BatchReshape {
  Graph g;
  int x, shape, batch, packed, y;
  BatchReshape() {
    x = AddTensor(g, "x", {2, 3, 4, 5});
    shape = AddTensor(g, "shape", {4}, DataType::kInt32);
    batch = AddTensor(g, "batch", {}, DataType::kInt32);
    packed = AddTensor(g, "packed", {2}, DataType::kInt32);
    y = AddTensor(g, "y", {2, 60});
    const int begin = AddConstant<int32_t>(g, "begin", {1}, DataType::kInt32, {0});
    const int end = AddConstant<int32_t>(g, "end", {1}, DataType::kInt32, {1});
    const int stride = AddConstant<int32_t>(g, "stride", {1}, DataType::kInt32, {1});
    const int sixty = AddConstant<int32_t>(g, "sixty", {}, DataType::kInt32, {60});
    AddNode(g, OpType::kShape, {x}, {shape}, 0);
    StridedSliceAttributes slice;
    slice.shrink_axis_mask = 1;
    AddNode(g, OpType::kStridedSlice, {shape, begin, end, stride}, {batch}, 1, slice);
    AxisAttributes pack;
    pack.count = 2;
    AddNode(g, OpType::kPack, {batch, sixty}, {packed}, 2, pack);
    AddNode(g, OpType::kReshape, {x, packed}, {y}, 3, ReshapeAttributes{});
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(FoldKnownValues, ShapeArithmeticBecomesAConstantShape) {
  BatchReshape m;
  std::map<int, std::vector<uint8_t>> known;
  ASSERT_TRUE((InferShapes(m.g, cpu::KnownValueOracle(), nullptr, &known)).ok());
  PassLog log;
  ExpectSameOutputs(m.g, [&](Graph& g) { ASSERT_TRUE(FoldKnownValues(g, known, log).ok()); });
  ASSERT_EQ(m.g.nodes.size(), 1u);
  EXPECT_EQ(m.g.nodes[0].op, OpType::kReshape);
  const Tensor& packed = m.g.tensors[static_cast<size_t>(m.packed)];
  ASSERT_TRUE(packed.is_constant);
  EXPECT_EQ(packed.DataAs<int32_t>()[0], 2);
  EXPECT_EQ(packed.DataAs<int32_t>()[1], 60);
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[0].rfind("fold_known_values: node 0 (SHAPE)", 0), 0u) << log.lines[0];
}

TEST(FoldKnownValues, KeepsNodesWhoseValuesAreNotAllKnownOrAreGraphOutputs) {
  BatchReshape m;
  m.g.outputs.push_back(m.packed);  // the packed shape is a graph output
  std::map<int, std::vector<uint8_t>> known;
  ASSERT_TRUE((InferShapes(m.g, cpu::KnownValueOracle(), nullptr, &known)).ok());
  known.erase(m.shape);  // as if SHAPE's values were not computed
  PassLog log;
  ASSERT_TRUE((FoldKnownValues(m.g, known, log)).ok());
  ASSERT_EQ(m.g.nodes.size(), 3u) << "SHAPE and PACK stay; STRIDED_SLICE folds";
  EXPECT_EQ(m.g.nodes[0].op, OpType::kShape);
  EXPECT_EQ(m.g.nodes[1].op, OpType::kPack);
  EXPECT_TRUE(m.g.tensors[static_cast<size_t>(m.batch)].is_constant);
  EXPECT_FALSE(m.g.tensors[static_cast<size_t>(m.packed)].is_constant);
}

}  // namespace
}  // namespace gld
