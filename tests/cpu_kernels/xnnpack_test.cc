// The kernels XNNPACK runs (cpu_kernels/xnnpack/), prepared and run as the
// runtime does, against the same kernels' own code on the same node.
#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"
#include "op_test_util.h"

#include <cmath>
#include <limits>

namespace gld::testing {
namespace {

// These tests are of XNNPACK's path: where the CPU has AVX-512, 1x1
// convolutions take the pointwise GEMM instead (pointwise_gemm_test.cc), so
// it is off here.
class Xnnpack : public ::testing::Test {
 private:
  cpu::ScopedPointwiseGemm off_{false};
};

struct Case {
  std::string name;
  std::function<void(OpTest&)> build;  // inputs, node and output of the graph
  bool xnnpack = true;                 // XNNPACK is expected to take the node
};

// Runs the case's graph on the kernels' own code and prepared (XNNPACK) at 1
// and 2 threads, and compares.
void Check(const Case& c) {
  SCOPED_TRACE(c.name);
  OpTest own;
  c.build(own);
  GLD_ASSERT_OK(own.Run());
  const int out = own.graph.outputs.empty() ? static_cast<int>(own.graph.tensors.size()) - 1 : own.graph.outputs[0];
  const std::vector<float> expected = own.Get<float>(out);
  for (int threads : {1, 2}) {
    OpTest prepared;
    c.build(prepared);
    GLD_ASSERT_OK(prepared.RunPrepared(threads));
    ASSERT_EQ(prepared.states.size(), 1u);
    EXPECT_EQ(dynamic_cast<cpu::XnnOperatorState*>(prepared.states[0].get()) != nullptr, c.xnnpack)
        << "threads " << threads;
    ExpectNear(prepared.Get<float>(out), expected, 1e-4f);
  }
}

Case Conv(std::string name, Shape in, Shape filter, Conv2dAttributes a, bool bias = true, bool xnnpack = true) {
  return {std::move(name),
          [=](OpTest& t) {
            const int x = t.Input<float>(in, RandomFloats(static_cast<size_t>(NumElements(in)), 1));
            const int w = t.Const<float>(filter, RandomFloats(static_cast<size_t>(NumElements(filter)), 2));
            std::vector<int> ins = {x, w};
            if (bias) ins.push_back(t.Const<float>({filter[0]}, RandomFloats(static_cast<size_t>(filter[0]), 3)));
            t.Node(OpType::kConv2d, ins, {t.Output()}, a);
          },
          xnnpack};
}

Conv2dAttributes ConvAttrs(Padding p, int stride, int dilation, Activation act) {
  Conv2dAttributes a;
  a.padding = p;
  a.stride_h = a.stride_w = stride;
  a.dilation_h = a.dilation_w = dilation;
  a.activation = act;
  return a;
}

TEST_F(Xnnpack, Conv2dMatchesTheOwnKernel) {
  Check(Conv("1x1", {1, 8, 8, 16}, {24, 1, 1, 16}, ConvAttrs(Padding::kSame, 1, 1, Activation::kNone)));
  Check(Conv("3x3 same stride 2 relu6", {2, 9, 11, 3}, {8, 3, 3, 3}, ConvAttrs(Padding::kSame, 2, 1, Activation::kRelu6)));
  Check(Conv("3x3 valid dilation 2 relu", {1, 10, 10, 4}, {5, 3, 3, 4}, ConvAttrs(Padding::kValid, 1, 2, Activation::kRelu),
             false));
  Check(Conv("grouped tanh", {1, 6, 6, 8}, {6, 3, 3, 4}, ConvAttrs(Padding::kSame, 1, 1, Activation::kTanh)));
  Conv2dAttributes explicit_pad = ConvAttrs(Padding::kValid, 2, 1, Activation::kNone);
  explicit_pad.explicit_padding = {1, 2, 0, 1};
  Check(Conv("merged pad", {1, 7, 7, 3}, {4, 3, 3, 3}, explicit_pad));
}

// Prepare sets the operator up for the buffers the runtime planned (XNNPACK
// builds a convolution's indirection buffer then), so that the first run
// does not; buffers that move are set up again.
TEST_F(Xnnpack, PrepareSetsTheOperatorUpForItsBuffers) {
  OpTest t;
  Conv("3x3", {1, 8, 8, 4}, {8, 3, 3, 4}, ConvAttrs(Padding::kSame, 1, 1, Activation::kNone)).build(t);
  GLD_ASSERT_OK(InferShapes(t.graph, cpu::KnownValueOracle()));
  t.AllocateStorage();
  OpTest::NodeBuffers buffers;
  t.BindNode(0, &buffers);
  cpu::KernelContext ctx;
  ctx.graph = &t.graph;
  ctx.node = &t.graph.nodes[0];
  ctx.inputs = buffers.in_ptrs;
  ctx.outputs = buffers.out_ptrs;
  std::unique_ptr<cpu::KernelState> state;
  ctx.state = &state;
  GLD_ASSERT_OK(cpu::FindCpuKernel(OpType::kConv2d)->prepare(ctx));
  cpu::XnnOperatorState* xnn = cpu::FindXnnOperator(ctx);
  ASSERT_NE(xnn, nullptr);
  EXPECT_TRUE(xnn->IsSetUpFor(ctx));
  cpu::TensorData& out = buffers.outs[0];
  std::vector<uint8_t> other(out.bytes + 64);  // XNNPACK may read 16 bytes past a tensor
  out.data = other.data();
  EXPECT_FALSE(xnn->IsSetUpFor(ctx));
  bool done = false;
  GLD_ASSERT_OK(xnn->Run(ctx, &done));
  EXPECT_TRUE(done);
  EXPECT_TRUE(xnn->IsSetUpFor(ctx));
}

TEST_F(Xnnpack, Conv2dWithARuntimeFilterRunsTheOwnKernel) {
  Check({"runtime filter",
         [](OpTest& t) {
           const int x = t.Input<float>({1, 5, 5, 2}, RandomFloats(50, 1));
           const int w = t.Input<float>({3, 3, 3, 2}, RandomFloats(54, 2));
           t.Node(OpType::kConv2d, {x, w}, {t.Output()}, ConvAttrs(Padding::kSame, 1, 1, Activation::kNone));
         },
         false});
}

Case Depthwise(std::string name, Shape in, int mult, int k, int stride, Padding p, Activation act,
               bool xnnpack = true) {
  return {std::move(name), [=](OpTest& t) {
            const int oc = static_cast<int>(in[3]) * mult;
            const int x = t.Input<float>(in, RandomFloats(static_cast<size_t>(NumElements(in)), 4));
            const int w = t.Const<float>({1, k, k, oc}, RandomFloats(static_cast<size_t>(k * k * oc), 5));
            const int b = t.Const<float>({oc}, RandomFloats(static_cast<size_t>(oc), 6));
            DepthwiseConv2dAttributes a;
            a.padding = p;
            a.stride_h = a.stride_w = stride;
            a.depth_multiplier = mult;
            a.activation = act;
            t.Node(OpType::kDepthwiseConv2d, {x, w, b}, {t.Output()}, a);
          },
          xnnpack};
}

// XNNPACK takes the depthwise layers the fixed 3x3 / 5x5 kernels do not
// (cpu_kernels/ops/depthwise_conv.cc: measured faster than its operator on
// every such layer of the shared models), when it has a depthwise
// microkernel for the window (3, 4, 9 or 25 taps) or the multiplier is not
// 1; other windows run the own rows (xnnpack_conv.cc).
TEST_F(Xnnpack, DepthwiseConv2dMatchesTheOwnKernel) {
  Check(Depthwise("7x7 same, own rows", {1, 12, 12, 32}, 1, 7, 1, Padding::kSame, Activation::kRelu, false));
  Check(Depthwise("2x2 same", {1, 12, 12, 32}, 1, 2, 1, Padding::kSame, Activation::kRelu));
  Check(Depthwise("multiplier 2, 4x4", {1, 8, 8, 3}, 2, 4, 1, Padding::kValid, Activation::kNone));
  Check(Depthwise("3x3 stride 3", {2, 11, 9, 17}, 1, 3, 3, Padding::kSame, Activation::kNone));
  Check(Depthwise("multiplier 2 valid", {1, 8, 8, 3}, 2, 3, 1, Padding::kValid, Activation::kRelu6));
  Check(Depthwise("3x3 on 4 channels", {1, 9, 9, 4}, 1, 3, 1, Padding::kSame, Activation::kNone));
  // VALID at stride 2 over 8 rows reads 7 of them: no trailing padding, one
  // row never read (XNNPACK's output size rounds down as TFLite's does).
  Check(Depthwise("3x3 valid stride 2, an unread last row", {1, 8, 8, 32}, 1, 3, 2, Padding::kValid,
                  Activation::kNone));
  Check(Depthwise("multiplier 2 valid stride 2, an unread last row", {1, 8, 10, 3}, 2, 3, 2, Padding::kValid,
                  Activation::kRelu));
  Check(Depthwise("3x3 fixed kernel", {1, 12, 12, 32}, 1, 3, 1, Padding::kSame, Activation::kRelu, false));
  Check(Depthwise("5x5 stride 2 fixed kernel", {2, 11, 9, 17}, 1, 5, 2, Padding::kSame, Activation::kNone, false));
}

TEST_F(Xnnpack, FullyConnectedMatchesTheOwnKernel) {
  for (int rows : {1, 3, 40}) {
    Check({"fc rows " + std::to_string(rows), [rows](OpTest& t) {
             const int x = t.Input<float>({rows, 37}, RandomFloats(static_cast<size_t>(rows * 37), 7));
             const int w = t.Const<float>({19, 37}, RandomFloats(19 * 37, 8));
             const int b = t.Const<float>({19}, RandomFloats(19, 9));
             FullyConnectedAttributes a;
             a.activation = rows == 3 ? Activation::kSigmoid : Activation::kRelu;
             t.Node(OpType::kFullyConnected, {x, w, b}, {t.Output()}, a);
           }});
  }
}

Case Pool(std::string name, OpType op, Shape in, int k, int stride, Padding p, bool xnnpack = true) {
  return {std::move(name),
          [=](OpTest& t) {
            const int x = t.Input<float>(in, RandomFloats(static_cast<size_t>(NumElements(in)), 10));
            Pool2dAttributes a;
            a.padding = p;
            a.filter_h = a.filter_w = k;
            a.stride_h = a.stride_w = stride;
            t.Node(op, {x}, {t.Output()}, a);
          },
          xnnpack};
}

// Average pooling runs on XNNPACK; max pooling stays on the own kernel (a
// window holding NaN: XNNPACK's result is neither TFLite's nor NaN).
TEST_F(Xnnpack, PoolingMatchesTheOwnKernel) {
  for (OpType op : {OpType::kMaxPool2d, OpType::kAveragePool2d}) {
    const std::string n = OpTypeName(op);
    const bool xnnpack = op == OpType::kAveragePool2d;
    Check(Pool(n + " 2x2 valid", op, {1, 8, 8, 16}, 2, 2, Padding::kValid, xnnpack));
    Check(Pool(n + " 3x3 same stride 2", op, {2, 9, 7, 5}, 3, 2, Padding::kSame, xnnpack));
    Check(Pool(n + " 3x3 same stride 1", op, {1, 5, 5, 8}, 3, 1, Padding::kSame, xnnpack));
    Check(Pool(n + " 3x3 valid stride 2, an unread last row", op, {1, 8, 8, 8}, 3, 2, Padding::kValid, xnnpack));
  }
}

Case TransposeConv(std::string name, Shape in, int oc, int k, int stride, Padding p, Shape out, bool mediapipe) {
  return {std::move(name), [=](OpTest& t) {
            const int x = t.Input<float>(in, RandomFloats(static_cast<size_t>(NumElements(in)), 12));
            const int w = t.Const<float>({oc, k, k, in[3]}, RandomFloats(static_cast<size_t>(oc * k * k * in[3]), 13));
            const int b = t.Const<float>({oc}, RandomFloats(static_cast<size_t>(oc), 14));
            TransposeConvAttributes a;
            a.padding = p;
            a.stride_h = a.stride_w = stride;
            if (mediapipe) {
              t.Node(OpType::kConvolution2DTransposeBias, {x, w, b}, {t.Output()}, a);
            } else {
              const int shape = t.Const<int32_t>({4}, std::vector<int32_t>(out.begin(), out.end()));
              t.Node(OpType::kTransposeConv, {shape, w, x, b}, {t.Output()}, a);
            }
          }};
}

TEST_F(Xnnpack, TransposeConvMatchesTheOwnKernel) {
  Check(TransposeConv("2x2 stride 2 same", {1, 5, 5, 8}, 6, 2, 2, Padding::kSame, {1, 10, 10, 6}, false));
  Check(TransposeConv("3x3 stride 2 same", {1, 4, 5, 3}, 4, 3, 2, Padding::kSame, {1, 8, 10, 4}, false));
  Check(TransposeConv("3x3 stride 2 valid", {2, 4, 4, 3}, 5, 3, 2, Padding::kValid, {2, 9, 9, 5}, false));
  Check(TransposeConv("4x4 stride 2 same", {1, 6, 6, 16}, 8, 4, 2, Padding::kSame, {1, 12, 12, 8}, false));
  Check(TransposeConv("mediapipe 4x4 stride 2", {1, 6, 6, 16}, 8, 4, 2, Padding::kSame, {}, true));
  Check(TransposeConv("mediapipe 2x2 stride 2 valid", {1, 6, 6, 4}, 2, 2, 2, Padding::kValid, {}, true));
}

// LOGISTIC takes XNNPACK from 4096 elements (activations.cc), HARD_SWISH
// always.
TEST_F(Xnnpack, LogisticAndHardSwishMatchTheOwnKernel) {
  for (OpType op : {OpType::kLogistic, OpType::kHardSwish}) {
    for (const Shape& shape : {Shape{2, 7, 5, 3}, Shape{2, 7, 5, 64}}) {
      const bool xnnpack = op == OpType::kHardSwish || NumElements(shape) >= 4096;
      Check({std::string(OpTypeName(op)) + " " + ShapeToString(shape),
             [op, shape](OpTest& t) {
               const size_t n = static_cast<size_t>(NumElements(shape));
               const int x = t.Input<float>(shape, RandomFloats(n, 15, -8.f, 8.f));
               t.Node(op, {x}, {t.Output()});
             },
             xnnpack});
    }
  }
}

TEST_F(Xnnpack, AConstantInputRunsTheOwnKernel) {
  Check({"constant input",
         [](OpTest& t) {
           const int x = t.Const<float>({1, 4, 4, 2}, RandomFloats(32, 11));
           Pool2dAttributes a;
           a.filter_h = a.filter_w = a.stride_h = a.stride_w = 2;
           const int y = t.Output();
           t.Node(OpType::kMaxPool2d, {x}, {y}, a);
           t.graph.outputs = {y};
         },
         false});
}

// Runs `build`'s graph on the own kernel, then prepared (XNNPACK kept) at 1
// and 2 threads: every element must be the own kernel's exactly, NaN where it
// is NaN. Returns the own kernel's output; `where` describes element i.
std::vector<float> ExpectOwnResultsWithNan(const std::function<void(OpTest&)>& build,
                                           const std::function<std::string(size_t)>& where) {
  OpTest own;
  build(own);
  EXPECT_TRUE(own.Run().ok());
  const int out = static_cast<int>(own.graph.tensors.size()) - 1;
  const std::vector<float> expected = own.Get<float>(out);
  for (int threads : {1, 2}) {
    OpTest prepared;
    build(prepared);
    EXPECT_TRUE(prepared.RunPrepared(threads).ok());
    EXPECT_NE(dynamic_cast<cpu::XnnOperatorState*>(prepared.states[0].get()), nullptr);
    const std::vector<float> got = prepared.Get<float>(out);
    EXPECT_EQ(got.size(), expected.size());
    for (size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
      if (std::isnan(expected[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << where(i) << ", threads " << threads << ": got " << got[i];
      } else {
        EXPECT_EQ(got[i], expected[i]) << where(i) << ", threads " << threads;
      }
    }
  }
  return expected;
}

// An XNNPACK output larger than one chunk of the output check, at 1 and 2
// threads: a NaN and an infinity in the input of a 1x1 convolution (in
// pixels whose outputs fall in different chunks) send the run to the own
// kernel, whose NaN and infinity are TFLite's, also under a fused RELU
// (checked before it clamps); the operator stays for later runs.
TEST_F(Xnnpack, NonFiniteValuesInALargeOutputRunTheOwnKernel) {
  const Shape shape = {1, 64, 64, 16};
  const size_t n = static_cast<size_t>(NumElements(shape));
  const size_t nan_pixel = 62, inf_pixel = 4000;
  for (Activation act : {Activation::kNone, Activation::kRelu}) {
    const std::vector<float> expected = ExpectOwnResultsWithNan(
        [&](OpTest& t) {
          std::vector<float> va = RandomFloats(n, 21);
          va[nan_pixel * 16 + 3] = std::numeric_limits<float>::quiet_NaN();
          va[inf_pixel * 16 + 5] = -std::numeric_limits<float>::infinity();
          const int a = t.Input<float>(shape, va);
          // positive weights: the infinite input gives -inf in every channel
          const int w = t.Const<float>({16, 1, 1, 16}, RandomFloats(256, 22, 0.25f, 1.f));
          t.Node(OpType::kConv2d, {a, w}, {t.Output()}, ConvAttrs(Padding::kSame, 1, 1, act));
        },
        [](size_t i) { return "at " + std::to_string(i); });
    ASSERT_EQ(expected.size(), n);
    for (size_t c = 0; c < 16; ++c) {
      EXPECT_TRUE(std::isnan(expected[nan_pixel * 16 + c]));
      EXPECT_EQ(expected[inf_pixel * 16 + c], act == Activation::kRelu ? 0.f : -std::numeric_limits<float>::infinity());
    }
  }
}

// Whether the single node of `build`'s graph, prepared, keeps an operator
// that decides its runs from its input (XnnLinearBound).
bool DecidesFromInput(const std::function<void(OpTest&)>& build) {
  OpTest t;
  build(t);
  EXPECT_TRUE(t.RunPrepared(1).ok());
  const auto* xnn = t.states.empty() ? nullptr : dynamic_cast<cpu::XnnOperatorState*>(t.states[0].get());
  EXPECT_NE(xnn, nullptr);
  return xnn != nullptr && xnn->decides_from_input();
}

std::function<void(OpTest&)> Conv1x1(Shape in, int oc, Activation act, std::vector<float> input,
                                     std::vector<float> weights) {
  return [=](OpTest& t) {
    const int x = t.Input<float>(in, input);
    const int w = t.Const<float>({oc, 1, 1, static_cast<int>(in[3])}, weights);
    const int b = t.Const<float>({oc}, RandomFloats(static_cast<size_t>(oc), 33));
    t.Node(OpType::kConv2d, {x, w, b}, {t.Output()}, ConvAttrs(Padding::kSame, 1, 1, act));
  };
}

// A convolution whose output outgrows its input, with a clamp activation and
// finite weights, is checked on its input; the others keep the output check.
TEST_F(Xnnpack, AWideningConvolutionDecidesFromItsInput) {
  const Shape in = {1, 6, 6, 4};
  const std::vector<float> x = RandomFloats(144, 31), w16 = RandomFloats(64, 32), w2 = RandomFloats(8, 32);
  EXPECT_TRUE(DecidesFromInput(Conv1x1(in, 16, Activation::kRelu6, x, w16)));
  EXPECT_TRUE(DecidesFromInput(Conv1x1(in, 16, Activation::kNone, x, w16)));
  EXPECT_FALSE(DecidesFromInput(Conv1x1(in, 2, Activation::kRelu6, x, w2))) << "narrowing";
  EXPECT_FALSE(DecidesFromInput(Conv1x1(in, 16, Activation::kTanh, x, w16))) << "not a clamp";
  std::vector<float> w_inf = w16;
  w_inf[17] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(DecidesFromInput(Conv1x1(in, 16, Activation::kRelu6, x, w_inf))) << "an infinite weight";
  // Finite inputs: XNNPACK's clamped output, as the own kernel computes it.
  for (Activation act : {Activation::kRelu6, Activation::kRelu, Activation::kReluN1To1, Activation::kNone}) {
    Check({"widening 1x1, activation " + std::to_string(static_cast<int>(act)), Conv1x1(in, 16, act, x, w16)});
  }
  Check(Conv("widening 3x3 stride 1 relu", {1, 9, 9, 2}, {12, 3, 3, 2}, ConvAttrs(Padding::kSame, 1, 1, Activation::kRelu)));
}

// The input decides: a NaN or an infinity in it, or finite values large
// enough that an output may overflow, run the own kernel (exact NaN, and
// infinity where the sums overflow); values just under the bound run XNNPACK.
TEST_F(Xnnpack, AWideningConvolutionsInputSendsNonFiniteRunsToTheOwnKernel) {
  const Shape in = {1, 40, 40, 4};
  const size_t n = 6400;
  const std::vector<float> w = RandomFloats(64, 35, 0.5f, 1.f);  // positive: sums of positive inputs grow
  for (Activation act : {Activation::kNone, Activation::kRelu}) {
    std::vector<float> x = RandomFloats(n, 34);
    x[1000 * 4 + 1] = std::numeric_limits<float>::quiet_NaN();
    x[1500 * 4 + 2] = std::numeric_limits<float>::infinity();
    const std::vector<float> with_nan = ExpectOwnResultsWithNan(Conv1x1(in, 16, act, x, w),
                                                                [](size_t i) { return "at " + std::to_string(i); });
    ASSERT_EQ(with_nan.size(), n * 4);
    EXPECT_TRUE(std::isnan(with_nan[1000 * 16 + 3]));
    EXPECT_EQ(with_nan[1500 * 16 + 3], std::numeric_limits<float>::infinity());
    // Every input 2e38: each output sums four terms of 1e38..2e38, which
    // overflows; the bound (2e38 * the largest row's L1 norm) says so first.
    const std::vector<float> overflow =
        ExpectOwnResultsWithNan(Conv1x1(in, 16, act, std::vector<float>(n, 2e38f), w),
                                [](size_t i) { return "at " + std::to_string(i); });
    EXPECT_EQ(overflow[5], std::numeric_limits<float>::infinity());
  }
  // Large but safe: 1e36 * (at most 4) stays finite, on XNNPACK's path.
  Check({"widening 1x1 near the bound", Conv1x1(in, 16, Activation::kRelu6, std::vector<float>(n, 1e36f), w)});
}

}  // namespace
}  // namespace gld::testing
