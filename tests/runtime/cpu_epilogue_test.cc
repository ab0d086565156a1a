// CPU epilogue chains: which elementwise nodes PlanCpuEpilogues puts after
// which node (runtime/plan.h), and a runtime running CONV_2D + ADD + PRELU +
// SUB (and FULLY_CONNECTED + GELU + ADD) in one step giving what the nodes
// give one at a time: on the pointwise
// GEMM (where the CPU has AVX-512F), on XNNPACK's checked output pass, and
// on the own-code path a NaN sends it to.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"
#include "runtime/plan.h"
#include "runtime/runtime.h"
#include "common/graph_builder.h"
#include "transforms/graph_runner.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

Partition AllOnCpu(const Graph& g) {
  return PartitionGraph(g, PartitionOptions{});
}

// c = CONV 1x1 of x (ch -> ch channels) with small integer weights, so
// that every order of summation gives the same floats.
void AddIntegerConv(Graph& g, int x, int c, int ch, int mul, int mod) {
  std::vector<float> weights(static_cast<size_t>(ch * ch));
  for (size_t i = 0; i < weights.size(); ++i) {
    weights[i] = static_cast<float>(static_cast<int>(i * static_cast<size_t>(mul) % static_cast<size_t>(mod)) - mod / 2);
  }
  const int wt = AddConstant<float>(g, "w", {ch, 1, 1, ch}, DataType::kFloat32, weights);
  AddNode(g, OpType::kConv2d, {x, wt, kNoTensor}, {c}, static_cast<int>(g.nodes.size()), Conv2dAttributes{});
}

// Element by element, a NaN for a NaN; returns how many NaN `want` holds.
int ExpectSameValues(const std::vector<float>& got, const std::vector<float>& want, int threads) {
  EXPECT_EQ(got.size(), want.size());
  int nans = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      ++nans;
      EXPECT_TRUE(std::isnan(got[i])) << "threads " << threads << " i " << i << ": got " << got[i];
    } else {
      EXPECT_EQ(got[i], want[i]) << "threads " << threads << " i " << i;
    }
    if (::testing::Test::HasFailure()) break;
  }
  return nans;
}

// x -CONV 1x1-> c -ADD(c, x)-> a -PRELU-> p -SUB(r, p)-> y.
Graph ConvChain(int h, int w, int ch) {
  Graph g;
  std::vector<float> slope(static_cast<size_t>(ch));
  for (size_t i = 0; i < slope.size(); ++i) slope[i] = 0.25f * static_cast<float>(i % 4);
  const int x = AddTensor(g, "x", {1, h, w, ch});
  const int r = AddTensor(g, "r", {1, h, w, ch});
  const int c = AddTensor(g, "c", {1, h, w, ch});
  const int a = AddTensor(g, "a", {1, h, w, ch});
  const int s = AddConstant<float>(g, "slope", {1, 1, ch}, DataType::kFloat32, slope);
  const int p = AddTensor(g, "p", {1, h, w, ch});
  const int y = AddTensor(g, "y", {1, h, w, ch});
  AddIntegerConv(g, x, c, ch, 5, 7);
  BinaryAttributes relu6;
  relu6.activation = Activation::kRelu6;
  AddNode(g, OpType::kAdd, {c, x}, {a}, 1, relu6);
  AddNode(g, OpType::kPrelu, {a, s}, {p}, 2);
  AddNode(g, OpType::kSub, {r, p}, {y}, 3, BinaryAttributes{});
  g.inputs = {x, r};
  g.outputs = {y};
  return g;
}

