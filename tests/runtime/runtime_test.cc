#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "common/graph_builder.h"
#include "gldelegate/options.hpp"
#include "runtime/gpu_backend.h"
#include "runtime/runtime.h"
#include "runtime/step.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

Options CpuOptions(int threads = 1) {
  Options o;
  o.backend = Backend::kCpu;
  o.num_threads = threads;
  return o;
}

std::vector<float> RunOnce(Runtime& rt, const std::vector<float>& in, int output = 0) {
  EXPECT_TRUE(rt.SetInput(0, in.data(), in.size() * sizeof(float)).ok());
  Status s = rt.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::vector<float> out(rt.tensor(rt.graph().outputs[output]).bytes / sizeof(float));
  EXPECT_TRUE(rt.GetOutput(output, out.data(), out.size() * sizeof(float)).ok());
  return out;
}

// y = RELU(x + c)
Graph AddRelu() {
  Graph g;
  int x = AddTensor(g, "x", {1, 4});
  int c = AddConstant<float>(g, "c", {1, 4}, DataType::kFloat32, {1, 1, 1, 1});
  int s = AddTensor(g, "s", {1, 4});
  int y = AddTensor(g, "y", {1, 4});
  AddNode(g, OpType::kAdd, {x, c}, {s}, 0, BinaryAttributes{});
  AddNode(g, OpType::kRelu, {s}, {y}, 1);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(Runtime, RunsCpuNodesInOrder) {
  auto rt = Runtime::Create(AddRelu(), CpuOptions());
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ(RunOnce(**rt, {-3, -1, 1, 3}), (std::vector<float>{0, 0, 2, 4}));
  // A second run with other inputs reuses the same buffers.
  EXPECT_EQ(RunOnce(**rt, {5, -7, 0, -0.5f}), (std::vector<float>{6, 0, 1, 0.5f}));
  const InterpreterReport& r = (*rt)->report();
  EXPECT_EQ(r.backend, Backend::kCpu);
  // The RELU runs as the ADD's fused activation (transforms/fuse_activation.cc).
  EXPECT_EQ(r.placement_line, "placement: 0/1 nodes on GPU in 0 segments");
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].label, "node 0 (ADD)");
  EXPECT_EQ(r.nodes[0].fused, std::vector<std::string>{"node 1 (RELU)"});
  EXPECT_EQ(r.nodes[0].reason, "backend is cpu");
  EXPECT_EQ(r.nodes[0].input_shapes, (std::vector<std::vector<int>>{{1, 4}, {1, 4}}));
  const int input = (*rt)->graph().inputs[0];
  EXPECT_EQ((*rt)->graph().tensors[input].name, "x");
  EXPECT_EQ((*rt)->tensor(input).bytes, 16u);
}

TEST(Runtime, FoldsDequantizedWeightsBeforeRunning) {
  // y = FC(x, DEQUANTIZE(w_fp16)): W = [[1, 0], [0, -1]] in float16.
  Graph g;
  int x = AddTensor(g, "x", {1, 2});
  int wq = AddConstant<uint16_t>(g, "w_fp16", {2, 2}, DataType::kFloat16, {0x3c00, 0, 0, 0xbc00});
  int w = AddTensor(g, "w", {2, 2});
  int y = AddTensor(g, "y", {1, 2});
  AddNode(g, OpType::kDequantize, {wq}, {w}, 0);
  AddNode(g, OpType::kFullyConnected, {x, w, kNoTensor}, {y}, 1, FullyConnectedAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ(RunOnce(**rt, {3, 5}), (std::vector<float>{3, -5}));
  const InterpreterReport& r = (*rt)->report();
  EXPECT_EQ(r.original_nodes, 2);
  EXPECT_EQ(r.total_nodes, 1);
  ASSERT_FALSE(r.pass_log.empty());
  EXPECT_EQ(r.pass_log[0].rfind("fold_constant_dequantize: node 0 (DEQUANTIZE)", 0), 0u);
  EXPECT_EQ(r.nodes[0].label, "node 1 (FULLY_CONNECTED)") << "labels keep the file's numbering";
}

TEST(Runtime, IntermediatesShareTheArena) {
  // x -> NEG -> a -> RELU -> b -> NEG -> c -> RELU -> y: a and c can share.
  Graph g;
  int x = AddTensor(g, "x", {1, 256});
  int a = AddTensor(g, "a", {1, 256});
  int b = AddTensor(g, "b", {1, 256});
  int c = AddTensor(g, "c", {1, 256});
  int y = AddTensor(g, "y", {1, 256});
  AddNode(g, OpType::kTanh, {x}, {a});
  AddNode(g, OpType::kRelu, {a}, {b});
  AddNode(g, OpType::kTanh, {b}, {c});
  AddNode(g, OpType::kRelu, {c}, {y});
  g.inputs = {x};
  g.outputs = {y};
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const HostMemoryPlan& m = (*rt)->memory();
  EXPECT_EQ(m.arena_tensors, 3);
  EXPECT_EQ(m.arena_naive_bytes, 3u * 1024);
  EXPECT_EQ(m.arena_bytes, 2u * 1024);
  EXPECT_EQ((*rt)->tensor(a).data, (*rt)->tensor(c).data);
  EXPECT_NE((*rt)->tensor(a).data, (*rt)->tensor(b).data);
  EXPECT_LT((*rt)->report().cpu_bytes_planned, (*rt)->report().cpu_bytes_naive);
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i - 128) / 16.0f;
  std::vector<float> out = RunOnce(**rt, in);
  for (int i = 0; i < 256; ++i) {
    float expected = std::max(0.0f, std::tanh(std::max(0.0f, std::tanh(in[i]))));
    EXPECT_NEAR(out[i], expected, 1e-6f) << i;
  }
}

