#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "graph/graph_check.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

Graph Valid() {
  Graph g;
  int x = AddTensor(g, "x", {2});
  int c = AddConstant<float>(g, "c", {2}, DataType::kFloat32, {1, 2});
  int y = AddTensor(g, "y", {2});
  AddNode(g, OpType::kAdd, {x, c}, {y}, 0, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

void ExpectError(const Graph& g, const std::string& fragment) {
  Status s = CheckGraphStructure(g);
  ASSERT_FALSE(s.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(GraphCheck, AcceptsAValidGraph) { EXPECT_TRUE(CheckGraphStructure(Valid()).ok()); }

TEST(GraphCheck, TensorIndexOutOfRange) {
  Graph g = Valid();
  g.nodes[0].inputs[1] = 99;
  ExpectError(g, "node 0 (ADD): input 1 refers to tensor 99, but the graph has 3 tensors");
}

TEST(GraphCheck, InputReadBeforeItIsWritten) {
  Graph g = Valid();
  int z = AddTensor(g, "z", {2});
  g.nodes[0].inputs[0] = z;
  ExpectError(g, "node 0 (ADD): input 0 (tensor 3 'z') is not a graph input or constant");
}

TEST(GraphCheck, TensorWrittenTwice) {
  Graph g = Valid();
  AddNode(g, OpType::kNeg, {0}, {2}, 1);
  ExpectError(g, "node 1 (NEG): output 0 (tensor 2 'y') is written by an earlier node too");
}

TEST(GraphCheck, NodeWritesAConstant) {
  Graph g = Valid();
  g.nodes[0].outputs[0] = 1;
  ExpectError(g, "output 0 (tensor 1 'c') is a constant");
}

TEST(GraphCheck, GraphOutputNeverWritten) {
  Graph g = Valid();
  int z = AddTensor(g, "z", {2});
  g.outputs.push_back(z);
  ExpectError(g, "graph output 1 (tensor 3 'z') is never written");
}

TEST(GraphCheck, GraphInputOutOfRange) {
  Graph g = Valid();
  g.inputs = {-5};
  ExpectError(g, "graph input 0 refers to tensor -5");
}

}  // namespace
}  // namespace gld
