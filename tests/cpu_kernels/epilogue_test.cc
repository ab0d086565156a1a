// CPU epilogues (cpu_kernels/ops/epilogue.h): chains of ADD/SUB/MUL/DIV, PRELU
// and GELU (exact and tanh, the GELU kernel's vector_math.h rows) run block by block against the same operations done one node at a
// time in scalar IEEE, over spans that start and end anywhere (block edges,
// PRELU's channel offset), with NaN, infinities and the fused clamps; and
// which nodes EpilogueStepFor takes.
#include "cpu_kernels/ops/epilogue.h"

#include <cmath>

#include "cpu_kernels/micro/vector_math/vector_math.h"
#include <limits>

#include "op_test_util.h"
#include "common/graph_builder.h"

namespace gld::testing {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

std::vector<float> WithSpecials(size_t n, uint32_t seed) {
  std::vector<float> v = RandomFloats(n, seed, -4.f, 4.f);
  const float specials[] = {kNan, kInf, -kInf, -0.f, 3e38f};
  for (size_t i = seed % 7; i < n; i += 97) v[i] = specials[i % 5];
  return v;
}

// One node at a time, as the nodes' own kernels compute it.
float Reference(const cpu::EpilogueStep& s, float x, float operand) {
  const float a = s.x_first ? x : operand, b = s.x_first ? operand : x;
  float r = 0.f;
  switch (s.kind) {
    case cpu::EpilogueKind::kAdd: r = a + b; break;
    case cpu::EpilogueKind::kSub: r = a - b; break;
    case cpu::EpilogueKind::kMul: r = a * b; break;
    case cpu::EpilogueKind::kDiv: r = a / b; break;
    case cpu::EpilogueKind::kPrelu: return x >= 0.f ? x : x * operand;
    case cpu::EpilogueKind::kGelu:
    case cpu::EpilogueKind::kGeluTanh:
      cpu::GeluRow(&x, &r, 1, s.kind == cpu::EpilogueKind::kGeluTanh);  // the GELU kernel, one value
      return r;
  }
  if (s.clamp) r = std::min(std::max(r, s.lo), s.hi);  // keeps a NaN, as TFLite's clamp does
  return r;
}

TEST(Epilogue, ChainsMatchTheNodesOneAtATime) {
  const int64_t channels = 24, rows = 130;  // 3120 values: three blocks and a tail
  const int64_t n = channels * rows;
  const std::vector<float> x = WithSpecials(static_cast<size_t>(n), 1);
  const std::vector<float> other = WithSpecials(static_cast<size_t>(n), 2);
  const std::vector<float> other2 = WithSpecials(static_cast<size_t>(n), 3);
  const std::vector<float> slope = RandomFloats(static_cast<size_t>(channels), 4, -1.f, 1.f);
  using K = cpu::EpilogueKind;
  struct Case {
    std::vector<cpu::EpilogueStep> steps;
  };
  std::vector<Case> cases;
  for (K kind : {K::kAdd, K::kSub, K::kMul, K::kDiv}) {
    for (bool x_first : {true, false}) {
      for (bool clamp : {false, true}) {
        cpu::EpilogueStep s{kind, other.data(), x_first, clamp, 0.f, 6.f};
        cases.push_back({{s}});
        // Then PRELU, then another operation: a chain of three.
        cases.push_back({{s, cpu::EpilogueStep{K::kPrelu, slope.data()},
                          cpu::EpilogueStep{K::kSub, other2.data(), !x_first, clamp, -1.f, 1.f}}});
      }
    }
  }
  cases.push_back({{cpu::EpilogueStep{K::kPrelu, slope.data()}}});
  // One value against every element (attention's scale, an epsilon).
  const float scale = 0.125f, special_scale = kInf;
  for (K kind : {K::kMul, K::kSub, K::kDiv}) {
    for (bool x_first : {true, false}) {
      cases.push_back({{cpu::EpilogueStep{kind, &scale, x_first, false, 0.f, 0.f, true}}});
    }
  }
  cases.push_back({{cpu::EpilogueStep{K::kAdd, other.data()},
                    cpu::EpilogueStep{K::kMul, &special_scale, true, true, -1.f, 1.f, true}}});
  // GELU alone, and between two operations (a matmul's bias, GELU, a residual).
  for (K gelu : {K::kGelu, K::kGeluTanh}) {
    cases.push_back({{cpu::EpilogueStep{gelu}}});
    cases.push_back({{cpu::EpilogueStep{K::kAdd, other.data()}, cpu::EpilogueStep{gelu},
                      cpu::EpilogueStep{K::kAdd, other2.data(), false}}});
  }
  // An operand of 19-value rows read with 2 zeros ahead and 3 behind (a
  // channel PAD), after a PRELU.
  const std::vector<float> narrow = WithSpecials(static_cast<size_t>(19 * rows), 5);
  cpu::EpilogueStep padded{K::kAdd, narrow.data(), false, true, -1.f, 2.f};
  padded.operand_channels = 19;
  padded.pad_before = 2;
  cases.push_back({{cpu::EpilogueStep{K::kPrelu, slope.data()}, padded}});
  for (size_t c = 0; c < cases.size(); ++c) {
    // Spans that start and end off the blocks and off the rows.
    for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, n}, {5, 1029}, {1023, 2049}, {n - 3, n}, {7, 7}}) {
      std::vector<float> out(static_cast<size_t>(n), 42.f);
      cpu::Epilogue e;
      e.steps = cases[c].steps;
      e.out = out.data();
      e.channels = channels;
      e.elements = n;
      cpu::RunEpilogue(e, x.data(), begin, end);
      for (int64_t i = 0; i < n; ++i) {
        const std::string where = "case " + std::to_string(c) + " span [" + std::to_string(begin) + ", " +
                                  std::to_string(end) + ") i " + std::to_string(i);
        if (i < begin || i >= end) {
          ASSERT_EQ(out[static_cast<size_t>(i)], 42.f) << where << ": written outside the span";
          continue;
        }
        float want = x[static_cast<size_t>(i)];
        for (const cpu::EpilogueStep& s : e.steps) {
          float operand = 0.f;
          if (cpu::EpilogueKindIsUnary(s.kind)) {
            operand = 0.f;
          } else if (s.kind == K::kPrelu) {
            operand = s.operand[i % channels];
          } else if (s.scalar) {
            operand = s.operand[0];
          } else if (s.operand_channels > 0) {
            const int64_t c = i % channels - s.pad_before;
            operand = c >= 0 && c < s.operand_channels ? s.operand[i / channels * s.operand_channels + c] : 0.f;
          } else {
            operand = s.operand[i];
          }
          want = Reference(s, want, operand);
        }
        const float got = out[static_cast<size_t>(i)];
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got)) << where << ": got " << got;
        } else {
          ASSERT_EQ(got, want) << where;
        }
      }
    }
  }
}

