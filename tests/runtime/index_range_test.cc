// Indices out of range are an error on both backends, never zeros: GATHER's
// indices as a graph input (on GL the shader reports them in the segment's
// index-fault record, glsl/index_fault.comp, and the host fails the run;
// also through a RESHAPE inside the segment) and as a constant (refused when
// the Interpreter is made). GATHER's message is the CPU kernel's; GATHER_ND
// and EMBEDDING_LOOKUP fail the same way, in fp32 and fp16.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/runtime.h"
#include "common/gl_stack_probe.h"
#include "common/graph_builder.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

const std::vector<float> kParams = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // [4, 3]

Options On(Backend backend) {
  Options o;
  o.backend = backend;
  return o;
}

// y = ABS(GATHER(x, indices)), x [4, 3]; indices a graph input [2] (read
// through RESHAPE [1, 2] -> [2] with `reshape`) or the constant `constant`.
Graph GatherAbs(bool reshape, const std::vector<int32_t>* constant = nullptr) {
  Graph g;
  const int x = AddTensor(g, "x", {4, 3});
  int idx = 0;
  g.inputs = {x};
  if (constant != nullptr) {
    idx = AddConstant<int32_t>(g, "indices", {2}, DataType::kInt32, *constant);
  } else if (reshape) {
    const int raw = AddTensor(g, "raw_indices", {1, 2}, DataType::kInt32);
    const int shape = AddConstant<int32_t>(g, "shape", {1}, DataType::kInt32, {2});
    idx = AddTensor(g, "indices", {2}, DataType::kInt32);
    AddNode(g, OpType::kReshape, {raw, shape}, {idx}, static_cast<int>(g.nodes.size()), ReshapeAttributes{{2}, true});
    g.inputs.push_back(raw);
  } else {
    idx = AddTensor(g, "indices", {2}, DataType::kInt32);
    g.inputs.push_back(idx);
  }
  const int gathered = AddTensor(g, "gathered", {2, 3});
  const int y = AddTensor(g, "y", {2, 3});
  const int gather_index = static_cast<int>(g.nodes.size());
  AddNode(g, OpType::kGather, {x, idx}, {gathered}, gather_index, AxisAttributes{});
  AddNode(g, OpType::kAbs, {gathered}, {y}, gather_index + 1);
  g.outputs = {y};
  return g;
}

// One invoke with indices `idx`; the status, and the output in `out`.
Status RunGather(Runtime& rt, const std::vector<int32_t>& idx, std::vector<float>* out) {
  GLD_RETURN_IF_ERROR(rt.SetInput(0, kParams.data(), kParams.size() * sizeof(float)));
  if (rt.graph().inputs.size() > 1) GLD_RETURN_IF_ERROR(rt.SetInput(1, idx.data(), idx.size() * sizeof(int32_t)));
  GLD_RETURN_IF_ERROR(rt.Invoke());
  out->assign(6, 0.f);
  return rt.GetOutput(0, out->data(), out->size() * sizeof(float));
}

TEST(IndexRange, GatherIndicesAsAnInputFailTheRunOnBothBackends) {
  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    for (bool reshape : {false, true}) {
      const std::string what = std::string(backend == Backend::kGl ? "gl" : "cpu") + (reshape ? " reshape" : "");
      // (After the CPU's runs: the GL index checks record a fault with SSBO atomics.)
      if (backend == Backend::kGl) GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();
      if (backend == Backend::kGl) GLD_SKIP_IF_GL_ATOMICS_DEFECT();
      auto rt = Runtime::Create(GatherAbs(reshape), On(backend));
      ASSERT_TRUE(rt.ok()) << what << ": " << rt.status().ToString();
      if (backend == Backend::kGl) {
        ASSERT_EQ((*rt)->report().gpu_nodes, (*rt)->report().total_nodes) << what << ": " << (*rt)->report().placement_line;
      }
      const std::string node = reshape ? "node 1 (GATHER)" : "node 0 (GATHER)";
      std::vector<float> out;
      for (int32_t bad : {1000000, -5, 4}) {
        Status s = RunGather(**rt, {bad, 1}, &out);
        EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what << ": " << s.ToString();
        EXPECT_NE(s.message().find(node + ": index " + std::to_string(bad) + " out of range [0, 4)"), std::string::npos)
            << what << ": " << s.message();
      }
      // Later runs with good indices are right.
      Status s = RunGather(**rt, {3, 0}, &out);
      ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
      EXPECT_EQ(out, (std::vector<float>{10, 11, 12, 1, 2, 3})) << what;
    }
  }
}