TEST(PlanCpuEpilogues, ChainsSingleReaderElementwiseNodes) {
  const Graph g = ConvChain(4, 4, 8);
  std::vector<CpuEpilogueChain> chains = PlanCpuEpilogues(g, AllOnCpu(g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, 0u);
  EXPECT_EQ(chains[0].nodes, (std::vector<size_t>{1, 2, 3}));
  ASSERT_EQ(chains[0].specs.size(), 3u);
  EXPECT_EQ(chains[0].specs[0].kind, cpu::EpilogueKind::kAdd);
  EXPECT_EQ(chains[0].specs[0].activation, Activation::kRelu6);
  EXPECT_EQ(chains[0].specs[1].kind, cpu::EpilogueKind::kPrelu);
  EXPECT_EQ(chains[0].specs[2].kind, cpu::EpilogueKind::kSub);
  EXPECT_FALSE(chains[0].specs[2].x_first);  // r - p

  // The plan: one step, where the last node stood, reading the operands and
  // writing the conv's output and the last one only.
  auto plan = BuildPlan(g, AllOnCpu(g), nullptr);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 1u);
  EXPECT_EQ(plan->steps[0]->label(), "node 0 (CONV_2D) + node 1 (ADD) + node 2 (PRELU) + node 3 (SUB)");
  EXPECT_EQ(plan->steps[0]->host_outputs(), (std::vector<int>{g.nodes[0].outputs[0], g.outputs[0]}));
}

TEST(PlanCpuEpilogues, StopsWhereAValueIsSharedKeptOrOnTheGpu) {
  // A second reader of a: the chain stops before the PRELU.
  Graph shared = ConvChain(4, 4, 8);
  const int a = shared.nodes[1].outputs[0];
  const int extra = AddTensor(shared, "extra", {1, 4, 4, 8});
  AddNode(shared, OpType::kAbs, {a}, {extra}, 4);
  shared.outputs.push_back(extra);
  auto chains = PlanCpuEpilogues(shared, AllOnCpu(shared));
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0].nodes, std::vector<size_t>{1});
  EXPECT_EQ(chains[1].producer, 2u);  // the PRELU heads a chain of its own: then SUB
  EXPECT_EQ(chains[1].nodes, std::vector<size_t>{3});

  // a graph output: kept, so the chain ends with the node that makes it.
  Graph output = ConvChain(4, 4, 8);
  output.outputs.push_back(output.nodes[1].outputs[0]);
  chains = PlanCpuEpilogues(output, AllOnCpu(output));
  ASSERT_EQ(chains.size(), 2u);
  EXPECT_EQ(chains[0].nodes, std::vector<size_t>{1});

  // The PRELU on the GPU: nothing after the ADD joins.
  const Graph g = ConvChain(4, 4, 8);
  Partition p = AllOnCpu(g);
  p.nodes[2].on_gpu = true;
  chains = PlanCpuEpilogues(g, p);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].nodes, std::vector<size_t>{1});
}

TEST(PlanCpuEpilogues, AtMostFourNodesToAChain) {
  Graph g;
  int v = AddTensor(g, "x", {1, 8});
  const int one = AddConstant<float>(g, "one", {1, 8}, DataType::kFloat32, std::vector<float>(8, 1.f));
  g.inputs = {v};
  for (int i = 0; i < 6; ++i) {
    const int next = AddTensor(g, "v" + std::to_string(i), {1, 8});
    AddNode(g, i == 0 ? OpType::kAbs : OpType::kAdd, i == 0 ? std::vector<int>{v} : std::vector<int>{v, one}, {next},
            i, BinaryAttributes{});
    v = next;
  }
  g.outputs = {v};
  const auto chains = PlanCpuEpilogues(g, AllOnCpu(g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].producer, 0u);
  EXPECT_EQ(chains[0].nodes, (std::vector<size_t>{1, 2, 3, 4}));  // node 5 runs on its own
}

