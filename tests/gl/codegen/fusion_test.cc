// Elementwise fusion into epilogues: which nodes fuse, which must not, and
// that fused segments compute what the CPU kernels (and unfused segments) do.
#include <gtest/gtest.h>

#include "gl/codegen/fusion.h"
#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

// Runs `t` unfused and fused; both must match the CPU; returns the fused
// segment's dispatch count minus the unfused one's.
int CompareFusedAndUnfused(gl::GlDevice& env, GlOpTest& t, Precision p, const std::string& what) {
  t.ExpectGpuMatchesCpu(env, p, what + " (fused)");
  const int fused = t.segment->dispatches();
  std::vector<size_t> nodes(t.graph.nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
  gl::GlSegmentOptions options;
  options.fuse_elementwise = false;
  auto unfused = gl::GlSegment::Create(env, t.graph, nodes, p, options);
  EXPECT_TRUE(unfused.ok()) << unfused.status().ToString();
  if (!unfused.ok()) return 0;
  return fused - (*unfused)->dispatches();
}

std::vector<size_t> FusedInto(const gl::GlSegment& s, const std::string& template_name) {
  for (const gl::DispatchInfo& d : s.dispatch_info()) {
    if (d.template_name == template_name) return d.fused_nodes;
  }
  return {};
}

TEST(FusionTest, ConvAddReluBecomesOneDispatch) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(1);
    int x = t.Input({1, 6, 7, 5});
    int residual = t.Input({1, 6, 7, 6});
    int conv = t.Tensor();
    t.Node(OpType::kConv2d, {x, t.Const({6, 3, 3, 5}), t.Const({6})}, {conv}, Conv2dAttributes{Padding::kSame});
    int sum = t.Tensor();
    t.Node(OpType::kAdd, {residual, conv}, {sum}, BinaryAttributes{});  // fused tensor second
    t.Output(t.Op(OpType::kRelu, {sum}));
    EXPECT_EQ(CompareFusedAndUnfused(*env, t, p, "conv + add + relu"), -2);
    EXPECT_EQ(FusedInto(*t.segment, "conv2d.comp"), (std::vector<size_t>{1, 2}));
    EXPECT_EQ(t.segment->dispatch_info()[2].label,
              "conv2d.comp for node 0 (CONV_2D) + node 1 (ADD) + node 2 (RELU)");
  }
}

// A grouped CONV_2D (RegNet's block: 3x3 in groups, residual ADD, RELU) takes
// the same epilogue, in grouped_conv.comp.
TEST(FusionTest, GroupedConvAddReluBecomesOneDispatch) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(2);
    int x = t.Input({1, 6, 5, 16});
    int residual = t.Input({1, 6, 5, 16});
    int conv = t.Tensor();
    t.Node(OpType::kConv2d, {x, t.Const({16, 3, 3, 8}), t.Const({16})}, {conv}, Conv2dAttributes{Padding::kSame});
    int sum = t.Tensor();
    t.Node(OpType::kAdd, {conv, residual}, {sum}, BinaryAttributes{});
    t.Output(t.Op(OpType::kRelu, {sum}));
    EXPECT_EQ(CompareFusedAndUnfused(*env, t, p, "grouped conv + add + relu"), -2);
    EXPECT_EQ(FusedInto(*t.segment, "grouped_conv.comp"), (std::vector<size_t>{1, 2}));
  }
}

TEST(FusionTest, OperandOrderActivationsAndParameters) {
  GLD_REQUIRE_GL(env);
  struct Case {
    OpType op;
    bool fused_first;  // the fused tensor is the op's first input
    Shape operand;
    Attributes attrs;
  };
  const Case cases[] = {
      {OpType::kSub, false, {1, 4, 5, 7}, BinaryAttributes{}},          // other - fused
      {OpType::kSub, true, {7}, BinaryAttributes{Activation::kRelu6}},  // fused - vector, RELU6
      {OpType::kDiv, true, {}, BinaryAttributes{}},                     // fused / scalar
      {OpType::kPow, false, {1, 4, 5, 7}, BinaryAttributes{}},          // other ^ fused
      {OpType::kPrelu, true, {1, 1, 7}, {}},                            // per-channel alpha
      {OpType::kSquaredDifference, false, {1, 1, 5, 1}, {}},            // broadcast over H and C
      {OpType::kLeakyRelu, true, {}, LeakyReluAttributes{0.3f}},
      {OpType::kHardSwish, true, {}, {}},
      {OpType::kLogistic, true, {}, {}},
      {OpType::kGelu, true, {}, GeluAttributes{true}},
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 10;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input({1, 4, 5, 7});
      int pooled = t.Tensor();
      Pool2dAttributes pool;
      pool.padding = Padding::kSame;
      pool.filter_h = pool.filter_w = 3;
      t.Node(OpType::kAveragePool2d, {x}, {pooled}, pool);
      const bool binary = c.op != OpType::kLeakyRelu && c.op != OpType::kHardSwish && c.op != OpType::kLogistic &&
                          c.op != OpType::kGelu;
      std::vector<int> ins = {pooled};
      if (binary) {
        // POW: a positive base, whichever side it is on.
        int other = c.op == OpType::kPow ? t.Input(c.operand, 0.5f, 2.f)
                    : c.op == OpType::kDiv ? t.ConstValues({}, {1.7f})
                                           : t.Const(c.operand, 0.2f, 1.f);
        ins = c.fused_first ? std::vector<int>{pooled, other} : std::vector<int>{other, pooled};
      }
      t.Output(t.Op(c.op, ins, c.attrs));
      const std::string what = std::string(OpTypeName(c.op)) + (c.fused_first ? " (fused first)" : " (fused second)");
      EXPECT_EQ(CompareFusedAndUnfused(*env, t, p, what), -1) << what;
    }
  }
}

