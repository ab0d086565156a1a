// The runtime hosting GPU segments, with a fake GPU backend whose segment step
// runs its nodes with the CPU kernels on storage of its own (as a GL segment
// keeps intermediate tensors on the GPU): host buffers only at segment edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/graph_builder.h"
#include "runtime/gpu_backend.h"
#include "runtime/plan.h"
#include "runtime/runtime.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

struct FakeGpuState {
  int segments_created = 0;
  int segment_runs = 0;
  bool fail_segments = false;
};

class FakeSegmentStep : public Step {
 public:
  FakeSegmentStep(const Graph& g, const Segment& s, int index, FakeGpuState* state)
      : graph_(g), segment_(s), index_(index), state_(state) {}
  std::string label() const override { return "fake segment " + std::to_string(index_); }
  bool RunsOnGpu() const override { return true; }
  std::vector<int> host_inputs() const override { return segment_.inputs; }
  std::vector<int> host_outputs() const override { return segment_.outputs; }
  Status Run(StepContext& ctx) override {
    ++state_->segment_runs;
    // Private storage for tensors written inside the segment.
    std::vector<cpu::TensorData> local = *ctx.tensors;
    std::vector<std::vector<uint8_t>> owned;
    // Constants come from the graph, as a GL segment uploads its own.
    for (int n : segment_.nodes) {
      for (int t : graph_.nodes[n].inputs) {
        if (t < 0) continue;
        const Tensor& c = graph_.tensors[static_cast<size_t>(t)];
        if (!c.is_constant || local[t].data != nullptr) continue;
        local[t] = {c.type, c.shape, const_cast<uint8_t*>(c.data.data()), c.data.size()};
      }
    }
    for (int n : segment_.nodes) {
      for (int t : graph_.nodes[n].outputs) {
        EXPECT_TRUE(IsEdgeOutput(t) || (*ctx.tensors)[t].data == nullptr)
            << "internal tensor " << t << " must not get host storage";
        owned.emplace_back(local[t].bytes = static_cast<size_t>(NumElements(graph_.tensors[t].shape)) * 4);
        local[t].data = owned.back().data();
      }
    }
    StepContext inner = ctx;
    inner.tensors = &local;
    for (int n : segment_.nodes) {
      CpuNodeStep step(graph_, static_cast<size_t>(n), cpu::FindCpuKernel(graph_.nodes[n].op));
      GLD_RETURN_IF_ERROR(step.Run(inner));
    }
    for (int t : segment_.outputs) {
      std::memcpy((*ctx.tensors)[t].data, local[t].data, (*ctx.tensors)[t].bytes);
    }
    return OkStatus();
  }

 private:
  bool IsEdgeOutput(int t) const {
    return std::find(segment_.outputs.begin(), segment_.outputs.end(), t) != segment_.outputs.end();
  }
  const Graph& graph_;
  Segment segment_;
  int index_;
  FakeGpuState* state_;
};

class FakeGpu : public GpuBackend {
 public:
  explicit FakeGpu(FakeGpuState* state) : state_(state) {}
  std::string name() const override { return "fake"; }
  std::string renderer() const override { return "fake renderer"; }
  std::vector<OpType> SupportedOps() const override {
    return {OpType::kTanh, OpType::kRelu, OpType::kAdd, OpType::kGather};
  }
  std::string WhyNotSupported(const Graph& g, size_t i) const override {
    // As the GL backend: int32 only as GATHER's indices.
    const Node& node = g.nodes[i];
    for (size_t k = 0; k < node.inputs.size() + node.outputs.size(); ++k) {
      const bool indices = node.op == OpType::kGather && k == 1;
      const int t = k < node.inputs.size() ? node.inputs[k] : node.outputs[k - node.inputs.size()];
      if (!indices && t >= 0 && g.tensors[static_cast<size_t>(t)].type == DataType::kInt32) return "int32 on fake";
    }
    auto ops = SupportedOps();
    if (std::find(ops.begin(), ops.end(), g.nodes[i].op) != ops.end()) return "";
    return std::string(OpTypeName(g.nodes[i].op)) + " is not supported on fake";
  }
  StatusOr<std::unique_ptr<Step>> CreateSegmentStep(const Graph& g, const Segment& s, int index) override {
    if (state_->fail_segments) return UnavailableError("fake compiler failed");
    ++state_->segments_created;
    return std::unique_ptr<Step>(new FakeSegmentStep(g, s, index, state_));
  }

 private:
  FakeGpuState* state_;
};

Runtime::GpuBackendFactory Factory(FakeGpuState* state) {
  return [state](const Options&) -> StatusOr<std::unique_ptr<GpuBackend>> {
    return std::unique_ptr<GpuBackend>(new FakeGpu(state));
  };
}

