// The issue plan (gl/issue_plan.h): which dispatches set their program,
// which bindings change, where memory barriers go; worked out on plans
// without GL. Then GL runs that depend on it: programs shared between
// segments with their own uniforms, and the host cost a segment records.
#include <gtest/gtest.h>

#include "gl/issue_plan.h"
#include "gl/segment_plan.h"
#include "gl_test_util.h"
#include "partition/partition.h"

namespace gld::testing {
namespace {

using gl::PlannedBinding;
using gl::PlannedDispatch;

PlannedBinding Arena(uint32_t point, uint64_t offset, uint64_t size) {
  PlannedBinding b;
  b.point = point;
  b.kind = PlannedBinding::kArena;
  b.offset = offset;
  b.size = size;
  return b;
}

PlannedBinding Whole(uint32_t point, PlannedBinding::Kind kind, int index) {
  PlannedBinding b;
  b.point = point;
  b.kind = kind;
  b.index = index;
  return b;
}

// A dispatch writing binding 0 and reading the others, with `source` naming
// its program.
PlannedDispatch Writes0(const std::string& name, std::vector<PlannedBinding> bindings) {
  PlannedDispatch d;
  d.source = "// " + name + "\nlayout(std430, binding = 0) writeonly restrict buffer Output { vec4 data[]; } o;\n";
  for (size_t k = 1; k < bindings.size(); ++k) {
    d.source += "layout(std430, binding = " + std::to_string(k) + ") readonly restrict buffer In" +
                std::to_string(k) + " { vec4 data[]; } i" + std::to_string(k) + ";\n";
  }
  d.bindings = std::move(bindings);
  return d;
}

TEST(IssuePlanTest, WrittenBindingPointsReadTheDeclarations) {
  const std::string source =
      "layout(std430, binding = 0) writeonly restrict buffer Output { vec4 data[]; } o;\n"
      "layout(std430, binding = 1) readonly restrict buffer Input { vec4 data[]; } i;\n"
      "layout(std430, binding = 2) restrict buffer Both { vec4 data[]; } b;\n"
      "#define OPERAND(b, block, inst) layout(std430, binding = b) readonly restrict buffer block { vec4 d[]; } inst;\n";
  EXPECT_EQ(gl::WrittenBindingPoints(source), (std::set<uint32_t>{0, 2}));
  // A writable block whose point is a macro: every point may be written.
  EXPECT_EQ(gl::WrittenBindingPoints("layout(std430, binding = P) buffer X { vec4 d[]; } x;\n").size(), 32u);
}

TEST(IssuePlanTest, BarriersOnlyWhereAnEarlierDispatchWroteOrRead) {
  gl::SegmentPlan plan;
  const PlannedBinding staging = Whole(1, PlannedBinding::kStaging, 0);
  const PlannedBinding weights = Whole(2, PlannedBinding::kOpConstant, 0);
  plan.dispatches.push_back(Writes0("upload", {Arena(0, 0, 64), staging}));             // A: writes x
  plan.dispatches.push_back(Writes0("op", {Arena(0, 64, 64), Arena(1, 0, 64), weights}));   // B: x -> y
  plan.dispatches.push_back(Writes0("op", {Arena(0, 128, 64), Arena(1, 0, 64), weights}));  // C: x -> z
  plan.dispatches.push_back(Writes0("op", {Arena(0, 0, 64), Arena(1, 64, 64), weights}));   // D: y -> x
  gl::PlanIssue(&plan);
  const auto& d = plan.dispatches;
  // The first dispatch of a run: program, every binding, a barrier.
  EXPECT_TRUE(d[0].use_program);
  EXPECT_EQ(d[0].rebind, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(d[0].barrier_before);
  // B reads what A wrote.
  EXPECT_TRUE(d[1].barrier_before);
  EXPECT_TRUE(d[1].use_program);
  EXPECT_EQ(d[1].rebind, (std::vector<uint32_t>{0, 1, 2}));
  // C reads x too (made visible by B's barrier) and writes z, which nothing
  // since that barrier touched: no barrier; same program; only binding 0
  // changes.
  EXPECT_FALSE(d[2].barrier_before);
  EXPECT_FALSE(d[2].use_program);
  EXPECT_EQ(d[2].rebind, (std::vector<uint32_t>{0}));
  // D overwrites x, which C read since the last barrier, and reads y, which
  // B wrote: a barrier.
  EXPECT_TRUE(d[3].barrier_before);
  EXPECT_EQ(d[3].rebind, (std::vector<uint32_t>{0, 1}));
}

TEST(IssuePlanTest, OverlapIsByRangeWithinTheArenaAndByBuffer) {
  EXPECT_TRUE(gl::Overlaps(Arena(0, 0, 64), Arena(3, 32, 64)));
  EXPECT_FALSE(gl::Overlaps(Arena(0, 0, 64), Arena(0, 64, 64)));
  EXPECT_FALSE(gl::Overlaps(Arena(0, 0, 64), Whole(0, PlannedBinding::kStaging, 0)));
  EXPECT_TRUE(gl::Overlaps(Whole(0, PlannedBinding::kStaging, 1), Whole(2, PlannedBinding::kStaging, 1)));
  EXPECT_FALSE(gl::Overlaps(Whole(0, PlannedBinding::kStaging, 1), Whole(0, PlannedBinding::kStaging, 2)));
  EXPECT_TRUE(gl::SameBufferRange(Arena(0, 16, 32), Arena(5, 16, 32)));
  EXPECT_FALSE(gl::SameBufferRange(Arena(0, 16, 32), Arena(0, 16, 48)));
}

// Two parallel branches read one tensor: on a real plan, the second branch
// needs no barrier of its own, while each dispatch that reads its
// predecessor's output has one.
TEST(IssuePlanTest, ParallelBranchesShareOneBarrier) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 4});
  int a = t.Tensor(), b = t.Tensor(), sum = t.Tensor();
  t.Node(OpType::kSquare, {x}, {a});
  t.Node(OpType::kAbs, {x}, {b});
  t.Node(OpType::kAdd, {a, b}, {sum}, BinaryAttributes{});
  t.Output(sum);
  ASSERT_TRUE(t.RunCpu().ok());
  gl::SegmentPlanOptions options;
  options.fuse_elementwise = false;
  auto plan = gl::PlanSegment(t.graph, SegmentOf(t.graph, {0, 1, 2}), Precision::kFp32, gl::MinimumGlLimits(),
                              options);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_EQ(plan->dispatches.size(), 5u);  // upload, square, abs, add, download
  const auto& d = plan->dispatches;
  EXPECT_TRUE(d[0].barrier_before);
  EXPECT_TRUE(d[1].barrier_before);   // reads the upload's output
  EXPECT_FALSE(d[2].barrier_before);  // reads it too, writes its own tensor
  EXPECT_TRUE(d[3].barrier_before);   // reads both branches
  EXPECT_TRUE(d[4].barrier_before);   // reads the sum
}