TEST(FusionTest, ChainsStopAtTheEpilogueLimit) {
  GLD_REQUIRE_GL(env);
  GlOpTest t(3);
  int x = t.Input({1, 5, 5, 8});
  int cur = t.Tensor();
  t.Node(OpType::kDepthwiseConv2d, {x, t.Const({1, 3, 3, 8}), t.Const({8})}, {cur}, DepthwiseConv2dAttributes{Padding::kSame});
  const OpType chain[] = {OpType::kRelu6, OpType::kNeg, OpType::kAbs, OpType::kSquare, OpType::kTanh,
                          OpType::kNeg,   OpType::kAbs, OpType::kTanh, OpType::kNeg,   OpType::kExp};
  static_assert(sizeof(chain) / sizeof(chain[0]) == gl::kMaxEpilogueOps + 2, "two past the limit");
  for (OpType op : chain) {
    int next = t.Tensor();
    t.Node(op, {cur}, {next});
    cur = next;
  }
  t.Output(cur);
  // depthwise + 8 fused, then node 9 (NEG) runs alone with node 10 (EXP) fused.
  EXPECT_EQ(CompareFusedAndUnfused(*env, t, Precision::kFp32, "chain of ten"), -9);
  EXPECT_EQ(FusedInto(*t.segment, "depthwise_conv.comp"), (std::vector<size_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(FusedInto(*t.segment, "elementwise.comp"), (std::vector<size_t>{10}));
  ASSERT_EQ(t.segment->unfused_elementwise().size(), 1u);
  EXPECT_EQ(t.segment->unfused_elementwise()[0],
            "node 9 (NEG): via '" + t.graph.tensors[static_cast<size_t>(t.graph.nodes[9].inputs[0])].name +
                "': node 0 (DEPTHWISE_CONV_2D)'s epilogue is full (8 ops)");
}

TEST(FusionTest, ChannelPadOperandIsReadInPlace) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    for (bool pad_first : {true, false}) {
      // conv(x) [1,5,6,8] + PAD(y [1,5,6,5], 3 channels after): the ADD runs
      // in the conv's epilogue reading y, and the PAD's dispatch goes.
      GlOpTest t(20);
      int x = t.Input({1, 5, 6, 3});
      int y = t.Input({1, 5, 6, 5});
      int pads = t.ConstInts<int32_t>({4, 2}, {0, 0, 0, 0, 0, 0, 0, 3});
      int padded = t.Tensor(), conv = t.Tensor();
      auto add_pad = [&] { t.Node(OpType::kPad, {y, pads}, {padded}); };
      if (pad_first) add_pad();
      t.Node(OpType::kConv2d, {x, t.Const({8, 3, 3, 3}), t.Const({8})}, {conv}, Conv2dAttributes{Padding::kSame});
      if (!pad_first) add_pad();
      t.Output(t.Op(OpType::kAdd, {conv, padded}, BinaryAttributes{Activation::kRelu}));
      const std::string what = std::string("channel pad ") + (pad_first ? "first" : "second");
      EXPECT_EQ(CompareFusedAndUnfused(*env, t, p, what), -2) << what;
      const size_t pad_node = pad_first ? 0 : 1, conv_node = pad_first ? 1 : 0;
      EXPECT_EQ(FusedInto(*t.segment, "conv2d.comp"), (std::vector<size_t>{2, pad_node})) << what;
      for (const gl::DispatchInfo& d : t.segment->dispatch_info()) {
        EXPECT_NE(d.template_name, "pad.comp") << what;
        if (d.template_name == "conv2d.comp") {
          EXPECT_EQ(d.node, static_cast<int>(conv_node)) << what;
        }
      }
    }
  }
}