// x -> RESHAPE -> r -> TANH -> a -> RESHAPE -> b -> RESHAPE -> d; d is read by
// NEG (-> TANH -> f) and by the last ADD: y = tanh(-tanh(x)) + tanh(x). b and
// d are a's bytes relabelled (no copy), r is not x's (a graph input keeps
// its own buffer), and f, made while d is still to be read, is elsewhere.
TEST(Runtime, ReshapeOutputsShareTheirInputsBytes) {
  Graph g;
  int x = AddTensor(g, "x", {1, 256});
  int r = AddTensor(g, "r", {16, 16});
  int a = AddTensor(g, "a", {16, 16});
  int b = AddTensor(g, "b", {256});
  int d = AddTensor(g, "d", {1, 256});
  int e = AddTensor(g, "e", {1, 256});
  int f = AddTensor(g, "f", {1, 256});
  int y = AddTensor(g, "y", {1, 256});
  auto reshape_to = [](std::vector<int32_t> shape) {
    ReshapeAttributes attrs;
    attrs.has_new_shape = true;
    attrs.new_shape = std::move(shape);
    return attrs;
  };
  AddNode(g, OpType::kReshape, {x}, {r}, -1, reshape_to({16, 16}));
  AddNode(g, OpType::kTanh, {r}, {a});
  AddNode(g, OpType::kReshape, {a}, {b}, -1, reshape_to({256}));
  AddNode(g, OpType::kReshape, {b}, {d}, -1, reshape_to({1, 256}));
  AddNode(g, OpType::kNeg, {d}, {e});
  AddNode(g, OpType::kTanh, {e}, {f});
  AddNode(g, OpType::kAdd, {f, d}, {y}, -1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  const Graph& planned = (*rt)->graph();
  bool has_b = false, has_d = false;
  for (const Node& n : planned.nodes) {
    for (int t : n.outputs) {
      has_b = has_b || t == b;
      has_d = has_d || t == d;
    }
  }
  ASSERT_TRUE(has_d) << "the RESHAPE making d must stay";
  EXPECT_EQ((*rt)->tensor(d).data, (*rt)->tensor(a).data);
  if (has_b) {
    EXPECT_EQ((*rt)->tensor(b).data, (*rt)->tensor(a).data);
  }
  EXPECT_NE((*rt)->tensor(r).data, (*rt)->tensor(x).data);
  EXPECT_NE((*rt)->tensor(f).data, (*rt)->tensor(a).data);
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i - 128) / 32.0f;
  for (int run = 0; run < 2; ++run) {
    std::vector<float> out = RunOnce(**rt, in);
    ASSERT_EQ(out.size(), 256u);
    for (int i = 0; i < 256; ++i) {
      const float t = std::tanh(in[i]);
      EXPECT_NEAR(out[i], std::tanh(-t) + t, 1e-6f) << i;
    }
  }
}

