// GlSegment as a unit: multi-node chains, which tensors cross its edges,
// errors for bad host buffers, repeated runs, program sharing, timing.
#include <gtest/gtest.h>

#include "gl/cache/program_cache.h"
#include "gl/segment_plan.h"
#include "gl_test_util.h"
#include "partition/partition.h"

namespace gld::testing {
namespace {

// conv -> add(const) -> relu -> max pool -> concat(with the conv output)
// -> reshape: a small network with an intermediate read twice.
struct Chain {
  GlOpTest t{11};
  int x, conv, added, relu, pooled, cat, out;
};

void BuildChain(Chain& c) {
  GlOpTest& t = c.t;
  c.x = t.Input({1, 8, 8, 3});
  int w = t.Const({5, 3, 3, 3});
  int b = t.Const({5});
  c.conv = t.Tensor();
  t.Node(OpType::kConv2d, {c.x, w, b}, {c.conv}, Conv2dAttributes{Padding::kSame});
  c.added = t.Tensor();
  t.Node(OpType::kAdd, {c.conv, t.Const({5})}, {c.added}, BinaryAttributes{});
  c.relu = t.Tensor();
  t.Node(OpType::kRelu, {c.added}, {c.relu});
  c.pooled = t.Tensor();
  Pool2dAttributes pool;
  pool.padding = Padding::kSame;
  pool.filter_h = pool.filter_w = 2;
  pool.stride_h = pool.stride_w = 1;
  t.Node(OpType::kMaxPool2d, {c.relu}, {c.pooled}, pool);
  c.cat = t.Tensor();
  t.Node(OpType::kConcatenation, {c.pooled, c.conv}, {c.cat}, ConcatenationAttributes{3, Activation::kNone});
  c.out = t.Output(t.Tensor());
  t.Node(OpType::kReshape, {c.cat, t.ConstInts<int32_t>({3}, {1, 64, 10})}, {c.out}, ReshapeAttributes{});
}

TEST(SegmentTest, ChainMatchesCpuAndKeepsIntermediatesOnTheGpu) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    Chain c;
    BuildChain(c);
    c.t.ExpectGpuMatchesCpu(*env, p, "chain");
    const gl::GlSegment& s = *c.t.segment;
    EXPECT_EQ(s.input_tensors(), std::vector<int>{c.x});
    EXPECT_EQ(s.output_tensors(), std::vector<int>{c.out});
    // 1 upload conversion + conv, add (+ relu, fused: the add's output has no
    // other reader), pool, 2 concat inputs, reshape + 1 download. The conv's
    // output is read twice, so the add stays a dispatch of its own.
    EXPECT_EQ(s.dispatches(), 1 + 6 + 1);
    ASSERT_EQ(s.dispatch_info().size(), 8u);
    EXPECT_EQ(s.dispatch_info()[2].template_name, "elementwise.comp");
    EXPECT_EQ(s.dispatch_info()[2].fused_nodes, std::vector<size_t>{2});
    EXPECT_EQ(s.dispatch_info().front().template_name, "convert_to_phwc4.comp");
    EXPECT_EQ(s.dispatch_info()[1].template_name, "conv2d.comp");
    EXPECT_EQ(s.dispatch_info().back().template_name, "convert_from_phwc4.comp");
    // Six activation tensors of 8x8 (at most 3 slices; the add's output was
    // fused away), weights, staging.
    EXPECT_GT(s.gpu_bytes(), 6u * 64 * gl::Vec4Bytes(p));
    EXPECT_LT(s.gpu_bytes(), 64u * 1024);
  }
}

// The plan needs no GL context: made at the GLES 3.1 minimums, it fixes the
// dispatches, edges, constants and arena that GlSegment::Create makes.
TEST(SegmentPlanTest, PlansTheChainWithoutAContext) {
  Chain c;
  BuildChain(c);
  ASSERT_TRUE(c.t.RunCpu().ok());
  const Segment segment = SegmentOf(c.t.graph, {0, 1, 2, 3, 4, 5});
  auto plan = gl::PlanSegment(c.t.graph, segment, Precision::kFp16, gl::MinimumGlLimits());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->label, "GL segment (nodes 0-5)");
  EXPECT_EQ(plan->inputs, std::vector<int>{c.x});
  EXPECT_EQ(plan->outputs, std::vector<int>{c.out});
  ASSERT_EQ(plan->edges.size(), 2u);
  EXPECT_TRUE(plan->edges[0].to_gpu);
  EXPECT_EQ(plan->edges[0].host_bytes, 8u * 8 * 3 * 4);
  EXPECT_FALSE(plan->edges[1].to_gpu);
  ASSERT_EQ(plan->dispatches.size(), 8u);
  EXPECT_EQ(plan->dispatches[0].label, "convert_to_phwc4.comp for tensor '" + c.t.graph.tensors[c.x].name + "'");
  EXPECT_EQ(plan->dispatches[2].fused_nodes, std::vector<size_t>{2});
  EXPECT_EQ(plan->dispatches.back().template_name, "convert_from_phwc4.comp");
  for (const gl::PlannedDispatch& d : plan->dispatches) {
    EXPECT_NE(d.source.find("#version 310 es"), std::string::npos) << d.label;
    for (const gl::PlannedBinding& b : d.bindings) {
      if (b.kind == gl::PlannedBinding::kArena) {
        EXPECT_LE(b.offset + b.size, plan->arena_bytes) << d.label;
      }
    }
  }
  // Conv weights and bias; the ADD's constant operand as a tensor.
  EXPECT_EQ(plan->op_constants.size(), 2u);
  EXPECT_EQ(plan->constant_tensors.size(), 1u);
  // Tensors alive at the same dispatch do not share bytes.
  for (const gl::ArenaSlot& a : plan->arena) {
    for (const gl::ArenaSlot& b : plan->arena) {
      if (a.tensor == b.tensor || a.last_dispatch < b.first_dispatch || b.last_dispatch < a.first_dispatch) continue;
      EXPECT_TRUE(a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset) << a.tensor << " " << b.tensor;
    }
  }
  EXPECT_LE(plan->tensor_bytes_lower_bound, plan->arena_bytes);
  EXPECT_LE(plan->arena_bytes, plan->tensor_bytes_naive + plan->arena.size() * 256);

  auto empty = gl::PlanSegment(c.t.graph, Segment{}, Precision::kFp32, gl::MinimumGlLimits());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
}

