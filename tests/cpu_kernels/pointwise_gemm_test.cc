// The AVX-512 and AVX2 GEMM of CONV_2D (cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h, conv_gemm.cc):
// 1x1 windows read the input as it is, others through an im2col tile;
// prepared and run as the runtime does, against CONV_2D's own code on the
// same node, in each tile form the CPU runs (both on an AVX-512 CPU).
// Skipped where the CPU has neither.
#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"
#include "op_test_util.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace gld::testing {
namespace {

Conv2dAttributes Pointwise(Activation act, int stride = 1) {
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = stride;
  a.activation = act;
  return a;
}

// A k x k CONV_2D of `oc` outputs; group_ic: the filter's input channels
// (0: all of the input's, one group).
std::function<void(OpTest&)> Conv(Shape in, int oc, Conv2dAttributes a, std::vector<float> x = {},
                                  std::vector<float> w = {}, bool bias = true, int k = 1, int group_ic = 0) {
  const int fic = group_ic > 0 ? group_ic : static_cast<int>(in[3]);
  if (x.empty()) x = RandomFloats(static_cast<size_t>(NumElements(in)), 1);
  if (w.empty()) w = RandomFloats(static_cast<size_t>(oc * k * k * fic), 2);
  return [=](OpTest& t) {
    const int xi = t.Input<float>(in, x);
    const int wi = t.Const<float>({oc, k, k, fic}, w);
    std::vector<int> ins = {xi, wi};
    if (bias) ins.push_back(t.Const<float>({oc}, RandomFloats(static_cast<size_t>(oc), 3)));
    t.Node(OpType::kConv2d, ins, {t.Output()}, a);
  };
}

// Runs the GEMM's tiles in one form while in scope.
class ScopedForm {
 public:
  explicit ScopedForm(cpu::PointwiseForm form) : previous_(cpu::SetPointwiseGemmForm(form)) {}
  ~ScopedForm() { cpu::SetPointwiseGemmForm(previous_); }
  ScopedForm(const ScopedForm&) = delete;
  ScopedForm& operator=(const ScopedForm&) = delete;

 private:
  cpu::PointwiseForm previous_;
};

bool TakesPointwise(const OpTest& t) {
  return t.states.size() == 1 && dynamic_cast<const cpu::ConvGemmState*>(t.states[0].get()) != nullptr;
}

// The node prepared at 1 and 2 threads (on the GEMM) against the kernel's own
// code: element by element, a NaN where it has a NaN; `exact` where both sum
// in the same order (the own GEMM, over at most 256 channels, from at least
// 6 pixels), within 1e-5 otherwise. Built by clang, whose default
// -ffp-contract=on fuses fewer of the own code's multiply-adds than GCC's
// (fast), the two differ in the last bit: within 1e-5 there too.
void Check(const std::string& name, const std::function<void(OpTest&)>& build, bool exact = true) {
  SCOPED_TRACE(name);
#if defined(__clang__)
  exact = false;
#endif
  OpTest own;
  build(own);
  GLD_ASSERT_OK(own.Run());
  const int out = static_cast<int>(own.graph.tensors.size()) - 1;
  const std::vector<float> want = own.Get<float>(out);
  for (cpu::PointwiseForm form : cpu::PointwiseGemmForms()) {
    ScopedForm use(form);
    SCOPED_TRACE(cpu::PointwiseFormName(form));
    for (int threads : {1, 2}) {
      OpTest t;
      build(t);
      GLD_ASSERT_OK(t.RunPrepared(threads));
      EXPECT_TRUE(TakesPointwise(t)) << "threads " << threads;
      const std::vector<float> got = t.Get<float>(out);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(want[i])) {
          EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ", threads " << threads << ": got " << got[i];
        } else if (exact || std::isinf(want[i])) {
          EXPECT_EQ(got[i], want[i]) << "at " << i << ", threads " << threads;
        } else {
          EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.f, std::abs(want[i]))) << "at " << i;
        }
      }
    }
  }
}