Graph Conv(int size) {
  Graph g;
  int x = AddTensor(g, "x", {1, size, size, 8});
  std::vector<float> w(8 * 3 * 3 * 8), bias(8);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 37) % 17) / 17.0f - 0.5f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * static_cast<float>(i);
  int wt = AddConstant<float>(g, "w", {8, 3, 3, 8}, DataType::kFloat32, w);
  int bt = AddConstant<float>(g, "b", {8}, DataType::kFloat32, bias);
  int y = AddTensor(g, "y", {1, size, size, 8});
  Conv2dAttributes attrs;
  attrs.padding = Padding::kSame;
  AddNode(g, OpType::kConv2d, {x, wt, bt}, {y}, 0, attrs);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(Runtime, ThreadsGiveTheSameResult) {
  const int size = 24;
  std::vector<float> in(size * size * 8);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 13) % 29) / 29.0f - 0.5f;
  auto one = Runtime::Create(Conv(size), CpuOptions(1));
  auto four = Runtime::Create(Conv(size), CpuOptions(4));
  ASSERT_TRUE(one.ok() && four.ok());
  std::vector<float> a = RunOnce(**one, in), b = RunOnce(**four, in);
  ASSERT_EQ(a.size(), b.size());
  float max_mag = 0;
  for (float v : a) max_mag = std::max(max_mag, std::fabs(v));
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5f * max_mag) << i;
}

TEST(Runtime, WeightsPackedOnceServeLaterRuns) {
  // CONV_2D and FULLY_CONNECTED keep their packed weights in the node's state
  // after the first run. Two of each with different weights and shapes, run
  // twice with different inputs: each run must equal a fresh runtime's first.
  auto model = [] {
    Graph g;
    auto values = [](size_t n, int seed) {
      std::vector<float> v(n);
      for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37 + seed * 11) % 23) / 23.0f - 0.5f;
      return v;
    };
    int x = AddTensor(g, "x", {1, 6, 6, 3});
    int w1 = AddConstant<float>(g, "w1", {5, 3, 3, 3}, DataType::kFloat32, values(5 * 27, 1));
    int w2 = AddConstant<float>(g, "w2", {18, 1, 1, 5}, DataType::kFloat32, values(18 * 5, 2));
    int f1 = AddConstant<float>(g, "f1", {7, 18}, DataType::kFloat32, values(7 * 18, 3));
    int f2 = AddConstant<float>(g, "f2", {4, 7}, DataType::kFloat32, values(4 * 7, 4));
    int a = AddTensor(g, "a", {1, 6, 6, 5});
    int b = AddTensor(g, "b", {1, 6, 6, 18});
    int c = AddTensor(g, "c", {1, 6, 6, 7});
    int y = AddTensor(g, "y", {1, 6, 6, 4});
    Conv2dAttributes same;
    same.padding = Padding::kSame;
    AddNode(g, OpType::kConv2d, {x, w1, kNoTensor}, {a}, 0, same);
    AddNode(g, OpType::kConv2d, {a, w2, kNoTensor}, {b}, 1, Conv2dAttributes{});
    FullyConnectedAttributes keep;
    keep.keep_num_dims = true;
    AddNode(g, OpType::kFullyConnected, {b, f1, kNoTensor}, {c}, 2, keep);
    AddNode(g, OpType::kFullyConnected, {c, f2, kNoTensor}, {y}, 3, keep);
    g.inputs = {x};
    g.outputs = {y};
    return g;
  };
  auto kept = Runtime::Create(model(), CpuOptions());
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  for (int run = 0; run < 3; ++run) {
    std::vector<float> in(6 * 6 * 3);
    for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<float>(i * (run + 1)));
    auto fresh = Runtime::Create(model(), CpuOptions());
    ASSERT_TRUE(fresh.ok());
    const std::vector<float> want = RunOnce(**fresh, in);
    const std::vector<float> got = RunOnce(**kept, in);
    float max_mag = 0;
    for (float v : want) max_mag = std::max(max_mag, std::fabs(v));
    ASSERT_GT(max_mag, 0.f);
    EXPECT_EQ(got, want) << "run " << run;
  }
}