// The runtime's fused step against the nodes one at a time (RunOnCpu), at 1
// and 2 threads, on finite inputs (XNNPACK's output pass runs the chain) and
// with a NaN and an infinity (XNNPACK's output is redone by the own code and
// the chain gets a pass of its own).
TEST(CpuEpilogue, FusedStepGivesWhatTheNodesGive) {
  const int h = 64, w = 64, ch = 16;  // 65536 values: the output pass splits across threads
  const size_t n = static_cast<size_t>(h * w * ch);
  std::vector<float> x(n), r(n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(static_cast<int>(i * 13 % 9) - 4) * 0.5f;
    r[i] = static_cast<float>(static_cast<int>(i * 7 % 5) - 2);
  }
  std::vector<float> special = x;
  special[100] = std::numeric_limits<float>::quiet_NaN();
  special[n - 5] = std::numeric_limits<float>::infinity();
  for (const bool pointwise : {true, false}) {
    SCOPED_TRACE(pointwise ? "pointwise GEMM (where the CPU has AVX-512F)" : "XNNPACK");
    cpu::ScopedPointwiseGemm path(pointwise);
    for (int threads : {1, 2}) {
      Options o;
      o.backend = Backend::kCpu;
      o.num_threads = threads;
      o.enable_profiling = true;
      auto rt = Runtime::Create(ConvChain(h, w, ch), o);
      ASSERT_TRUE(rt.ok()) << rt.status().ToString();
      const Graph& g = (*rt)->graph();
      // The chain's intermediate tensors have no storage.
      EXPECT_EQ((*rt)->tensor(g.nodes[1].outputs[0]).data, nullptr);
      EXPECT_EQ((*rt)->tensor(g.nodes[2].outputs[0]).data, nullptr);
      for (const std::vector<float>* in : {&x, &special, &x}) {
        auto want = testing::RunOnCpu(ConvChain(h, w, ch), {*in, r});
        ASSERT_TRUE(want.ok()) << want.status().ToString();
        ASSERT_TRUE((*rt)->SetInput(0, in->data(), n * sizeof(float)).ok());
        ASSERT_TRUE((*rt)->SetInput(1, r.data(), n * sizeof(float)).ok());
        Status s = (*rt)->Invoke();
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::vector<float> got(n);
        ASSERT_TRUE((*rt)->GetOutput(0, got.data(), n * sizeof(float)).ok());
        const int nans = ExpectSameValues(got, (*want)[0], threads);
        ASSERT_FALSE(HasFailure());
        EXPECT_EQ(nans > 0, in == &special) << "threads " << threads;
      }
      const std::vector<ProfileRow> rows = (*rt)->Profile();
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0].op, "CONV_2D");
      EXPECT_EQ(rows[0].name, "node 0 (CONV_2D) + node 1 (ADD) + node 2 (PRELU) + node 3 (SUB)");
    }
  }
}

// x -CONV 1x1-> c; q = PAD(r) along channels; y = ADD(c, q): the PAD joins
// the CONV's chain and gives what it gives on its own.
Graph ConvPadAdd(int h, int w, int ch, int narrow) {
  Graph g;
  const int x = AddTensor(g, "x", {1, h, w, ch});
  const int r = AddTensor(g, "r", {1, h, w, narrow});
  const int paddings = AddConstant<int32_t>(g, "paddings", {4, 2}, DataType::kInt32, {0, 0, 0, 0, 0, 0, 1, ch - narrow - 1});
  const int c = AddTensor(g, "c", {1, h, w, ch});
  const int q = AddTensor(g, "q", {1, h, w, ch});
  const int y = AddTensor(g, "y", {1, h, w, ch});
  AddIntegerConv(g, x, c, ch, 3, 5);
  AddNode(g, OpType::kPad, {r, paddings}, {q}, 1);
  AddNode(g, OpType::kAdd, {c, q}, {y}, 2, BinaryAttributes{});
  g.inputs = {x, r};
  g.outputs = {y};
  return g;
}

