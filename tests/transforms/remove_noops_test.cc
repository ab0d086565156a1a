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

// x -> RELU -> a -> `op`(a, extra inputs) -> b -> NEG -> y
struct Chain {
  Graph g;
  int x, a, b, y;
  Chain(const Shape& in, const Shape& mid) {
    x = AddTensor(g, "x", in);
    a = AddTensor(g, "a", in);
    b = AddTensor(g, "b", mid);
    y = AddTensor(g, "y", mid);
    g.inputs = {x};
    g.outputs = {y};
  }
  void Build(OpType op, std::vector<int> extra, Attributes attrs = {}) {
    AddNode(g, OpType::kRelu, {x}, {a}, 0);
    std::vector<int> inputs = {a};
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    AddNode(g, op, inputs, {b}, 1, std::move(attrs));
    AddNode(g, OpType::kNeg, {b}, {y}, 2);
  }
};

void ExpectRemoved(Chain& c, const std::string& op_name) {
  PassLog log;
  ExpectSameOutputs(c.g, [&](Graph& g) { ASSERT_TRUE(RemoveNoops(g, log).ok()); });
  ASSERT_EQ(c.g.nodes.size(), 2u) << op_name;
  EXPECT_EQ(c.g.nodes[1].op, OpType::kNeg);
  EXPECT_EQ(c.g.nodes[1].inputs[0], c.a) << "NEG reads the no-op's input";
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].rfind("remove_noops: node 1 (" + op_name + ") removed (", 0), 0u) << log.lines[0];
}

TEST(RemoveNoops, RemovesReshapeSqueezeExpandDimsToTheSameShape) {
  for (OpType op : {OpType::kReshape, OpType::kSqueeze, OpType::kExpandDims}) {
    Chain c({1, 3, 4}, {1, 3, 4});
    std::vector<int> extra;
    if (op == OpType::kReshape) extra = {AddConstant<int32_t>(c.g, "shape", {3}, DataType::kInt32, {1, 3, 4})};
    if (op == OpType::kExpandDims) extra = {AddConstant<int32_t>(c.g, "axis", {}, DataType::kInt32, {0})};
    Attributes attrs;
    if (op == OpType::kReshape) attrs = ReshapeAttributes{};
    if (op == OpType::kSqueeze) attrs = SqueezeAttributes{};
    c.Build(op, extra, attrs);
    ExpectRemoved(c, OpTypeName(op));
  }
}

