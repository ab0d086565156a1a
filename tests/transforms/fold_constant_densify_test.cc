#include <gtest/gtest.h>

#include "common/graph_builder.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::ConstantValues;

// A 2x3 matrix [[0, 0, 1], [2, 3, 0]] in CSR form: rows dense, columns sparse.
int AddSparseMatrix(Graph& g) {
  int s = AddConstant<float>(g, "w_sparse", {2, 3}, DataType::kFloat32, {1.0f, 2.0f, 3.0f});
  SparsityParams sp;
  sp.traversal_order = {0, 1};
  SparseDimension rows;
  rows.dense_size = 2;
  SparseDimension cols;
  cols.sparse_csr = true;
  cols.array_segments = {0, 1, 3};
  cols.array_indices = {2, 0, 1};
  sp.dim_metadata = {rows, cols};
  g.tensors[s].sparsity = sp;
  return s;
}

TEST(FoldConstantDensify, SparseConstantBecomesDenseConstant) {
  Graph g;
  int s = AddSparseMatrix(g);
  int w = AddTensor(g, "w", {2, 3});
  int x = AddTensor(g, "x", {1, 3});
  int y = AddTensor(g, "y", {1, 2});
  AddNode(g, OpType::kDensify, {s}, {w}, 4);
  AddNode(g, OpType::kFullyConnected, {x, w, kNoTensor}, {y}, 5, FullyConnectedAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  PassLog log;
  Status st = FoldConstantDensify(g, log);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, OpType::kFullyConnected);
  const Tensor& wt = g.tensors[w];
  EXPECT_TRUE(wt.is_constant);
  EXPECT_FALSE(wt.sparsity.has_value());
  EXPECT_EQ(wt.shape, (Shape{2, 3}));
  EXPECT_EQ(ConstantValues<float>(wt), (std::vector<float>{0, 0, 1, 2, 3, 0}));
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0], "fold_constant_densify: node 4 (DENSIFY) -> constant tensor 'w' [2, 3] float32");
}

TEST(FoldConstantDensify, DenseInputIsLeftAlone) {
  Graph g;
  int c = AddConstant<float>(g, "c", {2}, DataType::kFloat32, {1, 2});
  int w = AddTensor(g, "w", {2});
  AddNode(g, OpType::kDensify, {c}, {w});
  g.outputs = {w};
  PassLog log;
  ASSERT_TRUE(FoldConstantDensify(g, log).ok());
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_TRUE(log.lines.empty());
}

TEST(FoldConstantDensify, BadSparseIndexIsAnErrorNamingTheNode) {
  Graph g;
  int s = AddSparseMatrix(g);
  g.tensors[s].sparsity->dim_metadata[1].array_indices = {2, 0, 7};  // column 7 of 3
  int w = AddTensor(g, "w", {2, 3});
  AddNode(g, OpType::kDensify, {s}, {w}, 9);
  g.outputs = {w};
  PassLog log;
  Status st = FoldConstantDensify(g, log);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("node 9 (DENSIFY)"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace gld