TEST(CpuEpilogue, AChannelPadJoinsTheChainOfTheAddItFeeds) {
  const int h = 32, w = 32, ch = 24, narrow = 20;
  const Graph g = ConvPadAdd(h, w, ch, narrow);
  auto chains = PlanCpuEpilogues(g, AllOnCpu(g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].nodes, std::vector<size_t>{2});
  EXPECT_EQ(chains[0].specs[0].pad_node, 1);
  EXPECT_EQ(chains[0].specs[0].operand, g.inputs[1]);
  auto plan = BuildPlan(g, AllOnCpu(g), nullptr);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->steps.size(), 1u);
  EXPECT_EQ(plan->steps[0]->label(), "node 0 (CONV_2D) + node 1 (PAD) + node 2 (ADD)");

  // A second reader of the padded tensor keeps the PAD on its own.
  Graph shared = ConvPadAdd(h, w, ch, narrow);
  shared.outputs.push_back(shared.nodes[1].outputs[0]);
  chains = PlanCpuEpilogues(shared, AllOnCpu(shared));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_EQ(chains[0].specs[0].pad_node, -1);

  const size_t n = static_cast<size_t>(h * w * ch), nr = static_cast<size_t>(h * w * narrow);
  std::vector<float> x(n), r(nr);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>(i * 11 % 7) - 3);
  for (size_t i = 0; i < nr; ++i) r[i] = static_cast<float>(static_cast<int>(i * 5 % 9) - 4) * 0.25f;
  r[7] = std::numeric_limits<float>::quiet_NaN();
  r[nr - 1] = -std::numeric_limits<float>::infinity();
  auto want = testing::RunOnCpu(g, {x, r});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (int threads : {1, 2}) {
    Options o;
    o.backend = Backend::kCpu;
    o.num_threads = threads;
    auto rt = Runtime::Create(ConvPadAdd(h, w, ch, narrow), o);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    ASSERT_TRUE((*rt)->SetInput(0, x.data(), n * sizeof(float)).ok());
    ASSERT_TRUE((*rt)->SetInput(1, r.data(), nr * sizeof(float)).ok());
    ASSERT_TRUE((*rt)->Invoke().ok());
    std::vector<float> got(n);
    ASSERT_TRUE((*rt)->GetOutput(0, got.data(), n * sizeof(float)).ok());
    EXPECT_GT(ExpectSameValues(got, (*want)[0], threads), 0);
    ASSERT_FALSE(HasFailure());
  }
}

// x [1, T, C] -FULLY_CONNECTED-> f [1, T, U] -GELU-> g -ADD(g, r)-> y: a
// transformer's MLP, integer weights so that every order of summation
// gives the same floats.
Graph FcGeluAdd(int tokens, int depth, int units, bool approximate) {
  Graph g;
  std::vector<float> weights(static_cast<size_t>(units * depth)), bias(static_cast<size_t>(units));
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(static_cast<int>(i * 5 % 7) - 3);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  const int x = AddTensor(g, "x", {1, tokens, depth});
  const int r = AddTensor(g, "r", {1, tokens, units});
  const int w = AddConstant<float>(g, "w", {units, depth}, DataType::kFloat32, weights);
  const int b = AddConstant<float>(g, "b", {units}, DataType::kFloat32, bias);
  const int f = AddTensor(g, "f", {1, tokens, units});
  const int a = AddTensor(g, "g", {1, tokens, units});
  const int y = AddTensor(g, "y", {1, tokens, units});
  FullyConnectedAttributes fc;
  fc.keep_num_dims = true;
  AddNode(g, OpType::kFullyConnected, {x, w, b}, {f}, 0, fc);
  GeluAttributes gelu;
  gelu.approximate = approximate;
  AddNode(g, OpType::kGelu, {f}, {a}, 1, gelu);
  AddNode(g, OpType::kAdd, {a, r}, {y}, 2, BinaryAttributes{});
  g.inputs = {x, r};
  g.outputs = {y};
  return g;
}