// Two segments whose convolutions share one program with different uniforms
// (spatial sizes), run in turns: each run sets its uniforms again when the
// other segment set its own, so results stay those of the segment's own run.
TEST(IssuePlanTest, SegmentsSharingAProgramKeepTheirOwnUniforms) {
  GLD_REQUIRE_GL(env);
  auto make = [](GlOpTest& t, int size) {
    int x = t.Input({1, size, size, 8});
    t.Output(t.Tensor());
    t.Node(OpType::kConv2d, {x, t.Const({8, 1, 1, 8}), t.Const({8})}, {t.graph.outputs[0]},
           Conv2dAttributes{Padding::kSame});
  };
  GlOpTest small(5), large(6);
  make(small, 3);
  make(large, 7);
  ASSERT_TRUE(small.RunCpu().ok());
  ASSERT_TRUE(large.RunCpu().ok());
  small.ExpectGpuMatchesCpu(*env, Precision::kFp32, "small conv");
  const int compiled = env->programs().compiled();
  large.ExpectGpuMatchesCpu(*env, Precision::kFp32, "large conv");
  EXPECT_EQ(env->programs().compiled(), compiled) << "the second segment should reuse the first's programs";
  for (int round = 0; round < 3; ++round) {
    for (GlOpTest* t : {&small, &large}) {
      const int side = t == &small ? 3 : 7;
      std::vector<float> in = RandomFloats(static_cast<size_t>(side * side * 8), 50 + round, -1, 1);
      std::vector<float> first(in.size()), again(in.size());
      ASSERT_TRUE(t->segment->Run({{in.data(), in.size() * 4}}, {{first.data(), first.size() * 4}}).ok());
      GlOpTest* other = t == &small ? &large : &small;
      const int other_side = other == &small ? 3 : 7;
      std::vector<float> o_in(static_cast<size_t>(other_side * other_side * 8), 0.5f), o_out(o_in.size());
      ASSERT_TRUE(other->segment->Run({{o_in.data(), o_in.size() * 4}}, {{o_out.data(), o_out.size() * 4}}).ok());
      ASSERT_TRUE(t->segment->Run({{in.data(), in.size() * 4}}, {{again.data(), again.size() * 4}}).ok());
      EXPECT_EQ(first, again) << "round " << round << ", side " << side;
    }
  }
}

TEST(IssuePlanTest, SegmentRecordsItsIssueCost) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  int x = t.Input({1, 3, 3, 6});
  t.Op(OpType::kSquare, {x});
  ASSERT_TRUE(t.RunCpu().ok());
  ASSERT_TRUE(t.RunGpu(*env, Precision::kFp32).ok());
  const gl::IssueCost& cost = t.segment->issue_cost();
  EXPECT_GE(cost.runs, 1);
  EXPECT_EQ(cost.dispatches, cost.runs * t.segment->dispatches());
  EXPECT_GT(cost.wall_ns, 0u);
  EXPECT_LE(cost.dispatch_call_cpu_ns, cost.cpu_ns);
  t.segment->ResetProfile();
  EXPECT_EQ(t.segment->issue_cost().runs, 0);
  EXPECT_EQ(t.segment->issue_cost().wall_ns, 0u);
}

}  // namespace
}  // namespace gld::testing
