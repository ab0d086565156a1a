// What gld_benchmark builds on in the library: the segment limit
// (Options::max_delegated_partitions -> PartitionOptions::max_segments) and
// per-node / per-dispatch profiling (Options::enable_profiling,
// Interpreter::profile()).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <set>

#include "common/graph_builder.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"
#include "runtime/gpu_backend.h"
#include "partition/partition.h"

namespace gld {
namespace {

using testing::AddNode;
using testing::AddTensor;

// A GPU that runs every op except those it is told to refuse.
class RefusingGpu : public GpuBackend {
 public:
  explicit RefusingGpu(std::set<OpType> refuse) : refuse_(std::move(refuse)) {}
  std::string name() const override { return "fake"; }
  std::string WhyNotSupported(const Graph& g, size_t i) const override {
    return refuse_.count(g.nodes[i].op) ? "refused" : "";
  }
  StatusOr<std::unique_ptr<Step>> CreateSegmentStep(const Graph&, const Segment&, int) override {
    return UnimplementedError("fake");
  }

 private:
  std::set<OpType> refuse_;
};

// A chain of unary nodes with the given ops: t0 -op0-> t1 -op1-> ... -> tn.
Graph UnaryChain(const std::vector<OpType>& ops) {
  Graph g;
  int prev = AddTensor(g, "t0", {4});
  g.inputs = {prev};
  for (size_t i = 0; i < ops.size(); ++i) {
    int next = AddTensor(g, "t" + std::to_string(i + 1), {4});
    AddNode(g, ops[i], {prev}, {next});
    prev = next;
  }
  g.outputs = {prev};
  return g;
}

constexpr OpType R = OpType::kRelu, T = OpType::kTanh, X = OpType::kExp;

TEST(MaxSegments, KeepsTheLargestSegmentsAndMovesTheOthersToTheCpu) {
  // Segments of 1, 3 and 2 nodes, split by refused EXPs.
  Graph g = UnaryChain({R, X, R, T, R, X, T, R});
  RefusingGpu gpu({X});
  PartitionOptions o;
  o.gpu = &gpu;
  Partition unlimited = PartitionGraph(g, o);
  ASSERT_EQ(unlimited.segments.size(), 3u);
  o.max_segments = 2;
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(p.PlacementLine(), "placement: 5/8 nodes on GPU in 2 segments");
  ASSERT_EQ(p.segments.size(), 2u);
  EXPECT_EQ(p.segments[0].nodes, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(p.segments[1].nodes, (std::vector<int>{6, 7}));
  EXPECT_FALSE(p.nodes[0].on_gpu);
  EXPECT_EQ(p.nodes[0].segment, -1);
  EXPECT_EQ(p.nodes[0].reason, "max_delegated_partitions=2");
  EXPECT_EQ(p.nodes[1].reason, "refused");  // refused nodes keep their own reason
  for (int n : {2, 3, 4}) EXPECT_EQ(p.nodes[static_cast<size_t>(n)].segment, 0) << n;
  for (int n : {6, 7}) EXPECT_EQ(p.nodes[static_cast<size_t>(n)].segment, 1) << n;
  // Edges of the kept segments: reads t2, hands t5 on; reads t6, writes t8.
  EXPECT_EQ(p.segments[0].inputs, (std::vector<int>{2}));
  EXPECT_EQ(p.segments[0].outputs, (std::vector<int>{5}));
  EXPECT_EQ(p.segments[1].inputs, (std::vector<int>{6}));
  EXPECT_EQ(p.segments[1].outputs, (std::vector<int>{8}));
}

TEST(MaxSegments, EarlierSegmentWinsATieAndZeroMeansNoLimit) {
  Graph g = UnaryChain({R, T, X, T, R});
  RefusingGpu gpu({X});
  PartitionOptions o;
  o.gpu = &gpu;
  o.max_segments = 1;
  Partition p = PartitionGraph(g, o);
  ASSERT_EQ(p.segments.size(), 1u);
  EXPECT_EQ(p.segments[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.nodes[3].reason, "max_delegated_partitions=1");
  EXPECT_EQ(p.gpu_nodes, 2);
  o.max_segments = 0;
  EXPECT_EQ(PartitionGraph(g, o).segments.size(), 2u);
  o.max_segments = 2;
  EXPECT_EQ(PartitionGraph(g, o).gpu_nodes, 4);
}

// y = RELU(x * c2 + c1) over [1, 4, 4, 3]; with MUL denied on the GPU it
// runs as GPU, CPU, GPU pieces.
std::shared_ptr<const Model> AddMulAddRelu() {
  ModelBuilder b;
  const std::vector<int> shape = {1, 4, 4, 3};
  int x = b.AddInput("x", ElementType::kFloat32, shape);
  int c1 = b.AddConstantFloat("c1", {3}, {1, 2, 3});
  int c2 = b.AddConstantFloat("c2", {3}, {2, -1, 0.5f});
  int a = b.AddTensor("a", ElementType::kFloat32, shape);
  int m = b.AddTensor("m", ElementType::kFloat32, shape);
  int s = b.AddTensor("s", ElementType::kFloat32, shape);
  int y = b.AddTensor("y", ElementType::kFloat32, shape);
  EXPECT_TRUE(b.AddOp("ADD", {x, c1}, {a}).ok());
  EXPECT_TRUE(b.AddOp("MUL", {a, c2}, {m}).ok());
  EXPECT_TRUE(b.AddOp("ADD", {m, c1}, {s}).ok());
  EXPECT_TRUE(b.AddOp("RELU", {s}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return *model;
}

std::vector<float> Input() {
  std::vector<float> v(48);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.5f;
  return v;
}

// RELU(((x + c1) * c2) + c1), computed here.
std::vector<float> Expected(const std::vector<float>& x) {
  const float c1[3] = {1, 2, 3}, c2[3] = {2, -1, 0.5f};
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = std::max(0.0f, (x[i] + c1[i % 3]) * c2[i % 3] + c1[i % 3]);
  return y;
}

void RunAndCheck(Interpreter& interp, int times) {
  std::vector<float> x = Input();
  ASSERT_TRUE(interp.SetInput(0, x.data(), x.size() * 4).ok());
  for (int i = 0; i < times; ++i) ASSERT_TRUE(interp.Invoke().ok());
  std::vector<float> y(x.size());
  ASSERT_TRUE(interp.GetOutput(0, y.data(), y.size() * 4).ok());
  EXPECT_EQ(y, Expected(x));  // small exact values: profiling must not change results
}

bool SkipGl() {
  const char* v = std::getenv("GLD_SKIP_GL_TESTS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

TEST(Profiling, OffByDefault) {
  auto model = AddMulAddRelu();
  Options o;
  o.backend = Backend::kCpu;
  auto interp = Interpreter::Create(*model, o);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  RunAndCheck(**interp, 1);
  EXPECT_TRUE((*interp)->profile().empty());
}

TEST(Profiling, CpuRowPerNodeAveragedOverRunsAndReset) {
  auto model = AddMulAddRelu();
  Options o;
  o.backend = Backend::kCpu;
  o.enable_profiling = true;
  auto interp = Interpreter::Create(*model, o);
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  RunAndCheck(**interp, 3);
  const InterpreterReport& rep = (*interp)->report();
  std::vector<ProfileRow> rows = (*interp)->profile();
  ASSERT_EQ(rows.size(), rep.nodes.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].name, rep.nodes[i].label);
    EXPECT_EQ(rows[i].op, rep.nodes[i].op);
    EXPECT_EQ(rows[i].fused, rep.nodes[i].fused);
    EXPECT_EQ(rows[i].backend, "cpu");
    EXPECT_EQ(rows[i].timing, "wall");
    EXPECT_EQ(rows[i].count, 3);
    EXPECT_GE(rows[i].time_us, 0);
    EXPECT_LT(rows[i].time_us, 1e6);
  }
  (*interp)->ResetProfile();
  for (const ProfileRow& r : (*interp)->profile()) EXPECT_EQ(r.count, 0) << r.name;
  RunAndCheck(**interp, 1);
  for (const ProfileRow& r : (*interp)->profile()) EXPECT_EQ(r.count, 1) << r.name;
}

TEST(Profiling, GlRowPerDispatchPlusTransfersAndCpuNodes) {
  auto model = AddMulAddRelu();
  Options o;
  o.backend = Backend::kGl;
  o.enable_profiling = true;
  o.gpu_deny_ops = {"MUL"};
  auto interp = Interpreter::Create(*model, o);
  if (!interp.ok()) {
    if (SkipGl()) GTEST_SKIP() << "no GL (GLD_SKIP_GL_TESTS): " << interp.status().ToString();
    FAIL() << "no GL backend (set GLD_SKIP_GL_TESTS=1 to skip): " << interp.status().ToString();
  }
  const InterpreterReport& rep = (*interp)->report();
  ASSERT_EQ(rep.backend, Backend::kGl);
  ASSERT_GE(rep.segments, 2) << rep.placement_line;
  RunAndCheck(**interp, 1);  // a first run may settle how dispatches are timed
  (*interp)->ResetProfile();
  RunAndCheck(**interp, 2);
  std::vector<ProfileRow> rows = (*interp)->profile();
  int gl_dispatch_rows = 0, convert_rows = 0, transfer_rows = 0, cpu_rows = 0;
  double gl_time = 0;
  std::set<std::string> gpu_ops, cpu_ops;
  for (const ProfileRow& r : rows) {
    EXPECT_EQ(r.count, 2) << r.name;
    EXPECT_GE(r.time_us, 0) << r.name;
    if (r.backend == "cpu") {
      ++cpu_rows;
      cpu_ops.insert(r.op);
      EXPECT_EQ(r.timing, "wall");
      continue;
    }
    ASSERT_EQ(r.backend, "gl") << r.name;
    if (r.op == "UPLOAD" || r.op == "DOWNLOAD") {
      ++transfer_rows;
      EXPECT_EQ(r.timing, "wall");
      continue;
    }
    ++gl_dispatch_rows;
    gl_time += r.time_us;
    EXPECT_TRUE(r.timing == "gpu_timer" || r.timing == "gl_finish") << r.timing;
    if (r.op == "CONVERT") {
      ++convert_rows;
      EXPECT_NE(r.name.find("phwc4"), std::string::npos) << r.name;
    } else {
      gpu_ops.insert(r.op);
      EXPECT_NE(r.name.find("(" + r.op + ")"), std::string::npos) << r.name;
    }
  }
  EXPECT_EQ(gl_dispatch_rows, rep.dispatches);
  EXPECT_EQ(transfer_rows, 2 * rep.segments);
  EXPECT_GE(convert_rows, 2 * rep.segments);  // at least one in and one out per segment
  EXPECT_GT(gl_time, 0);
  EXPECT_EQ(cpu_rows, rep.total_nodes - rep.gpu_nodes);
  EXPECT_EQ(cpu_ops, (std::set<std::string>{"MUL"}));
  EXPECT_EQ(gpu_ops.count("MUL"), 0u);
  EXPECT_EQ(gpu_ops.count("ADD"), 1u);
}

TEST(Profiling, MaxDelegatedPartitionsThroughThePublicApi) {
  auto model = AddMulAddRelu();
  Options o;
  o.backend = Backend::kGl;
  o.gpu_deny_ops = {"MUL"};
  o.max_delegated_partitions = 1;
  auto interp = Interpreter::Create(*model, o);
  if (!interp.ok()) {
    if (SkipGl()) GTEST_SKIP() << "no GL (GLD_SKIP_GL_TESTS): " << interp.status().ToString();
    FAIL() << "no GL backend (set GLD_SKIP_GL_TESTS=1 to skip): " << interp.status().ToString();
  }
  const InterpreterReport& rep = (*interp)->report();
  EXPECT_EQ(rep.segments, 1) << rep.placement_line;
  int limited = 0;
  for (const PlacementInfo& p : rep.nodes) limited += p.reason == "max_delegated_partitions=1";
  EXPECT_GE(limited, 1);
  RunAndCheck(**interp, 1);

  o.max_delegated_partitions = -1;
  auto bad = Interpreter::Create(*model, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("max_delegated_partitions"), std::string::npos);
}

}  // namespace
}  // namespace gld