TEST(FusionTest, OneChannelPadOperandKeepsItsDispatch) {
  GLD_REQUIRE_GL(env);
  // A one-channel input would read as a broadcast; the PAD stays a node and
  // the ADD still joins the conv.
  GlOpTest t(21);
  int x = t.Input({1, 4, 4, 3});
  int y = t.Input({1, 4, 4, 1});
  int padded = t.Tensor(), conv = t.Tensor();
  t.Node(OpType::kPad, {y, t.ConstInts<int32_t>({4, 2}, {0, 0, 0, 0, 0, 0, 0, 3})}, {padded});
  t.Node(OpType::kConv2d, {x, t.Const({4, 1, 1, 3}), t.Const({4})}, {conv}, Conv2dAttributes{});
  t.Output(t.Op(OpType::kAdd, {conv, padded}, BinaryAttributes{}));
  EXPECT_EQ(CompareFusedAndUnfused(*env, t, Precision::kFp32, "one-channel pad"), -1);
  EXPECT_EQ(FusedInto(*t.segment, "conv2d.comp"), (std::vector<size_t>{2}));
}

TEST(FusionTest, ConcatenationOffTheChannelsIsOneDispatchWithAnEpilogue) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    for (int inputs : {2, 3, 4}) {
      // CONCATENATION along H of `inputs` tensors, then + a residual: two or
      // three inputs run as one concat_axis.comp dispatch with the ADD in its
      // epilogue; four run one concat.comp dispatch each.
      GlOpTest t(30 + static_cast<uint32_t>(inputs));
      std::vector<int> ins;
      int rows = 0;
      for (int i = 0; i < inputs; ++i) {
        ins.push_back(t.Input({1, 2 + i, 3, 6}));
        rows += 2 + i;
      }
      int cat = t.Tensor();
      t.Node(OpType::kConcatenation, ins, {cat}, ConcatenationAttributes{1, Activation::kNone});
      t.Output(t.Op(OpType::kAdd, {cat, t.Input({1, rows, 3, 6})}, BinaryAttributes{Activation::kRelu6}));
      const std::string what = "concat of " + std::to_string(inputs);
      EXPECT_EQ(CompareFusedAndUnfused(*env, t, p, what), inputs <= 3 ? -1 : 0) << what;
      int concat_dispatches = 0;
      for (const gl::DispatchInfo& d : t.segment->dispatch_info()) {
        if (d.node == 0) ++concat_dispatches;
      }
      EXPECT_EQ(concat_dispatches, inputs <= 3 ? 1 : inputs) << what;
      EXPECT_EQ(FusedInto(*t.segment, "concat_axis.comp"), inputs <= 3 ? std::vector<size_t>{1} : std::vector<size_t>{})
          << what;
    }
  }
}