// x -TANH-> a -RELU-> b -LOGISTIC(cpu)-> c -TANH-> d -ADD(d, a)-> y
Graph Mixed() {
  Graph g;
  int x = AddTensor(g, "x", {1, 8});
  int a = AddTensor(g, "a", {1, 8});
  int b = AddTensor(g, "b", {1, 8});
  int c = AddTensor(g, "c", {1, 8});
  int d = AddTensor(g, "d", {1, 8});
  int y = AddTensor(g, "y", {1, 8});
  AddNode(g, OpType::kTanh, {x}, {a});
  AddNode(g, OpType::kRelu, {a}, {b});
  AddNode(g, OpType::kLogistic, {b}, {c});
  AddNode(g, OpType::kTanh, {c}, {d});
  AddNode(g, OpType::kAdd, {d, a}, {y}, -1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

std::vector<float> Expected(const std::vector<float>& x) {
  std::vector<float> y;
  for (float v : x) {
    float a = std::tanh(v), b = std::max(0.0f, a), c = 1.0f / (1.0f + std::exp(-b));
    y.push_back(std::tanh(c) + a);
  }
  return y;
}

std::vector<float> RunOnce(Runtime& rt, const std::vector<float>& in) {
  EXPECT_TRUE(rt.SetInput(0, in.data(), in.size() * 4).ok());
  Status s = rt.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<float> out(in.size());
  EXPECT_TRUE(rt.GetOutput(0, out.data(), out.size() * 4).ok());
  return out;
}

const std::vector<float> kInput = {-2, -1, -0.5f, 0, 0.25f, 0.5f, 1, 3};

TEST(GpuSeam, SegmentsAndCpuNodesMix) {
  FakeGpuState state;
  Options o;
  o.backend = Backend::kGl;
  auto rt = Runtime::Create(Mixed(), o, Factory(&state));
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const InterpreterReport& r = (*rt)->report();
  EXPECT_EQ(r.backend, Backend::kGl);
  EXPECT_EQ(r.placement_line, "placement: 4/5 nodes on GPU in 2 segments");
  EXPECT_EQ(r.gl_renderer, "fake renderer");
  EXPECT_EQ(r.nodes[2].reason, "LOGISTIC is not supported on fake");
  EXPECT_EQ(r.nodes[3].segment, 1);
  EXPECT_EQ(state.segments_created, 2);
  EXPECT_EQ((*rt)->num_steps(), 3u);
  // d lives only inside segment 1: no host storage.
  EXPECT_EQ((*rt)->tensor(4).data, nullptr);
  EXPECT_NE((*rt)->tensor(1).data, nullptr);
  std::vector<float> out = RunOnce(**rt, kInput), want = Expected(kInput);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-6f) << i;
  EXPECT_EQ(state.segment_runs, 2);
}

// BERT's input edge: ids < 0 ? ids + vocab : ids (LESS, ADD, SELECT on int32,
// CPU nodes), then the embedding GATHER and a TANH on the GPU.
Graph IdWrap(int tokens, int vocab) {
  Graph g;
  int ids = AddTensor(g, "ids", {1, tokens}, DataType::kInt32);
  int zero = AddConstant<int32_t>(g, "zero", {}, DataType::kInt32, {0});
  int size = AddConstant<int32_t>(g, "vocab", {}, DataType::kInt32, {vocab});
  std::vector<float> rows(static_cast<size_t>(vocab) * 2);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = 0.01f * static_cast<float>(i % 97) - 0.3f;
  int table = AddConstant<float>(g, "table", {vocab, 2}, DataType::kFloat32, rows);
  int negative = AddTensor(g, "negative", {1, tokens}, DataType::kBool);
  int wrapped = AddTensor(g, "wrapped", {1, tokens}, DataType::kInt32);
  int fixed = AddTensor(g, "fixed", {1, tokens}, DataType::kInt32);
  int rows_out = AddTensor(g, "rows", {1, tokens, 2});
  int y = AddTensor(g, "y", {1, tokens, 2});
  AddNode(g, OpType::kLess, {ids, zero}, {negative});
  AddNode(g, OpType::kAdd, {ids, size}, {wrapped}, -1, BinaryAttributes{});
  AddNode(g, OpType::kSelect, {negative, wrapped, ids}, {fixed});
  AddNode(g, OpType::kGather, {table, fixed}, {rows_out}, -1, AxisAttributes{});
  AddNode(g, OpType::kTanh, {rows_out}, {y});
  g.inputs = {ids};
  g.outputs = {y};
  return g;
}

std::vector<float> RunIds(Runtime& rt, const std::vector<int32_t>& ids) {
  EXPECT_TRUE(rt.SetInput(0, ids.data(), ids.size() * 4).ok());
  Status s = rt.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<float> out(ids.size() * 2);
  EXPECT_TRUE(rt.GetOutput(0, out.data(), out.size() * 4).ok());
  return out;
}

TEST(GpuSeam, InputEdgeElementwiseNodesRunAsOneCpuStep) {
  // 2500 tokens: three blocks of the group, the last one partial.
  for (int tokens : {7, 2500}) {
    SCOPED_TRACE("tokens " + std::to_string(tokens));
    const int vocab = 300;
    std::vector<int32_t> ids(static_cast<size_t>(tokens));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 37) % (2 * vocab)) - vocab;
    FakeGpuState state;
    Options o;
    o.backend = Backend::kGl;
    auto rt = Runtime::Create(IdWrap(tokens, vocab), o, Factory(&state));
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    const InterpreterReport& r = (*rt)->report();
    EXPECT_EQ(r.placement_line, "placement: 2/5 nodes on GPU in 1 segments");
    EXPECT_EQ(r.cpu_steps, 1);
    EXPECT_EQ(r.steps, (std::vector<std::string>{"CPU: node 0 (LESS) + node 1 (ADD) + node 2 (SELECT)",
                                                 "GPU: fake segment 0"}));
    o.backend = Backend::kCpu;
    auto cpu = Runtime::Create(IdWrap(tokens, vocab), o);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    EXPECT_EQ((*cpu)->report().cpu_steps, 5);  // no GPU: no input edge, no group
    EXPECT_EQ(RunIds(**rt, ids), RunIds(**cpu, ids));
  }
}