TEST(CpuEpilogue, GeluJoinsTheChainOfAFullyConnectedLayer) {
  const int tokens = 37, depth = 24, units = 80;
  const size_t n = static_cast<size_t>(tokens * depth), nr = static_cast<size_t>(tokens * units);
  std::vector<float> x(n), r(nr);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>(i * 13 % 9) - 4) * 0.25f;
  for (size_t i = 0; i < nr; ++i) r[i] = static_cast<float>(static_cast<int>(i * 7 % 5) - 2);
  x[5] = std::numeric_limits<float>::quiet_NaN();
  x[n - 3] = -std::numeric_limits<float>::infinity();
  for (bool approximate : {false, true}) {
    const Graph g = FcGeluAdd(tokens, depth, units, approximate);
    auto chains = PlanCpuEpilogues(g, AllOnCpu(g));
    ASSERT_EQ(chains.size(), 1u);
    EXPECT_EQ(chains[0].nodes, (std::vector<size_t>{1, 2}));
    EXPECT_EQ(chains[0].specs[0].kind, approximate ? cpu::EpilogueKind::kGeluTanh : cpu::EpilogueKind::kGelu);
    auto want = testing::RunOnCpu(g, {x, r});
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (const bool pointwise : {true, false}) {
      cpu::ScopedPointwiseGemm path(pointwise);
      for (int threads : {1, 2}) {
        SCOPED_TRACE(std::string(approximate ? "tanh" : "erf") + (pointwise ? " pointwise" : " xnnpack") +
                     " threads " + std::to_string(threads));
        Options o;
        o.backend = Backend::kCpu;
        o.num_threads = threads;
        o.enable_profiling = true;
        auto rt = Runtime::Create(FcGeluAdd(tokens, depth, units, approximate), o);
        ASSERT_TRUE(rt.ok()) << rt.status().ToString();
        EXPECT_EQ((*rt)->tensor((*rt)->graph().nodes[1].outputs[0]).data, nullptr);
        ASSERT_TRUE((*rt)->SetInput(0, x.data(), n * sizeof(float)).ok());
        ASSERT_TRUE((*rt)->SetInput(1, r.data(), nr * sizeof(float)).ok());
        Status s = (*rt)->Invoke();
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::vector<float> got(nr);
        ASSERT_TRUE((*rt)->GetOutput(0, got.data(), nr * sizeof(float)).ok());
        EXPECT_GT(ExpectSameValues(got, (*want)[0], threads), 0);
        ASSERT_FALSE(HasFailure());
        const std::vector<ProfileRow> rows = (*rt)->Profile();
        ASSERT_EQ(rows.size(), 1u);
        EXPECT_EQ(rows[0].name, "node 0 (FULLY_CONNECTED) + node 1 (GELU) + node 2 (ADD)");
      }
    }
  }
}

// q [1, 2, T, D] -BATCH_MATMUL(q, k)-> s -MUL(s, 0.125)-> y: attention's
// scores and their scale in one step.
Graph ScaledScores(int t, int d) {
  Graph g;
  const int q = AddTensor(g, "q", {1, 2, t, d});
  const int k = AddTensor(g, "k", {1, 2, d, t});
  const int scale = AddConstant<float>(g, "scale", {}, DataType::kFloat32, {0.125f});
  const int s = AddTensor(g, "s", {1, 2, t, t});
  const int y = AddTensor(g, "y", {1, 2, t, t});
  AddNode(g, OpType::kBatchMatMul, {q, k}, {s}, 0, BatchMatMulAttributes{});
  AddNode(g, OpType::kMul, {s, scale}, {y}, 1, BinaryAttributes{});
  g.inputs = {q, k};
  g.outputs = {y};
  return g;
}

TEST(CpuEpilogue, AScalarOperandJoinsTheChain) {
  const int t = 21, d = 8;
  const Graph g = ScaledScores(t, d);
  auto chains = PlanCpuEpilogues(g, AllOnCpu(g));
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_TRUE(chains[0].specs[0].scalar);
  const size_t nq = static_cast<size_t>(2 * t * d);
  std::vector<float> q(nq), k(nq);
  for (size_t i = 0; i < nq; ++i) {
    q[i] = static_cast<float>(static_cast<int>(i * 7 % 9) - 4);
    k[i] = static_cast<float>(static_cast<int>(i * 5 % 7) - 3) * 0.5f;
  }
  q[3] = std::numeric_limits<float>::quiet_NaN();
  auto want = testing::RunOnCpu(g, {q, k});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (int threads : {1, 2}) {
    Options o;
    o.backend = Backend::kCpu;
    o.num_threads = threads;
    o.enable_profiling = true;
    auto rt = Runtime::Create(ScaledScores(t, d), o);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    ASSERT_TRUE((*rt)->SetInput(0, q.data(), nq * sizeof(float)).ok());
    ASSERT_TRUE((*rt)->SetInput(1, k.data(), nq * sizeof(float)).ok());
    ASSERT_TRUE((*rt)->Invoke().ok());
    const size_t n = static_cast<size_t>(2 * t * t);
    std::vector<float> got(n);
    ASSERT_TRUE((*rt)->GetOutput(0, got.data(), n * sizeof(float)).ok());
    EXPECT_GT(ExpectSameValues(got, (*want)[0], threads), 0);
    ASSERT_FALSE(HasFailure());
    const std::vector<ProfileRow> rows = (*rt)->Profile();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].name, "node 0 (BATCH_MATMUL) + node 1 (MUL)");
  }
}

}  // namespace
}  // namespace gld