TEST(PointwiseGemm, MatchesTheOwnKernel) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  // Columns: one 16-wide panel, a 32-wide one, 32 + 16 with 8 padded, 17 in
  // a 32-wide panel, 672 (21 panels). Rows: a whole 16-row tile, tiles with
  // a tail, a 7x7 map (few row tiles: the panels are split across threads).
  Check("8x8x16 -> 16", Conv({1, 8, 8, 16}, 16, Pointwise(Activation::kNone)));
  Check("8x8x16 -> 32 relu6", Conv({1, 8, 8, 16}, 32, Pointwise(Activation::kRelu6)));
  Check("5x7x24 -> 40 relu", Conv({1, 5, 7, 24}, 40, Pointwise(Activation::kRelu)));
  Check("3x3x3 -> 17 relu_n1_to_1", Conv({1, 3, 3, 3}, 17, Pointwise(Activation::kReluN1To1)));
  Check("7x7x112 -> 672 relu6", Conv({1, 7, 7, 112}, 672, Pointwise(Activation::kRelu6)));
  Check("batch 2, 9x9x1 -> 24, no bias", Conv({2, 9, 9, 1}, 24, Pointwise(Activation::kNone), {}, {}, false));
  Check("64x64x24 -> 16 relu6", Conv({1, 64, 64, 24}, 16, Pointwise(Activation::kRelu6)));
  // Fewer pixels than the own GEMM's row tile: the own code takes dot
  // products, in another order.
  Check("1x1x300 -> 48", Conv({1, 1, 1, 300}, 48, Pointwise(Activation::kNone)), false);
  Check("2x2x8 -> 1", Conv({1, 2, 2, 8}, 1, Pointwise(Activation::kRelu)), false);
}

Conv2dAttributes Window(Padding p, int stride, int dilation, Activation act) {
  Conv2dAttributes a = Pointwise(act, stride);
  a.padding = p;
  a.dilation_h = a.dilation_w = dilation;
  return a;
}

// Other windows: im2col rows, zeros in the padding.
TEST(PointwiseGemm, WindowsMatchTheOwnKernel) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  // The shared models' first layers, smaller.
  Check("3x3 same stride 2, 3 -> 24 relu6",
        Conv({1, 23, 21, 3}, 24, Window(Padding::kSame, 2, 1, Activation::kRelu6), {}, {}, true, 3));
  Check("5x5 same stride 2, 3 -> 32 relu",
        Conv({1, 19, 20, 3}, 32, Window(Padding::kSame, 2, 1, Activation::kRelu), {}, {}, true, 5));
  Check("3x3 valid dilation 2, 8 -> 20", Conv({2, 11, 9, 8}, 20, Window(Padding::kValid, 1, 2, Activation::kNone),
                                               {}, {}, false, 3));
  Check("1x1 stride 2, 24 -> 40", Conv({1, 9, 9, 24}, 40, Window(Padding::kSame, 2, 1, Activation::kNone)));
  Conv2dAttributes explicit_pad = Window(Padding::kValid, 2, 1, Activation::kRelu);
  explicit_pad.explicit_padding = {1, 2, 0, 1};
  Check("3x3 explicit padding, 4 -> 17", Conv({1, 12, 12, 4}, 17, explicit_pad, {}, {}, true, 3));
  // Tiles of 16 pixels whose windows all lie inside the input (one pointer
  // per pixel), beside tiles that meet the padding (a table of runs).
  Check("3x3 valid, wide, 3 -> 20", Conv({1, 10, 40, 3}, 20, Window(Padding::kValid, 1, 1, Activation::kRelu6), {},
                                          {}, true, 3));
  Check("3x3 same, wide, 5 -> 33", Conv({1, 12, 40, 5}, 33, Window(Padding::kSame, 1, 1, Activation::kNone), {}, {},
                                         true, 3));
  // 3x3 x 112 = 1008 values per window, in 4 of the own GEMM's depth blocks.
  Check("3x3 same, 112 -> 48", Conv({1, 6, 6, 112}, 48, Window(Padding::kSame, 1, 1, Activation::kNone), {}, {},
                                   true, 3));
}

// Grouped convolutions: a GEMM per group over its channels of every tap
// (RegNet's 8-channel groups, ResNeXt's 4), 1x1 and windows, strides,
// padding, a dilation, output channels per group that fill half a panel,
// one and more panels.
TEST(PointwiseGemm, GroupsMatchTheOwnKernel) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  auto grouped = [](Shape in, int oc, int group_ic, int k, Conv2dAttributes a) {
    return Conv(in, oc, a, RandomFloats(static_cast<size_t>(NumElements(in)), 21),
                RandomFloats(static_cast<size_t>(oc * k * k * group_ic), 22), true, k, group_ic);
  };
  Check("3x3 same stride 2, 16 -> 16, groups of 8",
        grouped({1, 32, 32, 16}, 16, 8, 3, Window(Padding::kSame, 2, 1, Activation::kRelu)));
  Check("3x3 same, 32 -> 32, groups of 8",
        grouped({1, 8, 8, 32}, 32, 8, 3, Window(Padding::kSame, 1, 1, Activation::kNone)));
  Check("3x3 valid, 16 -> 32, groups of 4 (8 outputs each)",
        grouped({1, 9, 11, 16}, 32, 4, 3, Window(Padding::kValid, 1, 1, Activation::kRelu6)));
  Check("3x3 dilation 2, 24 -> 48, groups of 12",
        grouped({2, 10, 10, 24}, 48, 12, 3, Window(Padding::kSame, 1, 2, Activation::kNone)));
  Check("1x1, 64 -> 96, groups of 16 (48 outputs: two panels)",
        grouped({1, 7, 7, 64}, 96, 16, 1, Pointwise(Activation::kRelu)));
  Check("1x1 stride 2, 32 -> 32, groups of 8", grouped({1, 9, 9, 32}, 32, 8, 1, Pointwise(Activation::kNone, 2)));
}

