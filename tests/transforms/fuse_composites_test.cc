// fuse_composites: litert-torch's odml.rms_norm and
// odml.scaled_dot_product_attention composites as one node of the library's,
// computing what their decompositions compute (the decomposition inlined and
// run node by node is the reference); decompositions of other arithmetic,
// and shapes the ops do not take, stay composites for inline_composites.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/graph_builder.h"
#include "graph_runner.h"
#include "transforms/pass.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;
using testing::RandomFloats;

int Ints(Graph& g, const std::string& name, std::vector<int32_t> v) {
  return AddConstant<int32_t>(g, name, {static_cast<int>(v.size())}, DataType::kInt32, v);
}
int Scalar(Graph& g, const std::string& name, float v) {
  return AddConstant<float>(g, name, {}, DataType::kFloat32, {v});
}

// odml.rms_norm's decomposition over x [2, 3, 8] as litert-torch writes it:
// MUL(x, x), MEAN keeping the axis (or dropping it, then a RESHAPE), ADD
// epsilon, RSQRT, MUL x, MUL w. `zero_centered`: w + 1 instead of w.
Graph RmsDecomposition(bool keep_dims, bool zero_centered) {
  Graph g;
  const Shape xs = {2, 3, 8}, row = {2, 3, 1};
  int x = AddTensor(g, "x", xs), w = AddTensor(g, "w", {8});
  int sq = AddTensor(g, "sq", xs), ms = AddTensor(g, "ms", keep_dims ? row : Shape{2, 3});
  int e = AddTensor(g, "e", keep_dims ? row : Shape{2, 3}), r = AddTensor(g, "r", row);
  int y = AddTensor(g, "y", xs), out = AddTensor(g, "out", xs);
  AddNode(g, OpType::kMul, {x, x}, {sq}, 0, BinaryAttributes{});
  AddNode(g, OpType::kMean, {sq, Ints(g, "axes", {2})}, {ms}, 1, ReduceAttributes{keep_dims});
  AddNode(g, OpType::kAdd, {ms, Scalar(g, "eps", 1e-5f)}, {e}, 2, BinaryAttributes{});
  int rs_in = e;
  if (!keep_dims) {
    rs_in = AddTensor(g, "e_kept", row);
    AddNode(g, OpType::kReshape, {e, Ints(g, "shape", {2, 3, 1})}, {rs_in}, 3, ReshapeAttributes{});
  }
  AddNode(g, OpType::kRsqrt, {rs_in}, {r}, 4);
  AddNode(g, OpType::kMul, {x, r}, {y}, 5, BinaryAttributes{});
  int scale = w;
  if (zero_centered) {
    scale = AddTensor(g, "w1", {8});
    AddNode(g, OpType::kAdd, {w, Scalar(g, "one", 1.0f)}, {scale}, 6, BinaryAttributes{});
  }
  AddNode(g, OpType::kMul, {y, scale}, {out}, 7, BinaryAttributes{});
  g.inputs = {x, w};
  g.outputs = {out};
  g.is_callee = true;
  return g;
}