TEST(GpuSeam, CpuGroupsAreRunsOfElementwiseNodesOfOneSize) {
  Graph g = IdWrap(7, 300);
  FakeGpuState state;
  FakeGpu gpu(&state);
  PartitionOptions o;
  o.gpu = &gpu;
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(PlanCpuGroups(g, p, {}), (std::vector<std::vector<size_t>>{{0, 1, 2}}));
  // An ADD broadcasting a [7] operand to [1, 7] does not join, and ends the
  // run: the LESS and the SELECT are each alone, no group.
  Graph h = IdWrap(7, 300);
  h.nodes[1].inputs[1] = AddConstant<int32_t>(h, "vocab7", {7}, DataType::kInt32, std::vector<int32_t>(7, 300));
  EXPECT_TRUE(PlanCpuGroups(h, PartitionGraph(h, o), {}).empty());
  // Without a GPU node there is no input edge.
  EXPECT_TRUE(PlanCpuGroups(g, PartitionGraph(g, PartitionOptions{}), {}).empty());
}

TEST(GpuSeam, DenyOpsSplitSegments) {
  FakeGpuState state;
  Options o;
  o.backend = Backend::kGl;
  o.gpu_deny_ops = {"RELU"};
  auto rt = Runtime::Create(Mixed(), o, Factory(&state));
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ((*rt)->report().placement_line, "placement: 3/5 nodes on GPU in 2 segments");
  EXPECT_EQ((*rt)->report().nodes[1].reason, "RELU is in gpu_deny_ops");
  std::vector<float> out = RunOnce(**rt, kInput), want = Expected(kInput);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-6f) << i;
}

TEST(GpuSeam, AutoFallsBackToTheCpuWhenSegmentsFail) {
  FakeGpuState state;
  state.fail_segments = true;
  Options o;
  o.backend = Backend::kAuto;
  auto rt = Runtime::Create(Mixed(), o, Factory(&state));
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ((*rt)->report().backend, Backend::kCpu);
  EXPECT_EQ((*rt)->report().placement_line, "placement: 0/5 nodes on GPU in 0 segments");
  EXPECT_EQ((*rt)->report().nodes[0].reason.rfind("GPU plan failed: GPU segment 0: fake compiler failed", 0), 0u)
      << (*rt)->report().nodes[0].reason;
  std::vector<float> out = RunOnce(**rt, kInput), want = Expected(kInput);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-6f) << i;

  o.backend = Backend::kGl;  // an explicit request fails instead
  auto gl = Runtime::Create(Mixed(), o, Factory(&state));
  ASSERT_FALSE(gl.ok());
  EXPECT_EQ(gl.status().message(), "GPU segment 0: fake compiler failed");
}

TEST(GpuSeam, OpThatNeitherBackendRunsFailsEarly) {
  // Past the end of the op list: an op no backend has (FindCpuKernel must
  // answer nullptr for it, as it does for any op without a kernel).
  const OpType missing = static_cast<OpType>(AllOpTypes().size());
  ASSERT_EQ(cpu::FindCpuKernel(missing), nullptr);
  // The fake GPU claims nothing about `missing`, so creation must fail early
  // with the kernel message even on the GPU backend.
  Graph g;
  int x = AddTensor(g, "x", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, missing, {x}, {y}, 3);
  g.inputs = {x};
  g.outputs = {y};
  FakeGpuState state;
  Options o;
  o.backend = Backend::kGl;
  auto rt = Runtime::Create(std::move(g), o, Factory(&state));
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().message(), std::string("node 3 (") + OpTypeName(missing) + "): no CPU kernel");
}

}  // namespace
}  // namespace gld