// One and two rows take a tile of their own over the whole panel (AVX2):
// the same bits as those rows among 17 (row tiles of 16 and 1), for
// panels of 8, 16, 24 and 32 real columns and several panels.
TEST(PointwiseGemm, FewRowsGiveTheBitsOfTheRowTiles) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  const int k = 37;
  const std::vector<float> x = RandomFloats(17 * k, 31);
  for (int n : {8, 16, 20, 32, 48, 70}) {
    const std::vector<float> w = RandomFloats(static_cast<size_t>(n * k), 32);
    auto run = [&](int rows) {
      OpTest t;
      Conv({1, 1, rows, k}, n, Pointwise(Activation::kRelu6),
           std::vector<float>(x.begin(), x.begin() + rows * k), w)(t);
      EXPECT_TRUE(t.RunPrepared(1).ok());
      EXPECT_TRUE(TakesPointwise(t)) << rows << " rows";
      return t.Get<float>(static_cast<int>(t.graph.tensors.size()) - 1);
    };
    for (cpu::PointwiseForm form : cpu::PointwiseGemmForms()) {
      ScopedForm use(form);
      const std::vector<float> all = run(17);
      for (int rows : {1, 2}) {
        const std::vector<float> few = run(rows);
        ASSERT_EQ(few.size(), static_cast<size_t>(rows * n));
        for (size_t i = 0; i < few.size(); ++i) {
          EXPECT_EQ(std::memcmp(&few[i], &all[i], sizeof(float)), 0)
              << cpu::PointwiseFormName(form) << ", n " << n << ", " << rows << " rows, at " << i << ": " << few[i]
              << " vs " << all[i];
        }
      }
    }
  }
}

// NaN stays NaN through the clamp (TFLite's activation); an infinite input
// gives infinities, and NaN where it meets opposite signs.
TEST(PointwiseGemm, NanAndInfinityAsTheOwnKernel) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  const Shape in = {1, 12, 12, 16};
  std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(in)), 11);
  x[5 * 16 + 3] = std::numeric_limits<float>::quiet_NaN();
  x[40 * 16 + 7] = std::numeric_limits<float>::infinity();
  x[99 * 16 + 0] = -std::numeric_limits<float>::infinity();
  std::vector<float> w = RandomFloats(static_cast<size_t>(40 * 16), 12);
  w[33 * 16 + 9] = std::numeric_limits<float>::infinity();  // every pixel's channel 33 is +-inf or NaN
  for (Activation act : {Activation::kNone, Activation::kRelu, Activation::kRelu6}) {
    Check("activation " + std::to_string(static_cast<int>(act)), Conv(in, 40, Pointwise(act), x, w));
  }
  // Through a 3x3 window, the NaN and the infinities reach every output
  // whose window holds them.
  Check("3x3 window", Conv(in, 24, Window(Padding::kSame, 1, 1, Activation::kRelu6), x, {}, true, 3));
}