TEST(SegmentTest, ExportsTensorsReadOutsideTheSegment) {
  GLD_REQUIRE_GL(env);
  Chain c;
  BuildChain(c);
  ASSERT_TRUE(c.t.RunCpu().ok());
  // Only the first three nodes on the GPU: the relu output is read by the
  // pool (outside) and the conv output by the concat (outside).
  auto seg = gl::GlSegment::Create(*env, c.t.graph, {0, 1, 2}, Precision::kFp32);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ((*seg)->output_tensors(), (std::vector<int>{c.conv, c.relu}));
  std::vector<float> conv(static_cast<size_t>(8 * 8 * 5)), relu(conv.size());
  const auto& in = c.t.HostBytes(c.x);
  Status s = (*seg)->Run({{in.data(), in.size()}}, {{conv.data(), conv.size() * 4}, {relu.data(), relu.size() * 4}});
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<float> cpu_conv = c.t.CpuFloats(c.conv), cpu_relu = c.t.CpuFloats(c.relu);
  for (size_t i = 0; i < conv.size(); ++i) {
    EXPECT_NEAR(conv[i], cpu_conv[i], 1e-4f * 4);
    EXPECT_NEAR(relu[i], cpu_relu[i], 1e-4f * 4);
  }
  // And an extra export on request.
  gl::GlSegmentOptions options;
  options.extra_outputs = {c.added};
  auto seg2 = gl::GlSegment::Create(*env, c.t.graph, {0, 1, 2}, Precision::kFp32, options);
  ASSERT_TRUE(seg2.ok());
  EXPECT_EQ((*seg2)->output_tensors(), (std::vector<int>{c.conv, c.relu, c.added}));
  options.extra_outputs = {c.x};
  auto bad = gl::GlSegment::Create(*env, c.t.graph, {0, 1, 2}, Precision::kFp32, options);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(SegmentTest, RunChecksHostBuffers) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  int x = t.Input({1, 2, 3, 5});
  t.Op(OpType::kRelu, {x});
  ASSERT_TRUE(t.RunCpu().ok());
  ASSERT_TRUE(t.RunGpu(*env, Precision::kFp32).ok());
  gl::GlSegment& s = *t.segment;
  std::vector<float> in(30), out(30);
  EXPECT_EQ(s.Run({}, {{out.data(), 120}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Run({{in.data(), 116}}, {{out.data(), 120}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Run({{in.data(), 120}}, {{out.data(), 124}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Run({{nullptr, 120}}, {{out.data(), 120}}).code(), StatusCode::kInvalidArgument);
  Status bad = s.Run({{in.data(), 116}}, {{out.data(), 120}});
  EXPECT_NE(bad.message().find("116"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("120"), std::string::npos) << bad.message();
}

TEST(SegmentTest, RepeatedRunsSeeNewInputs) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  int x = t.Input({1, 3, 3, 6});
  t.Op(OpType::kSquare, {x});
  ASSERT_TRUE(t.RunCpu().ok());
  ASSERT_TRUE(t.RunGpu(*env, Precision::kFp16).ok());
  for (int round = 0; round < 4; ++round) {
    std::vector<float> in = RandomFloats(54, 1000 + round, -3, 3), out(54);
    ASSERT_TRUE(t.segment->Run({{in.data(), in.size() * 4}}, {{out.data(), out.size() * 4}}).ok());
    for (size_t i = 0; i < in.size(); ++i) EXPECT_NEAR(out[i], in[i] * in[i], 1e-2f * 9) << i;
  }
}

TEST(SegmentTest, NodesSharePrograms) {
  GLD_REQUIRE_GL(env);
  // Eight 1x1 convolutions of different shapes in one segment, compiled in
  // one batch: one conv program per workgroup shape, not one per node.
  GlOpTest t(3);
  int x = t.Input({1, 8, 8, 4});
  int cur = x;
  for (int i = 0; i < 8; ++i) {
    int next = t.Tensor();
    // >= 4 slices each: the same BLOCK, so the same program.
    const int out_c = 16 + 3 * i;
    t.Node(OpType::kConv2d, {cur, t.Const({out_c, 1, 1, i == 0 ? 4 : 16 + 3 * (i - 1)}), t.Const({out_c})}, {next},
           Conv2dAttributes{Padding::kSame});
    cur = next;
  }
  t.Output(cur);
  ASSERT_TRUE(t.RunCpu().ok());
  const int before = env->programs().compiled();
  t.ExpectGpuMatchesCpu(*env, Precision::kFp32, "eight 1x1 convolutions");
  EXPECT_EQ(t.segment->dispatches(), 10);
  // At most: the input conversion, the conv variant, the output conversion.
  EXPECT_LE(env->programs().compiled() - before, 3);
}

TEST(SegmentTest, TensorsShareMemoryByLifetime) {
  GLD_REQUIRE_GL(env);
  // A chain of ten 3x3 convolutions: at any dispatch only an input and an
  // output are live, so two ranges serve all eleven tensors.
  for (Precision p : BothPrecisions()) {
    GlOpTest t(8);
    int cur = t.Input({1, 12, 12, 8});
    for (int i = 0; i < 10; ++i) {
      int next = t.Tensor();
      t.Node(OpType::kConv2d, {cur, t.Const({8, 3, 3, 8}, -0.3f, 0.3f), t.Const({8})}, {next},
             Conv2dAttributes{Padding::kSame});
      cur = next;
    }
    t.Output(cur);
    t.ExpectGpuMatchesCpu(*env, p, "ten convolutions, shared memory");
    const gl::GlSegment& s = *t.segment;
    const uint64_t one = 12 * 12 * 2 * gl::Vec4Bytes(p);
    EXPECT_EQ(s.tensor_bytes_naive(), 11 * one);
    EXPECT_EQ(s.tensor_bytes_lower_bound(), 2 * one);
    EXPECT_GE(s.tensor_bytes_planned(), s.tensor_bytes_lower_bound());
    EXPECT_LE(s.tensor_bytes_planned(), 2 * one + 2 * 256);  // alignment slack
    // Without sharing: the same results from one range per tensor.
    std::vector<size_t> nodes(t.graph.nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
    gl::GlSegmentOptions options;
    options.share_memory = false;
    auto apart = gl::GlSegment::Create(*env, t.graph, nodes, p, options);
    ASSERT_TRUE(apart.ok()) << apart.status().ToString();
    EXPECT_GE((*apart)->tensor_bytes_planned(), (*apart)->tensor_bytes_naive());
    std::vector<float> a(12 * 12 * 8), b(a.size());
    const auto& in = t.HostBytes(t.graph.inputs[0]);
    ASSERT_TRUE(t.segment->Run({{in.data(), in.size()}}, {{a.data(), a.size() * 4}}).ok());
    ASSERT_TRUE((*apart)->Run({{in.data(), in.size()}}, {{b.data(), b.size() * 4}}).ok());
    EXPECT_EQ(a, b);
  }
}

TEST(SegmentTest, MeasuresGpuTime) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  int x = t.Input({1, 32, 32, 8});
  t.Op(OpType::kConv2d, {x, t.Const({8, 3, 3, 8}), t.Const({8})}, Conv2dAttributes{Padding::kSame});
  ASSERT_TRUE(InferShapes(t.graph).ok());
  gl::GlSegmentOptions options;
  options.measure_gpu_time = true;
  auto seg = gl::GlSegment::Create(*env, t.graph, {0}, Precision::kFp32, options);
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  std::vector<float> out(32 * 32 * 8);
  const auto& in = t.HostBytes(x);
  ASSERT_TRUE((*seg)->Run({{in.data(), in.size()}}, {{out.data(), out.size() * 4}}).ok());
  EXPECT_GT((*seg)->last_gpu_time_ns(), 0u);
}

TEST(SegmentTest, UnsupportedNodeFailsCreateWithItsLabel) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  int x = t.Input({1, 2, 2, 3});
  int y = t.Tensor({1, 2, 2}, DataType::kInt32);
  t.Node(OpType::kArgMax, {x, t.ConstInts<int32_t>({1}, {3})}, {y}, AxisAttributes{});
  auto seg = gl::GlSegment::Create(*env, t.graph, {0}, Precision::kFp32);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(seg.status().message().find("node 0 (ARG_MAX)"), std::string::npos) << seg.status().message();
  EXPECT_NE(seg.status().message().find("no GL kernel"), std::string::npos) << seg.status().message();
  auto empty = gl::GlSegment::Create(*env, t.graph, {}, Precision::kFp32);
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  auto out_of_range = gl::GlSegment::Create(*env, t.graph, {5}, Precision::kFp32);
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gld::testing