TEST(Epilogue, StepForTakesSameShapeArithmeticAndPerChannelPrelu) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 4, 4, 8});
  const int y = AddTensor(g, "y", {1, 4, 4, 8});
  const int row = AddTensor(g, "row", {1, 1, 1, 8});
  const int slope = AddConstant<float>(g, "slope", {1, 1, 8}, DataType::kFloat32, std::vector<float>(8, 0.25f));
  const int full_slope = AddConstant<float>(g, "full", {1, 4, 4, 8}, DataType::kFloat32,
                                            std::vector<float>(128, 0.25f));
  const int i32 = AddTensor(g, "i", {1, 4, 4, 8}, DataType::kInt32);
  auto out = [&g](const char* name) { return AddTensor(g, name, {1, 4, 4, 8}); };
  BinaryAttributes relu6;
  relu6.activation = Activation::kRelu6;
  BinaryAttributes tanh;
  tanh.activation = Activation::kTanh;
  const int add = AddNode(g, OpType::kAdd, {y, x}, {out("a")}, 0, relu6);
  const int sub_bcast = AddNode(g, OpType::kSub, {x, row}, {out("b")}, 1, BinaryAttributes{});
  const int mul_tanh = AddNode(g, OpType::kMul, {x, y}, {out("c")}, 2, tanh);
  const int square = AddNode(g, OpType::kMul, {x, x}, {out("d")}, 3, BinaryAttributes{});
  const int prelu = AddNode(g, OpType::kPrelu, {x, slope}, {out("e")}, 4);
  const int prelu_full = AddNode(g, OpType::kPrelu, {x, full_slope}, {out("f")}, 5);
  const int max = AddNode(g, OpType::kMaximum, {x, y}, {out("g")}, 6, BinaryAttributes{});
  const int add_int = AddNode(g, OpType::kAdd, {i32, i32}, {AddTensor(g, "h", {1, 4, 4, 8}, DataType::kInt32)}, 7,
                                 BinaryAttributes{});

  cpu::EpilogueStepSpec spec;
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(add), x, &spec));
  EXPECT_EQ(spec.kind, cpu::EpilogueKind::kAdd);
  EXPECT_FALSE(spec.x_first);  // y + x keeps its order
  EXPECT_EQ(spec.operand, y);
  EXPECT_EQ(spec.activation, Activation::kRelu6);
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(prelu), x, &spec));
  EXPECT_EQ(spec.kind, cpu::EpilogueKind::kPrelu);
  EXPECT_EQ(spec.operand, slope);
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(sub_bcast), x, &spec)) << "a broadcast operand";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(mul_tanh), x, &spec)) << "an activation that is not a clamp";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(square), x, &spec)) << "x on both sides";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(prelu_full), x, &spec)) << "a slope per element";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(prelu), slope, &spec)) << "the slope as the chain's value";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(max), x, &spec)) << "an op with no epilogue step";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(add_int), i32, &spec)) << "int32";
}