TEST(Runtime, InvokeFromAnotherThread) {
  auto rt = Runtime::Create(AddRelu(), CpuOptions(2));
  ASSERT_TRUE(rt.ok());
  std::vector<float> out;
  std::thread t([&] { out = RunOnce(**rt, {-3, -1, 1, 3}); });
  t.join();
  EXPECT_EQ(out, (std::vector<float>{0, 0, 2, 4}));
}

TEST(Runtime, InputOutputErrors) {
  auto rt = Runtime::Create(AddRelu(), CpuOptions());
  ASSERT_TRUE(rt.ok());
  float buf[4] = {};
  Status s = (*rt)->SetInput(1, buf, sizeof buf);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "input index 1 is out of range: the model has 1 input(s)");
  s = (*rt)->SetInput(0, buf, 12);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "input 0 ('x' [1, 4] float32) needs 16 bytes, got 12");
  EXPECT_EQ((*rt)->SetInput(0, nullptr, 16).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*rt)->GetOutput(-1, buf, sizeof buf).code(), StatusCode::kOutOfRange);
  EXPECT_EQ((*rt)->GetOutput(0, buf, 20).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*rt)->OutputData(3), nullptr);
}

TEST(Runtime, GraphOutputThatIsAnInputOrAConstant) {
  Graph g;
  int x = AddTensor(g, "x", {2});
  int c = AddConstant<float>(g, "c", {2}, DataType::kFloat32, {7, 8});
  g.inputs = {x};
  g.outputs = {x, c};
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ(RunOnce(**rt, {1, 2}, 0), (std::vector<float>{1, 2}));
  EXPECT_EQ(RunOnce(**rt, {1, 2}, 1), (std::vector<float>{7, 8}));
}

TEST(Runtime, NodeWithoutAnyKernelIsNamed) {
  // Past the end of the op list: an op no backend has (FindCpuKernel must
  // answer nullptr for it, as it does for any op without a kernel).
  const OpType missing = static_cast<OpType>(AllOpTypes().size());
  ASSERT_EQ(cpu::FindCpuKernel(missing), nullptr);
  Graph g;
  int x = AddTensor(g, "x", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {y}, 0);
  int z = AddTensor(g, "z", {4});
  AddNode(g, missing, {y}, {z}, 7);
  g.inputs = {x};
  g.outputs = {z};
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(rt.status().message(), std::string("node 7 (") + OpTypeName(missing) + "): no CPU kernel");
}

TEST(Runtime, BadOptions) {
  Options o = CpuOptions();
  o.num_threads = 0;
  EXPECT_EQ(Runtime::Create(AddRelu(), o).status().code(), StatusCode::kInvalidArgument);
  o = CpuOptions();
  o.gpu_deny_ops = {"NOPE"};
  EXPECT_EQ(Runtime::Create(AddRelu(), o).status().code(), StatusCode::kInvalidArgument);
  o = CpuOptions();
  o.log_level = "loud";
  EXPECT_EQ(Runtime::Create(AddRelu(), o).status().code(), StatusCode::kInvalidArgument);
  // The options' one check (gld::CheckOptions), with its message, below the API too.
  for (int Options::*member : {&Options::max_delegated_partitions, &Options::min_nodes_per_partition}) {
    o = CpuOptions();
    o.*member = -1;
    const Status refused = Runtime::Create(AddRelu(), o).status();
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(refused.message(), CheckOptions(o).message());
  }
}

TEST(Runtime, MalformedGraphIsRejectedBeforePlanning) {
  Graph g = AddRelu();
  g.nodes[1].inputs[0] = 42;
  auto rt = Runtime::Create(std::move(g), CpuOptions());
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("node 1 (RELU): input 0 refers to tensor 42"), std::string::npos)
      << rt.status().message();
}

TEST(Runtime, AutoWithoutGpuRunsOnTheCpuAndSaysWhy) {
  auto gpu = CreateGpuBackend(Options());
  if (gpu.ok()) GTEST_SKIP() << "a GPU backend is available here";
  Options o;
  o.backend = Backend::kAuto;
  auto rt = Runtime::Create(AddRelu(), o);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ((*rt)->report().backend, Backend::kCpu);
  EXPECT_EQ((*rt)->report().nodes[0].reason, "GPU backend unavailable: " + gpu.status().message());
  o.backend = Backend::kGl;
  EXPECT_EQ(Runtime::Create(AddRelu(), o).status().code(), gpu.status().code());
}

