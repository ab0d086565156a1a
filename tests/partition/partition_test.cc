#include <gtest/gtest.h>

#include "partition/partition.h"
#include "common/graph_builder.h"

namespace gld {
namespace {

using testing::AddConstant;
using testing::AddNode;
using testing::AddTensor;

// A GPU that runs everything except the ops it is told to refuse; partition
// needs only its answers.
class FakeGpu : public NodeSupportQuery {
 public:
  explicit FakeGpu(std::set<OpType> refuse) : refuse_(std::move(refuse)) {}
  std::string WhyNotSupported(const Graph& g, size_t i) const override {
    return refuse_.count(g.nodes[i].op) ? std::string(OpTypeName(g.nodes[i].op)) + " is not supported on fake" : "";
  }

 private:
  std::set<OpType> refuse_;
};

// x -RELU-> a -TANH-> b -GATHER(const idx)-> c -EXP-> d -ADD(d, a)-> y
Graph Chain() {
  Graph g;
  int x = AddTensor(g, "x", {4});
  int a = AddTensor(g, "a", {4});
  int b = AddTensor(g, "b", {4});
  int idx = AddConstant<int32_t>(g, "idx", {4}, DataType::kInt32, {3, 2, 1, 0});
  int c = AddTensor(g, "c", {4});
  int d = AddTensor(g, "d", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {a});
  AddNode(g, OpType::kTanh, {a}, {b});
  AddNode(g, OpType::kGather, {b, idx}, {c});
  AddNode(g, OpType::kExp, {c}, {d});
  AddNode(g, OpType::kAdd, {d, a}, {y}, -1, BinaryAttributes{});
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(Partition, CpuOnlyWhenNoGpu) {
  Graph g = Chain();
  PartitionOptions o;
  o.cpu_reason = "backend is cpu";
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(p.gpu_nodes, 0);
  EXPECT_TRUE(p.segments.empty());
  EXPECT_EQ(p.PlacementLine(), "placement: 0/5 nodes on GPU in 0 segments");
  for (const auto& n : p.nodes) EXPECT_EQ(n.reason, "backend is cpu");
}

TEST(Partition, RefusedNodeSplitsSegmentsAndSegmentEdgesAreComputed) {
  Graph g = Chain();
  FakeGpu gpu({OpType::kGather});
  PartitionOptions o;
  o.gpu = &gpu;
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(p.PlacementLine(), "placement: 4/5 nodes on GPU in 2 segments");
  ASSERT_EQ(p.segments.size(), 2u);
  EXPECT_EQ(p.segments[0].nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(p.segments[1].nodes, (std::vector<int>{3, 4}));
  EXPECT_FALSE(p.nodes[2].on_gpu);
  EXPECT_EQ(p.nodes[2].segment, -1);
  EXPECT_EQ(p.nodes[2].reason, "GATHER is not supported on fake");
  EXPECT_EQ(p.nodes[4].segment, 1);
  // Segment 0 reads x, and hands a (read by the ADD) and b (read by GATHER) on.
  EXPECT_EQ(p.segments[0].inputs, (std::vector<int>{0}));
  EXPECT_EQ(p.segments[0].outputs, (std::vector<int>{1, 2}));
  // Segment 1 reads c and a; writes the graph output y only (d stays inside).
  EXPECT_EQ(p.segments[1].inputs, (std::vector<int>{4, 1}));
  EXPECT_EQ(p.segments[1].outputs, (std::vector<int>{6}));
}

// The edges of a segment named by its nodes are those partitioning finds.
TEST(Partition, SegmentOfGivesThePartitionEdges) {
  Graph g = Chain();
  const Segment tail = SegmentOf(g, {3, 4});
  EXPECT_EQ(tail.inputs, (std::vector<int>{4, 1}));
  EXPECT_EQ(tail.outputs, (std::vector<int>{6}));
  const Segment head = SegmentOf(g, {0, 1});
  EXPECT_EQ(head.inputs, (std::vector<int>{0}));
  EXPECT_EQ(head.outputs, (std::vector<int>{1, 2}));
  // Out-of-range nodes are left for the caller to refuse.
  const Segment bad = SegmentOf(g, {9});
  EXPECT_EQ(bad.nodes, std::vector<int>{9});
  EXPECT_TRUE(bad.inputs.empty());
  EXPECT_TRUE(bad.outputs.empty());
}

// x -RELU-> a -TANH-> b -ADD(b, e)-> y, with the CPU-only branch
// m -FLOOR-> f -CEIL-> e written between the RELU and the TANH: it depends on
// no GPU node, so it runs at the input edge and the GPU nodes stay one segment.
Graph TwoBranches() {
  Graph g;
  int x = AddTensor(g, "x", {4});
  int m = AddTensor(g, "m", {4});
  int a = AddTensor(g, "a", {4});
  int f = AddTensor(g, "f", {4});
  int e = AddTensor(g, "e", {4});
  int b = AddTensor(g, "b", {4});
  int y = AddTensor(g, "y", {4});
  AddNode(g, OpType::kRelu, {x}, {a});
  AddNode(g, OpType::kFloor, {m}, {f});
  AddNode(g, OpType::kCeil, {f}, {e});
  AddNode(g, OpType::kTanh, {a}, {b});
  AddNode(g, OpType::kAdd, {b, e}, {y}, -1, BinaryAttributes{});
  g.inputs = {x, m};
  g.outputs = {y};
  return g;
}

// `g` partitioned for a GPU that refuses the ops `refuse`.
Partition Refusing(const Graph& g, std::set<OpType> refuse) {
  FakeGpu gpu(std::move(refuse));
  PartitionOptions o;
  o.gpu = &gpu;
  return PartitionGraph(g, o);
}

// `g` partitioned for a GPU that refuses FLOOR and CEIL.
Partition WithoutFloorAndCeil(const Graph& g) { return Refusing(g, {OpType::kFloor, OpType::kCeil}); }

TEST(Partition, CpuNodesThatDependOnNoGpuNodeRunAtTheInputEdge) {
  Graph g = TwoBranches();
  Partition p = WithoutFloorAndCeil(g);
  EXPECT_EQ(p.PlacementLine(), "placement: 3/5 nodes on GPU in 1 segments");
  EXPECT_EQ(p.order, (std::vector<int>{1, 2, 0, 3, 4}));
  ASSERT_EQ(p.segments.size(), 1u);
  EXPECT_EQ(p.segments[0].nodes, (std::vector<int>{0, 3, 4}));
  EXPECT_EQ(p.segments[0].inputs, (std::vector<int>{0, 4}));  // x and e
  EXPECT_EQ(p.segments[0].outputs, (std::vector<int>{6}));
  EXPECT_EQ(p.nodes[1].reason,
            "FLOOR is not supported on fake (runs at the input edge, before the GPU nodes: it depends on none)");
  // Without a GPU nothing moves.
  EXPECT_EQ(PartitionGraph(g, PartitionOptions{}).order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Partition, CpuNodeThatReadsAGpuNodeStaysInPlace) {
  Graph g = TwoBranches();
  // The CEIL reads the RELU's output: it depends on a GPU node and splits.
  g.nodes[2].inputs = {2};
  Partition p = WithoutFloorAndCeil(g);
  EXPECT_EQ(p.order, (std::vector<int>{1, 0, 2, 3, 4}));
  EXPECT_EQ(p.PlacementLine(), "placement: 3/5 nodes on GPU in 2 segments");
  EXPECT_EQ(p.nodes[2].reason, "CEIL is not supported on fake");
}

TEST(Partition, CpuNodeWithAVariableStaysInPlace) {
  Graph g = TwoBranches();
  g.tensors[4].is_variable = true;  // e: its order against other nodes matters
  Partition p = WithoutFloorAndCeil(g);
  EXPECT_EQ(p.order, (std::vector<int>{1, 0, 2, 3, 4}));
  EXPECT_EQ(p.PlacementLine(), "placement: 3/5 nodes on GPU in 2 segments");
}

// ids (int32) -RESHAPE-> r -RESHAPE-> s -CAST-> f (float32) -EXP-> y: the
// GPU holds int32 as floats, so an int32 value may not leave it for the CPU.
Graph Int32Moves() {
  Graph g;
  int ids = AddTensor(g, "ids", {1, 4}, DataType::kInt32);
  int r = AddTensor(g, "r", {4}, DataType::kInt32);
  int s = AddTensor(g, "s", {2, 2}, DataType::kInt32);
  int f = AddTensor(g, "f", {2, 2});
  int y = AddTensor(g, "y", {2, 2});
  AddNode(g, OpType::kReshape, {ids}, {r});
  AddNode(g, OpType::kReshape, {r}, {s});
  AddNode(g, OpType::kCast, {s}, {f});
  AddNode(g, OpType::kExp, {f}, {y});
  g.inputs = {ids};
  g.outputs = {y};
  return g;
}

TEST(Partition, Int32MovedOnTheGpuIsReadOnTheGpu) {
  EXPECT_EQ(Refusing(Int32Moves(), {}).PlacementLine(), "placement: 4/4 nodes on GPU in 1 segments");
}

TEST(Partition, Int32ReadOnTheCpuIsNotMadeOnTheGpu) {
  // The CAST runs on the CPU: both RESHAPEs before it follow, one after the
  // other, since each would hand its int32 output to the CPU.
  Partition p = Refusing(Int32Moves(), {OpType::kCast});
  EXPECT_EQ(p.PlacementLine(), "placement: 1/4 nodes on GPU in 1 segments");
  EXPECT_FALSE(p.nodes[0].on_gpu);
  EXPECT_FALSE(p.nodes[1].on_gpu);
  EXPECT_EQ(p.nodes[1].reason,
            "its int32 output 's' is read by node 2 (CAST) on the CPU, and the GPU holds int32 values as floats "
            "(exact only for its GPU readers)");
  EXPECT_EQ(p.nodes[0].reason.find("its int32 output 'r' is read by node 1 (RESHAPE) on the CPU"), 0u);
  // An int32 graph output is not made on the GPU either.
  Graph h = Int32Moves();
  h.outputs.push_back(2);  // s
  Partition q = Refusing(h, {});
  EXPECT_FALSE(q.nodes[1].on_gpu);
  EXPECT_EQ(q.nodes[1].reason.find("its int32 output 's' is read by the graph (an output)"), 0u);
  EXPECT_TRUE(q.nodes[2].on_gpu);
}

TEST(Partition, DenyOpsForceNodesToTheCpu) {
  Graph g = Chain();
  FakeGpu gpu({});
  PartitionOptions o;
  o.gpu = &gpu;
  auto deny = ParseOpNames({"TANH"});
  ASSERT_TRUE(deny.ok());
  o.gpu_deny_ops = *deny;
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(p.PlacementLine(), "placement: 4/5 nodes on GPU in 2 segments");
  EXPECT_EQ(p.nodes[1].reason, "TANH is in gpu_deny_ops");
}

TEST(Partition, UnknownDenyOpIsInvalidArgument) {
  auto deny = ParseOpNames({"CONV_2D", "NOT_AN_OP"});
  ASSERT_FALSE(deny.ok());
  EXPECT_EQ(deny.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(deny.status().message().find("'NOT_AN_OP'"), std::string::npos);
}

// x -RELU-> a -TANH-> b -GATHER-> c -EXP-> d -ADD-> y with TANH refused:
// segments {RELU} and {GATHER, EXP, ADD} once GATHER runs on the fake GPU.
TEST(Partition, SmallSegmentsGoToTheCpuBeforeTheSegmentLimit) {
  Graph g = Chain();
  FakeGpu gpu({OpType::kTanh});
  PartitionOptions o;
  o.gpu = &gpu;
  o.min_segment_nodes = 2;
  Partition p = PartitionGraph(g, o);
  EXPECT_EQ(p.PlacementLine(), "placement: 3/5 nodes on GPU in 1 segments");
  EXPECT_EQ(p.nodes[0].reason, "min_nodes_per_partition=2");
  EXPECT_EQ(p.nodes[0].segment, -1);
  ASSERT_EQ(p.segments.size(), 1u);
  EXPECT_EQ(p.segments[0].nodes, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(p.nodes[2].segment, 0);

  o.min_segment_nodes = 4;  // no segment is big enough
  p = PartitionGraph(g, o);
  EXPECT_EQ(p.PlacementLine(), "placement: 0/5 nodes on GPU in 0 segments");
  EXPECT_EQ(p.nodes[4].reason, "min_nodes_per_partition=4");

  o.min_segment_nodes = 1;  // 0 and 1 keep every segment
  EXPECT_EQ(PartitionGraph(g, o).PlacementLine(), "placement: 4/5 nodes on GPU in 2 segments");
  o.min_segment_nodes = 2;
  o.max_segments = 1;  // the small segment is gone first, so the big one stays
  EXPECT_EQ(PartitionGraph(g, o).PlacementLine(), "placement: 3/5 nodes on GPU in 1 segments");
}

}  // namespace
}  // namespace gld