TEST(Epilogue, StepForTakesOneValueAgainstTheWholeOutput) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 2, 8, 8});
  const int scalar = AddConstant<float>(g, "s", {}, DataType::kFloat32, {0.125f});
  const int one = AddConstant<float>(g, "one", {1}, DataType::kFloat32, {2.f});
  const int two = AddConstant<float>(g, "two", {2}, DataType::kFloat32, {2.f, 3.f});
  const int deep = AddConstant<float>(g, "deep", {1, 1, 1, 1, 1}, DataType::kFloat32, {2.f});
  auto out = [&g](const char* name, Shape shape = {1, 2, 8, 8}) { return AddTensor(g, name, shape); };
  const int mul = AddNode(g, OpType::kMul, {x, scalar}, {out("a")}, 0, BinaryAttributes{});
  const int sub = AddNode(g, OpType::kSub, {one, x}, {out("b")}, 1, BinaryAttributes{});
  const int pair = AddNode(g, OpType::kAdd, {x, two}, {out("c", {1, 2, 8, 8})}, 2, BinaryAttributes{});
  const int wider = AddNode(g, OpType::kAdd, {x, deep}, {out("d", {1, 1, 2, 8, 8})}, 3, BinaryAttributes{});
  cpu::EpilogueStepSpec spec;
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(mul), x, &spec));
  EXPECT_TRUE(spec.scalar);
  EXPECT_EQ(spec.operand, scalar);
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(sub), x, &spec));
  EXPECT_TRUE(spec.scalar);
  EXPECT_FALSE(spec.x_first);
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(pair), x, &spec)) << "two values";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(wider), x, &spec)) << "an output of higher rank";
}