// odml.scaled_dot_product_attention's decomposition (litert-torch's prefill
// form): q [1, T, N, H], k, v [1, S, N, H], mask [1, 1, T, S].
Graph AttentionDecomposition(int t, int s, int n, int h, float q_scale, float k_scale) {
  Graph g;
  int q = AddTensor(g, "q", {1, t, n, h}), k = AddTensor(g, "k", {1, s, n, h});
  int v = AddTensor(g, "v", {1, s, n, h}), mask = AddTensor(g, "mask", {1, 1, t, s});
  const int i32 = n, ti = t, si = s, hi = h;
  auto op = [&](OpType o, std::vector<int> in, Shape shape, const std::string& name, Attributes a = {}) {
    int out = AddTensor(g, name, std::move(shape));
    AddNode(g, o, std::move(in), {out}, static_cast<int>(g.nodes.size()), std::move(a));
    return out;
  };
  int vt = op(OpType::kTranspose, {v, Ints(g, "p0213", {0, 2, 1, 3})}, {1, n, s, h}, "vt");
  int vr = op(OpType::kReshape, {vt, Ints(g, "vshape", {i32, si, hi})}, {n, s, h}, "vr", ReshapeAttributes{});
  int qs = op(OpType::kMul, {q, Scalar(g, "qscale", q_scale)}, {1, t, n, h}, "qs", BinaryAttributes{});
  int qt = op(OpType::kTranspose, {qs, Ints(g, "p0213b", {0, 2, 1, 3})}, {1, n, t, h}, "qt");
  int ks = op(OpType::kMul, {k, Scalar(g, "kscale", k_scale)}, {1, s, n, h}, "ks", BinaryAttributes{});
  int kt = op(OpType::kTranspose, {ks, Ints(g, "p0231", {0, 2, 3, 1})}, {1, n, h, s}, "kt");
  int qr = op(OpType::kReshape, {qt, Ints(g, "qshape", {i32, ti, hi})}, {n, t, h}, "qr", ReshapeAttributes{});
  int kr = op(OpType::kReshape, {kt, Ints(g, "kshape", {i32, hi, si})}, {n, h, s}, "kr", ReshapeAttributes{});
  int sc = op(OpType::kBatchMatMul, {qr, kr}, {n, t, s}, "scores", BatchMatMulAttributes{});
  int sm = op(OpType::kAdd, {sc, mask}, {1, n, t, s}, "masked", BinaryAttributes{});
  int p = op(OpType::kSoftmax, {sm}, {1, n, t, s}, "p", SoftmaxAttributes{1.0f});
  int pr = op(OpType::kReshape, {p, Ints(g, "pshape", {i32, ti, si})}, {n, t, s}, "pr", ReshapeAttributes{});
  int o = op(OpType::kBatchMatMul, {pr, vr}, {n, t, h}, "o", BatchMatMulAttributes{});
  int o4 = op(OpType::kReshape, {o, Ints(g, "oshape", {1, i32, ti, hi})}, {1, n, t, h}, "o4", ReshapeAttributes{});
  int out = op(OpType::kTranspose, {o4, Ints(g, "p0213c", {0, 2, 1, 3})}, {1, t, n, h}, "out");
  g.inputs = {q, k, v, mask};
  g.outputs = {out};
  g.is_callee = true;
  return g;
}

// A graph of one composite `name` calling `callee` (subgraph 1), on inputs of
// the callee's shapes; `constant_inputs` of them constants (seeded).
Graph CompositeGraph(Graph callee, const std::string& name, std::vector<std::pair<std::string, double>> numbers,
                     size_t graph_inputs) {
  Graph g;
  std::vector<int> ins;
  for (size_t i = 0; i < callee.inputs.size(); ++i) {
    const Tensor& t = callee.tensors[static_cast<size_t>(callee.inputs[i])];
    if (i < graph_inputs) {
      ins.push_back(AddTensor(g, t.name, t.shape));
    } else {
      ins.push_back(AddConstant<float>(g, t.name, t.shape, DataType::kFloat32,
                                       RandomFloats(static_cast<size_t>(t.num_elements()), 40 + i, 0.5f, 1.5f)));
    }
  }
  int out = AddTensor(g, "out", callee.tensors[static_cast<size_t>(callee.outputs[0])].shape);
  CompositeAttributes a;
  a.name = name;
  a.decomposition_subgraph = 1;
  a.numbers = std::move(numbers);
  AddNode(g, OpType::kStablehloComposite, ins, {out}, 0, a);
  g.inputs.assign(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(graph_inputs));
  g.outputs = {out};
  auto subgraphs = std::make_shared<std::vector<Graph>>();
  subgraphs->push_back(Graph{});
  subgraphs->push_back(std::move(callee));
  g.subgraphs = std::move(subgraphs);
  return g;
}