TEST(Runtime, AutoOnASoftwareRasterizerRunsTheCpuAndSaysWhy) {
  Options gl;
  gl.backend = Backend::kGl;
  auto gpu = CreateGpuBackend(gl);
  if (!gpu.ok()) GTEST_SKIP() << "no GL here: " << gpu.status().message();
  if (!(*gpu)->IsSoftwareRasterizer()) GTEST_SKIP() << "a hardware GPU is here: " << (*gpu)->renderer();
  const std::string name = (*gpu)->device_name();
  gpu->reset();
  Options o;  // the default backend is auto
  ASSERT_EQ(o.backend, Backend::kAuto);
  auto rt = Runtime::Create(AddRelu(), o);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ((*rt)->report().backend, Backend::kCpu);
  EXPECT_EQ((*rt)->report().gpu_nodes, 0);
  EXPECT_EQ((*rt)->report().nodes[0].reason,
            "auto: GL renderer '" + name + "' is a software rasterizer; running on the CPU (use --backend=gl to force)");
  EXPECT_EQ(RunOnce(**rt, {-3, 0, 1, 2}), (std::vector<float>{0, 1, 2, 3}));
  // gl still runs on it.
  auto forced = Runtime::Create(AddRelu(), gl);
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ((*forced)->report().backend, Backend::kGl);
  EXPECT_EQ((*forced)->report().gpu_nodes, (*forced)->report().total_nodes);
  EXPECT_NE((*forced)->report().gl_renderer.find(name), std::string::npos) << (*forced)->report().gl_renderer;
}

// A GPU backend that reports a renderer and takes no node.
class RefusingGpu : public GpuBackend {
 public:
  RefusingGpu(std::string device, bool software) : device_(std::move(device)), software_(software) {}
  std::string name() const override { return "test-gpu"; }
  std::string device_name() const override { return device_; }
  bool IsSoftwareRasterizer() const override { return software_; }
  std::string WhyNotSupported(const Graph&, size_t) const override { return "refused by the test backend"; }
  StatusOr<std::unique_ptr<Step>> CreateSegmentStep(const Graph&, const Segment&, int) override {
    return InternalError("no segment expected");
  }

 private:
  std::string device_;
  bool software_;
};

TEST(Runtime, AutoKeepsAHardwareGpuAndDropsASoftwareOne) {
  for (bool software : {false, true}) {
    Runtime::GpuBackendFactory factory = [software](const Options&) -> StatusOr<std::unique_ptr<GpuBackend>> {
      return std::unique_ptr<GpuBackend>(new RefusingGpu(software ? "SwiftShader Device" : "Some GPU 9000", software));
    };
    Options o;
    auto rt = Runtime::Create(AddRelu(), o, factory);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    EXPECT_EQ((*rt)->report().backend, software ? Backend::kCpu : Backend::kGl);
    EXPECT_EQ((*rt)->report().nodes[0].reason,
              software ? "auto: GL renderer 'SwiftShader Device' is a software rasterizer; running on the CPU "
                         "(use --backend=gl to force)"
                       : "refused by the test backend");
    o.backend = Backend::kGl;
    rt = Runtime::Create(AddRelu(), o, factory);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    EXPECT_EQ((*rt)->report().backend, Backend::kGl);
  }
}

TEST(Runtime, SoftwareRendererNames) {
  EXPECT_TRUE(IsSoftwareRendererName("llvmpipe (LLVM 15.0.6, 256 bits)"));
  EXPECT_TRUE(IsSoftwareRendererName("softpipe"));
  EXPECT_TRUE(IsSoftwareRendererName("Google SwiftShader"));
  EXPECT_TRUE(IsSoftwareRendererName("LLVMPIPE"));
  EXPECT_FALSE(IsSoftwareRendererName("NVIDIA GeForce RTX 3080/PCIe/SSE2"));
  EXPECT_FALSE(IsSoftwareRendererName("Mali-G78"));
  EXPECT_FALSE(IsSoftwareRendererName(""));
}