TEST(PointwiseGemm, TakesOnlyWhatItComputes) {
  if (!cpu::PointwiseGemmAvailable()) GTEST_SKIP() << "no AVX-512F or AVX2 with FMA on this CPU";
  auto takes = [](const std::function<void(OpTest&)>& build) {
    OpTest t;
    build(t);
    EXPECT_TRUE(t.RunPrepared(1).ok());
    return TakesPointwise(t);
  };
  EXPECT_TRUE(takes(Conv({1, 4, 4, 8}, 8, Pointwise(Activation::kRelu))));
  EXPECT_TRUE(takes(Conv({1, 4, 4, 8}, 24, Pointwise(Activation::kRelu, 2)))) << "stride 2";
  // A window to 16 channels or fewer: XNNPACK's on AVX-512, the AVX2 tiles'.
  EXPECT_EQ(takes(Conv({1, 4, 4, 8}, 16, Pointwise(Activation::kRelu, 2))),
            cpu::ActivePointwiseGemmForm() == cpu::PointwiseForm::kAvx2)
      << "a window to 16 channels";
  EXPECT_FALSE(takes(Conv({1, 4, 4, 8}, 8, Pointwise(Activation::kTanh)))) << "not a clamp";
  std::vector<float> w_inf = RandomFloats(24 * 9 * 8, 2);
  EXPECT_TRUE(takes(Conv({1, 4, 4, 8}, 24, Window(Padding::kSame, 1, 1, Activation::kNone), {}, w_inf, true, 3)));
  w_inf[5] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(takes(Conv({1, 4, 4, 8}, 24, Window(Padding::kSame, 1, 1, Activation::kNone), {}, w_inf, true, 3)))
      << "an infinite weight meets the padding";
  EXPECT_FALSE(takes(Conv({1, 4, 4, 120}, 24, Window(Padding::kSame, 1, 1, Activation::kNone), {}, {}, true, 3)))
      << "1080 values per window";
  EXPECT_FALSE(takes([](OpTest& t) {
    const int x = t.Input<float>({1, 4, 4, 8}, RandomFloats(128, 1));
    const int w = t.Input<float>({8, 1, 1, 8}, RandomFloats(64, 2));
    t.Node(OpType::kConv2d, {x, w}, {t.Output()}, Pointwise(Activation::kNone));
  })) << "a filter that is not a constant";
  EXPECT_TRUE(takes([](OpTest& t) {
    const int x = t.Input<float>({1, 4, 4, 8}, RandomFloats(128, 1));
    const int w = t.Const<float>({8, 1, 1, 4}, RandomFloats(32, 2));
    t.Node(OpType::kConv2d, {x, w}, {t.Output()}, Pointwise(Activation::kNone));
  })) << "two groups of 4 channels";
  EXPECT_FALSE(takes([](OpTest& t) {
    const int x = t.Input<float>({1, 4, 4, 8}, RandomFloats(128, 1));
    const int w = t.Const<float>({8, 3, 3, 2}, RandomFloats(144, 2));
    t.Node(OpType::kConv2d, {x, w}, {t.Output()}, Window(Padding::kSame, 1, 1, Activation::kNone));
  })) << "four groups of 2 channels";
  cpu::ScopedPointwiseGemm off(false);
  EXPECT_FALSE(takes(Conv({1, 4, 4, 8}, 8, Pointwise(Activation::kRelu)))) << "turned off";
}

// The panels hold w[j][r] at row r, column j - col of the panel, zeros past
// n, then the biases: bit for bit (a NaN payload too), for filters whose k
// and panel widths are and are not multiples of the 8 x 8 transpose blocks,
// and for B read with both strides other than 1 (no transpose).
TEST(PointwiseGemm, PacksTheFilterIntoPanels) {
  auto bits = [](float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  };
  for (const auto& [n, k] : std::vector<std::pair<int64_t, int64_t>>{{16, 8}, {45, 13}, {70, 9}, {3, 1}, {100, 37},
                                                                     {32, 64}}) {
    SCOPED_TRACE("n " + std::to_string(n) + ", k " + std::to_string(k));
    std::vector<float> w = RandomFloats(static_cast<size_t>(n * k), 7);
    const uint32_t payload = 0x7fc01234u;
    std::memcpy(&w[w.size() / 2], &payload, sizeof payload);
    const std::vector<float> bias = RandomFloats(static_cast<size_t>(n), 8);
    cpu::PointwiseWeights packed;
    GLD_ASSERT_OK(cpu::PackPointwiseWeights(w.data(), bias.data(), n, k, "test", &packed));
    // The same columns read through strides of 2 and 2 * k (every other
    // value of a buffer twice the size): the element-by-element path.
    std::vector<float> spread(w.size() * 2);
    for (size_t i = 0; i < w.size(); ++i) spread[2 * i] = w[i];
    cpu::PointwiseWeights strided;
    GLD_ASSERT_OK(cpu::PlanPointwisePanels(n, k, "test", &strided));
    cpu::PackPointwiseB(spread.data(), 2, 2 * k, &strided);
    int64_t covered = 0;
    for (const cpu::PointwisePanel& p : packed.panels) {
      covered += p.cols;
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t j = 0; j < p.width; ++j) {
          const uint32_t want = j < p.cols ? bits(w[static_cast<size_t>((p.col + j) * k + r)]) : 0u;
          ASSERT_EQ(bits(packed.data()[p.weights + r * p.width + j]), want) << "col " << p.col + j << ", row " << r;
          ASSERT_EQ(bits(strided.data()[p.weights + r * p.width + j]), want) << "strided, col " << p.col + j;
        }
      }
      for (int64_t j = 0; j < p.width; ++j) {
        EXPECT_EQ(bits(packed.data()[p.bias + j]), j < p.cols ? bits(bias[static_cast<size_t>(p.col + j)]) : 0u);
      }
    }
    EXPECT_EQ(covered, n);
  }
}

}  // namespace
}  // namespace gld::testing