// Fuses `g`; expects one node of `op` whose outputs match the inlined
// decomposition's on seeded inputs within 1e-5 of the largest value.
void ExpectFusedMatchesDecomposition(const Graph& g, OpType op) {
  Graph inlined = g, fused = g;
  PassLog log;
  ASSERT_TRUE(InlineComposites(inlined, log).ok());
  ASSERT_TRUE(FuseComposites(fused, log).ok());
  ASSERT_EQ(fused.nodes.size(), 1u) << log.lines.back();
  ASSERT_EQ(fused.nodes[0].op, op) << log.lines.back();
  std::vector<std::vector<float>> inputs;
  for (size_t k = 0; k < g.inputs.size(); ++k) {
    const Tensor& t = g.tensors[static_cast<size_t>(g.inputs[k])];
    inputs.push_back(RandomFloats(static_cast<size_t>(t.num_elements()), 7 + static_cast<uint32_t>(k), -2.f, 2.f));
  }
  auto want = testing::RunOnCpu(inlined, inputs);
  auto got = testing::RunOnCpu(fused, inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const std::vector<float>& a = (*want)[0];
  const std::vector<float>& b = (*got)[0];
  ASSERT_EQ(a.size(), b.size());
  float scale = 1.0f;
  for (float x : a) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5f * scale) << "element " << i;
}

std::string KeptReason(Graph g) {
  PassLog log;
  EXPECT_TRUE(FuseComposites(g, log).ok());
  EXPECT_EQ(g.nodes[0].op, OpType::kStablehloComposite);
  return log.lines.empty() ? "" : log.lines.back();
}

TEST(FuseComposites, RmsNormRunsAsOneNodeComputingItsDecomposition) {
  for (bool keep_dims : {true, false}) {
    SCOPED_TRACE(keep_dims ? "keep_dims" : "MEAN then RESHAPE");
    ExpectFusedMatchesDecomposition(
        CompositeGraph(RmsDecomposition(keep_dims, false), "odml.rms_norm", {{"epsilon", 1e-5}}, 1),
        OpType::kRmsNorm);
  }
}

TEST(FuseComposites, AttentionRunsAsOneNodeComputingItsDecomposition) {
  // Decode (one query) and prefill (several) forms; a scale split between q
  // and k as litert-torch writes it, and all of it on q.
  for (int t : {1, 3}) {
    for (float k_scale : {0.5f, 1.0f}) {
      SCOPED_TRACE("T " + std::to_string(t) + " k scale " + std::to_string(k_scale));
      const float q_scale = 0.125f / k_scale;
      ExpectFusedMatchesDecomposition(CompositeGraph(AttentionDecomposition(t, 5, 2, 6, q_scale, k_scale),
                                                     "odml.scaled_dot_product_attention", {{"scale", 0.125}}, 4),
                                      OpType::kScaledDotProductAttention);
    }
  }
}

TEST(FuseComposites, OtherArithmeticAndShapesStayTheirDecomposition) {
  // (1 + w): not the fused op's arithmetic.
  EXPECT_NE(KeptReason(CompositeGraph(RmsDecomposition(true, true), "odml.rms_norm", {}, 1))
                .find("left to its decomposition: its decomposition is not"),
            std::string::npos);
  // An epsilon attribute other than the decomposition's.
  EXPECT_NE(KeptReason(CompositeGraph(RmsDecomposition(true, false), "odml.rms_norm", {{"epsilon", 1e-3}}, 1))
                .find("epsilon attribute"),
            std::string::npos);
  // A scale attribute other than the decomposition's.
  EXPECT_NE(KeptReason(CompositeGraph(AttentionDecomposition(1, 5, 2, 6, 0.5f, 0.5f),
                                      "odml.scaled_dot_product_attention", {{"scale", 0.125}}, 4))
                .find("scale attribute"),
            std::string::npos);
  // A name the pass does not know: inline_composites' (no line).
  EXPECT_EQ(KeptReason(CompositeGraph(RmsDecomposition(true, false), "odml.other", {}, 1)), "");
}

}  // namespace
}  // namespace gld