TEST(Runtime, MinusOneThreadsIsEveryCore) {
  Options o = CpuOptions(-1);
  auto rt = Runtime::Create(AddRelu(), o);
  ASSERT_TRUE(rt.ok()) << rt.status().ToString();
  EXPECT_EQ(RunOnce(**rt, {-3, 0, 1, 2}), (std::vector<float>{0, 1, 2, 3}));
  o.num_threads = -2;
  EXPECT_EQ(Runtime::Create(AddRelu(), o).status().code(), StatusCode::kInvalidArgument);
}

// y = MAX_POOL_2D(CONV_2D(x)), a 1x1 convolution 2 -> 3 channels: both run
// on XNNPACK; the profile still names them by op.
TEST(Runtime, XnnpackNodesKeepTheirOpNamesInTheProfile) {
  Graph g;
  int x = AddTensor(g, "x", {1, 4, 4, 2});
  int w = AddConstant<float>(g, "w", {3, 1, 1, 2}, DataType::kFloat32, {1, 0, 0, 1, 1, -1});
  int b = AddConstant<float>(g, "b", {3}, DataType::kFloat32, {0, 0.5f, -0.5f});
  int c = AddTensor(g, "c", {1, 4, 4, 3});
  int y = AddTensor(g, "y", {1, 2, 2, 3});
  AddNode(g, OpType::kConv2d, {x, w, b}, {c}, 0, Conv2dAttributes{});
  Pool2dAttributes pool;
  pool.filter_h = pool.filter_w = pool.stride_h = pool.stride_w = 2;
  AddNode(g, OpType::kMaxPool2d, {c}, {y}, 1, pool);
  g.inputs = {x};
  g.outputs = {y};
  for (int threads : {1, 2}) {
    Options o = CpuOptions(threads);
    o.enable_profiling = true;
    auto rt = Runtime::Create(g, o);
    ASSERT_TRUE(rt.ok()) << rt.status().ToString();
    std::vector<float> in(32);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5);
    const std::vector<float> out = RunOnce(**rt, in);
    ASSERT_EQ(out.size(), 12u);
    for (int py = 0; py < 2; ++py) {
      for (int px = 0; px < 2; ++px) {
        for (int o_c = 0; o_c < 3; ++o_c) {
          float best = -1e30f;
          for (int dy = 0; dy < 2; ++dy) {
            for (int dx = 0; dx < 2; ++dx) {
              const size_t p = static_cast<size_t>(((py * 2 + dy) * 4 + px * 2 + dx) * 2);
              const float v = o_c == 0 ? in[p] : o_c == 1 ? in[p + 1] + 0.5f : in[p] - in[p + 1] - 0.5f;
              best = std::max(best, v);
            }
          }
          EXPECT_EQ(out[static_cast<size_t>((py * 2 + px) * 3 + o_c)], best) << py << px << o_c;
        }
      }
    }
    std::vector<ProfileRow> rows = (*rt)->Profile();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].op, "CONV_2D");
    EXPECT_EQ(rows[1].op, "MAX_POOL_2D");
    EXPECT_EQ(rows[0].backend, "cpu");
    EXPECT_EQ(rows[0].count, 1);
  }
}

Status Boom(cpu::KernelContext&) { return InternalError("boom"); }

TEST(CpuNodeStep, KernelErrorsCarryTheNodeLabel) {
  Graph g = AddRelu();
  cpu::CpuKernel kernel{OpType::kRelu, Boom};
  CpuNodeStep step(g, 1, &kernel);
  std::vector<cpu::TensorData> tensors(g.tensors.size());
  StepContext ctx;
  ctx.graph = &g;
  ctx.tensors = &tensors;
  Status s = step.Run(ctx);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(s.message(), "node 1 (RELU): boom");
  EXPECT_EQ(step.host_inputs(), std::vector<int>{2});
  EXPECT_EQ(step.host_outputs(), std::vector<int>{3});
}