TEST(Epilogue, StepForTakesGeluOfTheChainsValue) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 7, 16});
  const int y = AddTensor(g, "y", {1, 7, 16});
  GeluAttributes tanh_form;
  tanh_form.approximate = true;
  const int exact = AddNode(g, OpType::kGelu, {x}, {AddTensor(g, "a", {1, 7, 16})}, 0, GeluAttributes{});
  const int approx = AddNode(g, OpType::kGelu, {x}, {AddTensor(g, "b", {1, 7, 16})}, 1, tanh_form);
  const int other_shape = AddNode(g, OpType::kGelu, {x}, {AddTensor(g, "c", {7, 16})}, 2, GeluAttributes{});
  cpu::EpilogueStepSpec spec;
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(exact), x, &spec));
  EXPECT_EQ(spec.kind, cpu::EpilogueKind::kGelu);
  EXPECT_EQ(spec.operand, kNoTensor);
  ASSERT_TRUE(cpu::EpilogueStepFor(g, static_cast<size_t>(approx), x, &spec));
  EXPECT_EQ(spec.kind, cpu::EpilogueKind::kGeluTanh);
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(exact), y, &spec)) << "not the chain's value";
  EXPECT_FALSE(cpu::EpilogueStepFor(g, static_cast<size_t>(other_shape), x, &spec)) << "a reshaping output";
  cpu::EpilogueStep step;
  cpu::TensorData out;
  out.shape = {1, 7, 16};
  EXPECT_FALSE(cpu::BindEpilogueStep(spec, cpu::TensorData{}, out, "node 1 (GELU)", &step).ok()) << "no buffer";
  std::vector<float> buffer(112);
  out.data = buffer.data();
  GLD_ASSERT_OK(cpu::BindEpilogueStep(spec, cpu::TensorData{}, out, "node 1 (GELU)", &step));
  EXPECT_EQ(step.kind, cpu::EpilogueKind::kGeluTanh);
}

TEST(Epilogue, AbsorbsZeroPaddingAlongTheLastDimensionOnly) {
  Graph g;
  const int x = AddTensor(g, "x", {1, 4, 4, 8});
  const int narrow = AddTensor(g, "narrow", {1, 4, 4, 5});
  auto pad = [&](const char* name, std::vector<int32_t> paddings, Shape out_shape, OpType op = OpType::kPad) {
    const int p = AddConstant<int32_t>(g, std::string(name) + "_p", {4, 2}, DataType::kInt32, paddings);
    const int out = AddTensor(g, name, out_shape);
    std::vector<int> inputs = {narrow, p};
    if (op == OpType::kPadV2) inputs.push_back(AddConstant<float>(g, "one", {1}, DataType::kFloat32, {1.f}));
    AddNode(g, op, inputs, {out}, static_cast<int>(g.nodes.size()));
    return std::make_pair(static_cast<size_t>(g.nodes.size() - 1), out);
  };
  const auto channels = pad("channels", {0, 0, 0, 0, 0, 0, 1, 2}, {1, 4, 4, 8});
  const auto spatial = pad("spatial", {0, 0, 1, 0, 0, 0, 1, 2}, {1, 5, 4, 8});
  const auto valued = pad("valued", {0, 0, 0, 0, 0, 0, 1, 2}, {1, 4, 4, 8}, OpType::kPadV2);
  cpu::EpilogueStepSpec spec;
  spec.kind = cpu::EpilogueKind::kAdd;
  spec.operand = channels.second;
  ASSERT_TRUE(cpu::AbsorbChannelPad(g, channels.first, &spec));
  EXPECT_EQ(spec.operand, narrow);
  EXPECT_EQ(spec.pad_node, static_cast<int>(channels.first));
  EXPECT_EQ(spec.pad_before, 1);
  EXPECT_FALSE(cpu::AbsorbChannelPad(g, channels.first, &spec)) << "a second time";
  spec = cpu::EpilogueStepSpec{};
  spec.operand = spatial.second;
  EXPECT_FALSE(cpu::AbsorbChannelPad(g, spatial.first, &spec)) << "padding along H";
  spec.operand = valued.second;
  EXPECT_FALSE(cpu::AbsorbChannelPad(g, valued.first, &spec)) << "PADV2's value";
  spec.operand = channels.second;
  spec.kind = cpu::EpilogueKind::kPrelu;
  EXPECT_FALSE(cpu::AbsorbChannelPad(g, channels.first, &spec)) << "a PRELU slope";
  (void)x;
}

}  // namespace
}  // namespace gld::testing