TEST(RemoveNoops, KeepsAReshapeThatChangesTheShape) {
  Chain c({1, 3, 4}, {3, 4});
  c.Build(OpType::kReshape, {AddConstant<int32_t>(c.g, "shape", {2}, DataType::kInt32, {3, 4})},
          ReshapeAttributes{});
  PassLog log;
  ASSERT_TRUE(RemoveNoops(c.g, log).ok());
  EXPECT_EQ(c.g.nodes.size(), 3u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(RemoveNoops, KeepsAReshapeThatAResizeMakesChangeTheShape) {
  // [1, 3, 4] -> [1, 3, 4] at the file's batch, but the input's batch is free
  // and the target fixes it at 1: at batch 2 the node refuses.
  Chain c({1, 3, 4}, {1, 3, 4});
  c.g.tensors[static_cast<size_t>(c.x)].signature = {-1, 3, 4};
  c.g.tensors[static_cast<size_t>(c.a)].signature = {-1, 3, 4};
  c.Build(OpType::kReshape, {AddConstant<int32_t>(c.g, "shape", {3}, DataType::kInt32, {1, 3, 4})},
          ReshapeAttributes{});
  PassLog log;
  ASSERT_TRUE(RemoveNoops(c.g, log).ok());
  EXPECT_EQ(c.g.nodes.size(), 3u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(RemoveNoops, RemovesSingleInputConcatenationAndAddN) {
  for (OpType op : {OpType::kConcatenation, OpType::kAddN}) {
    Chain c({2, 3}, {2, 3});
    Attributes attrs;
    if (op == OpType::kConcatenation) attrs = ConcatenationAttributes{1, Activation::kNone};
    c.Build(op, {}, attrs);
    ExpectRemoved(c, OpTypeName(op));
  }
}

TEST(RemoveNoops, KeepsAConcatenationWithAnActivation) {
  Chain c({2, 3}, {2, 3});
  c.Build(OpType::kConcatenation, {}, ConcatenationAttributes{1, Activation::kRelu6});
  PassLog log;
  ASSERT_TRUE(RemoveNoops(c.g, log).ok());
  EXPECT_EQ(c.g.nodes.size(), 3u);
}

TEST(RemoveNoops, RemovesWholeTensorSlices) {
  {
    Chain c({2, 3, 4}, {2, 3, 4});
    int begin = AddConstant<int32_t>(c.g, "begin", {3}, DataType::kInt32, {0, 0, 0});
    int size = AddConstant<int32_t>(c.g, "size", {3}, DataType::kInt32, {-1, 3, 4});
    c.Build(OpType::kSlice, {begin, size});
    ExpectRemoved(c, "SLICE");
  }
  {
    Chain c({2, 3, 4}, {2, 3, 4});
    int begin = AddConstant<int32_t>(c.g, "begin", {3}, DataType::kInt32, {0, 5, 0});
    int end = AddConstant<int32_t>(c.g, "end", {3}, DataType::kInt32, {2, 3, 4});
    int strides = AddConstant<int32_t>(c.g, "strides", {3}, DataType::kInt32, {1, 1, 1});
    StridedSliceAttributes a;
    a.begin_mask = 2;  // axis 1 starts at 0 whatever begin says
    c.Build(OpType::kStridedSlice, {begin, end, strides}, a);
    ExpectRemoved(c, "STRIDED_SLICE");
  }
}

TEST(RemoveNoops, KeepsSlicesThatMoveOrStride) {
  Chain c({4}, {4});
  int begin = AddConstant<int32_t>(c.g, "begin", {1}, DataType::kInt32, {0});
  int end = AddConstant<int32_t>(c.g, "end", {1}, DataType::kInt32, {8});
  int strides = AddConstant<int32_t>(c.g, "strides", {1}, DataType::kInt32, {2});
  c.g.tensors[c.x].shape = {8};
  c.g.tensors[c.a].shape = {8};
  c.Build(OpType::kStridedSlice, {begin, end, strides}, StridedSliceAttributes{});
  PassLog log;
  ASSERT_TRUE(RemoveNoops(c.g, log).ok());
  EXPECT_EQ(c.g.nodes.size(), 3u);
}

TEST(RemoveNoops, RemovesResizeToTheSameSize) {
  for (OpType op : {OpType::kResizeBilinear, OpType::kResizeNearestNeighbor}) {
    Chain c({1, 3, 5, 2}, {1, 3, 5, 2});
    int size = AddConstant<int32_t>(c.g, "size", {2}, DataType::kInt32, {3, 5});
    ResizeAttributes a;
    a.half_pixel_centers = true;
    c.Build(op, {size}, a);
    ExpectRemoved(c, OpTypeName(op));
  }
}

TEST(RemoveNoops, AGraphOutputKeepsItsTensor) {
  // x -> RELU -> a -> RESHAPE (same shape) -> y (graph output)
  Graph g;
  int x = AddTensor(g, "x", {2, 3});
  int a = AddTensor(g, "a", {2, 3});
  int y = AddTensor(g, "y", {2, 3});
  int shape = AddConstant<int32_t>(g, "shape", {2}, DataType::kInt32, {2, 3});
  AddNode(g, OpType::kRelu, {x}, {a}, 0);
  AddNode(g, OpType::kReshape, {a, shape}, {y}, 1, ReshapeAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  ExpectSameOutputs(g, [&](Graph& graph) { ASSERT_TRUE(RemoveNoops(graph, log).ok()); });
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].outputs[0], y);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0],
            "remove_noops: node 1 (RESHAPE) removed (same shape in and out): node 0 (RELU) writes graph output "
            "'y' [2, 3] float32 directly");

  // The same reshape of a graph input has no producer to redirect: it stays.
  Graph h;
  x = AddTensor(h, "x", {2, 3});
  y = AddTensor(h, "y", {2, 3});
  shape = AddConstant<int32_t>(h, "shape", {2}, DataType::kInt32, {2, 3});
  AddNode(h, OpType::kReshape, {x, shape}, {y}, 0, ReshapeAttributes{});
  h.inputs = {x};
  h.outputs = {y};
  ASSERT_TRUE(RemoveNoops(h, log).ok());
  EXPECT_EQ(h.nodes.size(), 1u);
}

}  // namespace
}  // namespace gld