TEST(FusionTest, WhatMustNotFuse) {
  GLD_REQUIRE_GL(env);
  GlOpTest t(4);
  int x = t.Input({1, 4, 4, 4});
  int w = t.Const({4, 1, 1, 4});
  // a) read twice: conv -> {relu, abs}
  int c1 = t.Tensor();
  t.Node(OpType::kConv2d, {x, w, kNoTensor}, {c1}, Conv2dAttributes{});
  int r1 = t.Output(t.Tensor());
  t.Node(OpType::kRelu, {c1}, {r1});
  int a1 = t.Output(t.Tensor());
  t.Node(OpType::kAbs, {c1}, {a1});
  // b) an exported intermediate: conv -> relu, the conv output is a graph output
  int c2 = t.Output(t.Tensor());
  t.Node(OpType::kConv2d, {x, w, kNoTensor}, {c2}, Conv2dAttributes{});
  t.Output(t.Op(OpType::kRelu, {c2}));
  // c) broadcasting the fused tensor: [1,1,1,4] + [1,4,4,4]
  int m = t.Tensor();
  t.Node(OpType::kMean, {x, t.ConstInts<int32_t>({2}, {1, 2})}, {m}, ReduceAttributes{true});
  t.Output(t.Op(OpType::kAdd, {m, x}, BinaryAttributes{}));
  // d) the operand is made after the producer: conv(x) -> c3; neg(x) -> n; add(c3, n)
  int c3 = t.Tensor();
  t.Node(OpType::kConv2d, {x, w, kNoTensor}, {c3}, Conv2dAttributes{});
  int n = t.Tensor();
  t.Node(OpType::kNeg, {x}, {n});
  t.Output(t.Op(OpType::kAdd, {c3, n}, BinaryAttributes{}));
  // e) both operands are the fused tensor: mul(c4, c4)
  int c4 = t.Tensor();
  t.Node(OpType::kConv2d, {x, w, kNoTensor}, {c4}, Conv2dAttributes{});
  t.Output(t.Op(OpType::kMul, {c4, c4}, BinaryAttributes{}));
  // Only (d) fuses: the ADD joins the conv (elementwise producers such as
  // NEG come second), whose dispatch moves after NEG's.
  EXPECT_EQ(CompareFusedAndUnfused(*env, t, Precision::kFp32, "no-fusion cases"), -1);
  std::vector<int> order;
  for (const gl::DispatchInfo& d : t.segment->dispatch_info()) {
    if (d.node >= 0) order.push_back(d.node);
    if (d.node == 7) {
      EXPECT_EQ(d.fused_nodes, std::vector<size_t>{9}) << d.label;
    } else {
      EXPECT_TRUE(d.fused_nodes.empty()) << d.label;
    }
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 8, 7, 10, 11}));
  // Each elementwise node left with a dispatch says why.
  const std::vector<std::string>& unfused = t.segment->unfused_elementwise();
  auto reason = [&](const std::string& label) {
    for (const std::string& line : unfused) {
      if (line.rfind(label + ": ", 0) == 0) return line.substr(label.size() + 2);
    }
    return std::string("(not listed)");
  };
  const std::string c1_name = "'" + t.graph.tensors[static_cast<size_t>(c1)].name + "'";
  const std::string c2_name = "'" + t.graph.tensors[static_cast<size_t>(c2)].name + "'";
  const std::string c4_name = "'" + t.graph.tensors[static_cast<size_t>(c4)].name + "'";
  const std::string m_name = "'" + t.graph.tensors[static_cast<size_t>(m)].name + "'";
  EXPECT_EQ(reason("node 1 (RELU)"), "via " + c1_name + ": " + c1_name + " has 2 readers");
  EXPECT_EQ(reason("node 2 (ABS)"), "via " + c1_name + ": " + c1_name + " has 2 readers");
  EXPECT_EQ(reason("node 4 (RELU)"), "via " + c2_name + ": " + c2_name + " must exist (a segment output)");
  EXPECT_EQ(reason("node 6 (ADD)").rfind("via " + m_name + ": ADD: output [1, 4, 4, 4] is not the fused input", 0),
            0u)
      << reason("node 6 (ADD)");
  EXPECT_NE(reason("node 6 (ADD)").find("comes from outside this GPU segment"), std::string::npos);
  EXPECT_EQ(reason("node 11 (MUL)").rfind("via " + c4_name + ": ", 0), 0u) << reason("node 11 (MUL)");
  EXPECT_EQ(unfused.size(), 6u) << "RELU, ABS, RELU, ADD, NEG, MUL";
}

TEST(FusionTest, RespectsTheStorageBlockLimit) {
  // No GL needed: fusion works on dispatch descriptions.
  GlOpTest t(5);
  int x = t.Input({1, 4, 4, 4});
  int c = t.Tensor();
  t.Node(OpType::kConv2d, {x, t.Const({4, 1, 1, 4}), t.Const({4})}, {c}, Conv2dAttributes{});
  int r = t.Tensor();
  t.Node(OpType::kRelu, {c}, {r});
  t.Output(t.Op(OpType::kAdd, {r, t.Input({1, 4, 4, 4})}, BinaryAttributes{}));
  ASSERT_TRUE(InferShapes(t.graph).ok());
  auto build = [&] {
    std::vector<gl::NodeDispatches> nodes;
    for (size_t i = 0; i < t.graph.nodes.size(); ++i) {
      gl::OpBuildContext ctx(t.graph, i, Precision::kFp32, /*dry_run=*/true);
      gl::NodeDispatches nd;
      nd.node = i;
      EXPECT_TRUE(gl::BuildNode(ctx, &nd.dispatches).ok());
      nodes.push_back(std::move(nd));
    }
    return nodes;
  };
  const std::set<int> keep(t.graph.outputs.begin(), t.graph.outputs.end());
  // Conv binds 0..3; the ADD's operand would be a fifth storage block.
  std::vector<gl::NodeDispatches> four = build();
  std::vector<std::string> log;
  EXPECT_EQ(gl::FuseElementwiseEpilogues(t.graph, four, keep, Precision::kFp32, 4, &log), 1);
  EXPECT_EQ(four[0].fused_nodes, std::vector<size_t>{1});
  EXPECT_FALSE(four[2].absorbed);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0], "node 1 (RELU) fused into node 0 (CONV_2D) (conv2d.comp)");
  std::vector<gl::NodeDispatches> eight = build();
  EXPECT_EQ(gl::FuseElementwiseEpilogues(t.graph, eight, keep, Precision::kFp32, 8, nullptr), 2);
  EXPECT_EQ(eight[0].fused_nodes, (std::vector<size_t>{1, 2}));
  EXPECT_TRUE(eight[2].absorbed);
  EXPECT_TRUE(eight[2].dispatches.empty());
}

}  // namespace
}  // namespace gld::testing