// Nodes below cpu::kParallelMinWork run on the calling thread alone, their
// XNNPACK operators set up without the pool; the others on the pool.
TEST(Runtime, SmallNodesRunOnTheCallingThreadWithTheSameResult) {
  auto model = [] {
    Graph g;
    std::vector<float> w(8 * 3 * 3 * 8);
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 37) % 17) / 17.0f - 0.5f;
    int x = AddTensor(g, "x", {1, 6, 6, 8});
    int wt = AddConstant<float>(g, "w", {8, 3, 3, 8}, DataType::kFloat32, w);
    int small = AddTensor(g, "small", {1, 6, 6, 8});
    int wide = AddTensor(g, "wide", {1, 48, 48, 8});
    int big = AddTensor(g, "big", {1, 48, 48, 8});
    int y = AddTensor(g, "y", {1, 48, 48, 8});
    Conv2dAttributes same;
    same.padding = Padding::kSame;
    AddNode(g, OpType::kConv2d, {x, wt, kNoTensor}, {small}, 0, same);  // 6*6*8*72: serial
    ResizeAttributes resize;
    int size = AddConstant<int32_t>(g, "size", {2}, DataType::kInt32, {48, 48});
    AddNode(g, OpType::kResizeNearestNeighbor, {small, size}, {wide}, 1, resize);
    AddNode(g, OpType::kConv2d, {wide, wt, kNoTensor}, {big}, 2, same);  // 48*48*8*72: on the pool
    AddNode(g, OpType::kAdd, {big, wide}, {y}, 3, BinaryAttributes{});
    g.inputs = {x};
    g.outputs = {y};
    return g;
  };
  const Graph g = model();
  EXPECT_LT(cpu::EstimateNodeWork(g, 0), cpu::kParallelMinWork);
  EXPECT_GE(cpu::EstimateNodeWork(g, 2), cpu::kParallelMinWork);
  std::vector<float> in(6 * 6 * 8);
  for (size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<float>(i));
  auto one = Runtime::Create(model(), CpuOptions(1));
  auto two = Runtime::Create(model(), CpuOptions(2));
  ASSERT_TRUE(one.ok() && two.ok()) << (one.ok() ? two.status() : one.status()).ToString();
  const std::vector<float> want = RunOnce(**one, in);
  for (int run = 0; run < 3; ++run) EXPECT_EQ(RunOnce(**two, in), want) << "run " << run;
}

TEST(EstimateNodeWork, CountsMultiplyAddsOfWindowsAndRows) {
  Graph g;
  int x = AddTensor(g, "x", {1, 10, 10, 4});
  int w = AddConstant<float>(g, "w", {6, 3, 3, 4}, DataType::kFloat32, std::vector<float>(6 * 36, 0.f));
  int dw = AddConstant<float>(g, "dw", {1, 5, 5, 4}, DataType::kFloat32, std::vector<float>(100, 0.f));
  int fw = AddConstant<float>(g, "fw", {3, 400}, DataType::kFloat32, std::vector<float>(1200, 0.f));
  int c = AddTensor(g, "c", {1, 10, 10, 6});
  int d = AddTensor(g, "d", {1, 10, 10, 4});
  int f = AddTensor(g, "f", {1, 3});
  int p = AddTensor(g, "p", {1, 5, 5, 4});
  int r = AddTensor(g, "r", {1, 10, 10, 4});
  Conv2dAttributes same;
  same.padding = Padding::kSame;
  DepthwiseConv2dAttributes dsame;
  dsame.padding = Padding::kSame;
  AddNode(g, OpType::kConv2d, {x, w, kNoTensor}, {c}, 0, same);
  AddNode(g, OpType::kDepthwiseConv2d, {x, dw, kNoTensor}, {d}, 1, dsame);
  AddNode(g, OpType::kFullyConnected, {x, fw, kNoTensor}, {f}, 2, FullyConnectedAttributes{});
  Pool2dAttributes pool;
  pool.filter_h = pool.filter_w = pool.stride_h = pool.stride_w = 2;
  AddNode(g, OpType::kMaxPool2d, {x}, {p}, 3, pool);
  AddNode(g, OpType::kRelu, {x}, {r}, 4);
  EXPECT_EQ(cpu::EstimateNodeWork(g, 0), 600 * 36);
  EXPECT_EQ(cpu::EstimateNodeWork(g, 1), 400 * 25);
  EXPECT_EQ(cpu::EstimateNodeWork(g, 2), 3 * 400);
  EXPECT_EQ(cpu::EstimateNodeWork(g, 3), 100 * 4);
  EXPECT_GT(cpu::EstimateNodeWork(g, 4), 400);  // an elementwise element costs more than one multiply-add
}

}  // namespace
}  // namespace gld