// y = ABS(OP(...)) with OP GATHER_ND (x [4, 3], indices [2, 1]) or
// EMBEDDING_LOOKUP (ids [2], table x [4, 3]); the indices a graph input.
Graph IndexOpAbs(OpType op) {
  Graph g;
  const int x = AddTensor(g, "x", {4, 3});
  const int idx = AddTensor(g, "indices", op == OpType::kGatherNd ? Shape{2, 1} : Shape{2}, DataType::kInt32);
  g.inputs = {x, idx};
  const int picked = AddTensor(g, "picked", {2, 3});
  const int y = AddTensor(g, "y", {2, 3});
  const std::vector<int> inputs = op == OpType::kEmbeddingLookup ? std::vector<int>{idx, x} : std::vector<int>{x, idx};
  AddNode(g, op, inputs, {picked}, 0);
  AddNode(g, OpType::kAbs, {picked}, {y}, 1);
  g.outputs = {y};
  return g;
}

TEST(IndexRange, GatherNdAndEmbeddingLookupIndicesFailTheRunOnBothBackends) {
  // The CPU's runs first: the GL index checks record a fault with SSBO atomics.
  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    if (backend == Backend::kGl) GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();
    if (backend == Backend::kGl) GLD_SKIP_IF_GL_ATOMICS_DEFECT();
    for (OpType op : {OpType::kGatherNd, OpType::kEmbeddingLookup}) {
      for (Precision precision : {Precision::kFp32, Precision::kFp16}) {
        if (backend == Backend::kCpu && precision == Precision::kFp16) continue;
        Graph graph = IndexOpAbs(op);
        const std::string node = graph.NodeLabel(0);
        const std::string what = node + (backend == Backend::kGl ? " gl" : " cpu") +
                                 (precision == Precision::kFp16 ? " fp16" : "");
        Options options = On(backend);
        options.precision = precision;
        auto rt = Runtime::Create(std::move(graph), options);
        ASSERT_TRUE(rt.ok()) << what << ": " << rt.status().ToString();
        if (backend == Backend::kGl) {
          ASSERT_EQ((*rt)->report().gpu_nodes, (*rt)->report().total_nodes) << what << ": " << (*rt)->report().placement_line;
        }
        std::vector<float> out;
        for (int32_t bad : {1000, -5, 4}) {
          Status s = RunGather(**rt, {1, bad}, &out);
          EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what << ": " << s.ToString();
          EXPECT_NE(s.message().find(node + ": "), std::string::npos) << what << ": " << s.message();
          EXPECT_NE(s.message().find(std::to_string(bad)), std::string::npos) << what << ": " << s.message();
        }
        Status s = RunGather(**rt, {3, 0}, &out);
        ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
        EXPECT_EQ(out, (std::vector<float>{10, 11, 12, 1, 2, 3})) << what;
      }
    }
  }
}

TEST(IndexRange, ConstantGatherIndicesOutOfRangeAreRefusedWhenMade) {
  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    for (int32_t bad : {1000000, -5}) {
      const std::vector<int32_t> idx = {bad, 1};
      auto rt = Runtime::Create(GatherAbs(false, &idx), On(backend));
      ASSERT_FALSE(rt.ok()) << (backend == Backend::kGl ? "gl " : "cpu ") << bad;
      EXPECT_EQ(rt.status().code(), StatusCode::kInvalidArgument) << rt.status().ToString();
      EXPECT_NE(rt.status().message().find("node 0 (GATHER): index " + std::to_string(bad) + " out of range [0, 4)"),
                std::string::npos)
          << rt.status().message();
    }
    // The GL run of good indices checks them with the index-fault record's
    // SSBO atomics (the refusals above are made on the host).
    if (backend == Backend::kGl) GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();
    if (backend == Backend::kGl) GLD_SKIP_IF_GL_ATOMICS_DEFECT();
    const std::vector<int32_t> good = {2, 1};
    auto rt = Runtime::Create(GatherAbs(false, &good), On(backend));
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    std::vector<float> out;
    ASSERT_TRUE(RunGather(**rt, {}, &out).ok());
    EXPECT_EQ(out, (std::vector<float>{7, 8, 9, 4, 5, 6}));
  }
}

}  // namespace
}  // namespace gld
