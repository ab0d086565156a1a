// Convolutions and FULLY_CONNECTED on the GPU vs the CPU kernels.
#include <gtest/gtest.h>

#include "gl/gl_test_util.h"
#include "util/half.h"

namespace gld::testing {
namespace {

struct ConvCase {
  int batch, h, w, in_c, out_c, kh, kw;
  int stride, dilation;
  Padding padding;
  Activation act;
  ExplicitPadding pad = {};  // a merged PAD (top, bottom, left, right)
};

std::string Pads(const ExplicitPadding& p) {
  if (p.top == 0 && p.bottom == 0 && p.left == 0 && p.right == 0) return "";
  return " pad " + std::to_string(p.top) + "/" + std::to_string(p.bottom) + "/" + std::to_string(p.left) + "/" +
         std::to_string(p.right);
}

std::string Describe(const ConvCase& c) {
  return "in " + std::to_string(c.batch) + "x" + std::to_string(c.h) + "x" + std::to_string(c.w) + "x" +
         std::to_string(c.in_c) + " -> " + std::to_string(c.out_c) + ", k " + std::to_string(c.kh) + "x" +
         std::to_string(c.kw) + " s" + std::to_string(c.stride) + " d" + std::to_string(c.dilation) +
         (c.padding == Padding::kSame ? " SAME " : " VALID ") + ActivationName(c.act) + Pads(c.pad);
}

TEST(ConvTest, Conv2dMatchesCpu) {
  GLD_REQUIRE_GL(env);
  const ConvCase cases[] = {
      {1, 6, 7, 3, 4, 1, 1, 1, 1, Padding::kValid, Activation::kNone},   // 1x1
      {1, 5, 5, 17, 5, 1, 1, 2, 1, Padding::kSame, Activation::kRelu},   // 1x1 strided
      {2, 4, 3, 4, 18, 1, 1, 1, 1, Padding::kSame, Activation::kNone},   // 1x1, batch 2
      {1, 7, 6, 1, 1, 3, 3, 1, 1, Padding::kSame, Activation::kNone},    // C 1
      {1, 8, 8, 3, 8, 3, 3, 2, 1, Padding::kSame, Activation::kRelu6},   // typical stem
      {1, 9, 7, 5, 3, 3, 2, 1, 1, Padding::kValid, Activation::kNone},   // odd kernel
      {1, 9, 9, 4, 5, 3, 3, 1, 2, Padding::kSame, Activation::kNone},    // dilation
      {2, 6, 6, 20, 17, 2, 2, 2, 1, Padding::kValid, Activation::kReluN1To1},
      {1, 5, 8, 6, 7, 5, 3, 1, 1, Padding::kSame, Activation::kTanh},
      {1, 5, 5, 6, 10, 3, 3, 1, 1, Padding::kSame, Activation::kNone},  // 3 slices: a partial block
      {1, 4, 4, 9, 29, 1, 1, 1, 1, Padding::kSame, Activation::kNone},  // 8 slices: whole blocks
      {1, 5, 4, 1, 3, 1, 1, 1, 1, Padding::kValid, Activation::kNone},  // 1x1, C 1 -> 3
      {1, 4, 5, 5, 1, 1, 1, 1, 1, Padding::kSame, Activation::kNone},   // 1x1, C 5 -> 1
      {1, 8, 7, 3, 17, 3, 3, 1, 2, Padding::kSame, Activation::kRelu},  // dilation, C 3 -> 17
      {1, 9, 9, 17, 4, 3, 3, 1, 3, Padding::kValid, Activation::kNone}, // dilation 3, C 17 -> 4
      {1, 7, 6, 1, 5, 3, 3, 2, 2, Padding::kSame, Activation::kNone},   // dilation + stride, C 1 -> 5
      // A PAD merged into a VALID convolution (transforms/merge_pad.cc).
      {1, 4, 5, 3, 5, 1, 1, 1, 1, Padding::kValid, Activation::kNone, {1, 0, 2, 1}},  // 1x1
      {1, 5, 5, 4, 17, 1, 1, 2, 1, Padding::kValid, Activation::kNone, {1, 1, 0, 1}}, // 1x1 strided
      {1, 5, 4, 5, 4, 3, 3, 1, 1, Padding::kValid, Activation::kNone, {2, 0, 1, 2}},
      // A large window (8x7).
      {1, 10, 9, 5, 6, 8, 7, 1, 1, Padding::kSame, Activation::kNone},
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 1;
    for (const ConvCase& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input({c.batch, c.h, c.w, c.in_c});
      int w = t.Const({c.out_c, c.kh, c.kw, c.in_c});
      int b = t.Const({c.out_c});
      Conv2dAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      a.dilation_h = a.dilation_w = c.dilation;
      a.activation = c.act;
      a.explicit_padding = c.pad;
      t.Op(OpType::kConv2d, {x, w, b}, a);
      t.ExpectGpuMatchesCpu(*env, p, "CONV_2D " + Describe(c));
    }
  }
}

// Grouped CONV_2D (weights' input channels < the input's: groups = Cin / that),
// the aligned path (channels per group multiples of 4) and the one that reads
// channels one by one, with and without bias, fused activations.
TEST(ConvTest, GroupedConv2dMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    int h, w, in_c, out_c, groups, k, stride, dilation;
    Padding padding;
    Activation act;
    bool bias;
  };
  const Case cases[] = {
      {6, 6, 16, 16, 2, 3, 1, 1, Padding::kSame, Activation::kRelu, true},     // aligned, 8 per group
      {7, 5, 48, 48, 6, 3, 2, 1, Padding::kSame, Activation::kNone, true},     // RegNet-like, stride 2
      {5, 6, 8, 16, 2, 1, 1, 1, Padding::kValid, Activation::kRelu6, true},    // aligned 1x1, 4 -> 8
      {6, 5, 6, 6, 3, 3, 1, 1, Padding::kSame, Activation::kNone, true},       // 2 per group
      {6, 6, 9, 6, 3, 3, 1, 2, Padding::kSame, Activation::kTanh, false},      // 3 -> 2, dilation
      {5, 5, 12, 18, 2, 2, 1, 1, Padding::kValid, Activation::kNone, true},    // 6 -> 9, straddles slices
      {4, 4, 10, 5, 5, 1, 1, 1, Padding::kSame, Activation::kReluN1To1, true}, // 2 -> 1
      {6, 7, 8, 8, 4, 3, 2, 1, Padding::kValid, Activation::kNone, true},      // 2 -> 2
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 70;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input({1, c.h, c.w, c.in_c});
      int w = t.Const({c.out_c, c.k, c.k, c.in_c / c.groups});
      int b = c.bias ? t.Const({c.out_c}) : kNoTensor;
      Conv2dAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      a.dilation_h = a.dilation_w = c.dilation;
      a.activation = c.act;
      t.Op(OpType::kConv2d, {x, w, b}, a);
      t.ExpectGpuMatchesCpu(*env, p,
                            "grouped CONV_2D " + std::to_string(c.in_c) + " -> " + std::to_string(c.out_c) +
                                " in " + std::to_string(c.groups) + " groups, k" + std::to_string(c.k));
    }
  }
}

TEST(ConvTest, Conv2dWithoutBiasAndUnequalStrides) {
  GLD_REQUIRE_GL(env);
  for (Precision p : BothPrecisions()) {
    GlOpTest t(4);
    int x = t.Input({1, 9, 10, 5});
    int w = t.Const({6, 3, 3, 5});
    Conv2dAttributes a;
    a.padding = Padding::kSame;
    a.stride_h = 2;
    a.stride_w = 1;
    a.dilation_h = 1;
    a.dilation_w = 2;
    t.Op(OpType::kConv2d, {x, w, kNoTensor}, a);
    t.ExpectGpuMatchesCpu(*env, p, "CONV_2D no bias");
  }
}

TEST(ConvTest, DepthwiseConv2dMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    int h, w, c, multiplier, k, stride, dilation;
    Padding padding;
    Activation act;
    ExplicitPadding pad = {};
  };
  const Case cases[] = {
      {7, 7, 1, 1, 3, 1, 1, Padding::kSame, Activation::kNone},
      {8, 6, 3, 1, 3, 2, 1, Padding::kSame, Activation::kRelu},
      {6, 6, 4, 1, 5, 1, 1, Padding::kSame, Activation::kNone},
      {7, 5, 5, 1, 3, 1, 2, Padding::kValid, Activation::kRelu6},
      {5, 6, 17, 1, 3, 2, 1, Padding::kValid, Activation::kNone},
      {6, 5, 3, 2, 3, 1, 1, Padding::kSame, Activation::kNone},   // multiplier 2
      {5, 5, 5, 3, 2, 1, 1, Padding::kValid, Activation::kNone},  // multiplier 3
      {4, 4, 1, 4, 3, 1, 1, Padding::kSame, Activation::kNone},   // C 1 -> 4
      {6, 5, 20, 1, 3, 1, 2, Padding::kSame, Activation::kNone},  // dilation, C >= 17
      {5, 4, 3, 1, 3, 2, 1, Padding::kValid, Activation::kNone, {1, 1, 2, 0}},  // merged PAD
      {4, 4, 5, 1, 1, 1, 1, Padding::kValid, Activation::kNone, {1, 0, 0, 1}},  // 1x1, merged PAD
      {9, 9, 6, 1, 8, 1, 1, Padding::kSame, Activation::kNone},  // a large window (8x8)
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 30;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input({1, c.h, c.w, c.c});
      int w = t.Const({1, c.k, c.k, c.c * c.multiplier});
      int b = t.Const({c.c * c.multiplier});
      DepthwiseConv2dAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      a.dilation_h = a.dilation_w = c.dilation;
      a.depth_multiplier = c.multiplier;
      a.activation = c.act;
      a.explicit_padding = c.pad;
      t.Op(OpType::kDepthwiseConv2d, {x, w, b}, a);
      t.ExpectGpuMatchesCpu(*env, p,
                            "DEPTHWISE_CONV_2D c" + std::to_string(c.c) + " m" + std::to_string(c.multiplier) +
                                " k" + std::to_string(c.k) + " s" + std::to_string(c.stride) + " d" +
                                std::to_string(c.dilation) + Pads(c.pad));
    }
  }
}

TEST(ConvTest, TransposeConvMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    int h, w, in_c, out_c, k, stride;
    Padding padding;
    bool bias;
  };
  const Case cases[] = {
      {4, 4, 3, 4, 3, 2, Padding::kSame, true},   {3, 5, 4, 5, 2, 2, Padding::kValid, false},
      {5, 4, 1, 1, 3, 1, Padding::kSame, true},   {3, 3, 17, 6, 4, 2, Padding::kSame, true},
      {4, 3, 5, 18, 3, 3, Padding::kValid, true},
      {3, 4, 6, 11, 2, 2, Padding::kSame, true},
      {3, 3, 5, 6, 8, 2, Padding::kSame, true},  // a large window (8x8)
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 50;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      const int out_h = c.padding == Padding::kSame ? c.h * c.stride : (c.h - 1) * c.stride + c.k;
      const int out_w = c.padding == Padding::kSame ? c.w * c.stride : (c.w - 1) * c.stride + c.k;
      int shape = t.ConstInts<int32_t>({4}, {1, out_h, out_w, c.out_c});
      int w = t.Const({c.out_c, c.k, c.k, c.in_c});
      int x = t.Input({1, c.h, c.w, c.in_c});
      int b = c.bias ? t.Const({c.out_c}) : kNoTensor;
      TransposeConvAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      std::vector<int> inputs = {shape, w, x};
      if (c.bias) inputs.push_back(b);
      t.Op(OpType::kTransposeConv, inputs, a);
      t.ExpectGpuMatchesCpu(*env, p, "TRANSPOSE_CONV " + std::to_string(c.in_c) + "->" + std::to_string(c.out_c) +
                                         " k" + std::to_string(c.k) + " s" + std::to_string(c.stride));
    }
  }
}

TEST(ConvTest, Convolution2DTransposeBiasMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    int h, w, in_c, out_c, k, stride;
    Padding padding;
  };
  const Case cases[] = {
      {4, 4, 16, 1, 2, 2, Padding::kSame},  // selfie_segmentation's last layer shape
      {3, 5, 3, 5, 3, 2, Padding::kSame},
      {4, 3, 5, 4, 4, 2, Padding::kValid},
      {3, 3, 4, 17, 3, 1, Padding::kSame},
      {4, 3, 1, 3, 2, 2, Padding::kSame},    // C 1 -> 3
      {3, 3, 20, 5, 3, 2, Padding::kValid},  // C >= 17 in
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 70;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input({1, c.h, c.w, c.in_c});
      int w = t.Const({c.out_c, c.k, c.k, c.in_c});
      int b = t.Const({c.out_c});
      TransposeConvAttributes a;
      a.padding = c.padding;
      a.stride_h = a.stride_w = c.stride;
      t.Op(OpType::kConvolution2DTransposeBias, {x, w, b}, a);
      t.ExpectGpuMatchesCpu(*env, p, "Convolution2DTransposeBias " + std::to_string(c.in_c) + "->" +
                                         std::to_string(c.out_c) + " k" + std::to_string(c.k));
    }
  }
}

TEST(ConvTest, FullyConnectedMatchesCpu) {
  GLD_REQUIRE_GL(env);
  struct Case {
    Shape input;
    int units;
    bool keep_num_dims;
    Activation act;
  };
  const Case cases[] = {
      {{1, 17}, 5, false, Activation::kNone},
      {{3, 4}, 1, false, Activation::kRelu},
      {{2, 5}, 18, false, Activation::kNone},
      {{1, 1, 1, 20}, 3, false, Activation::kNone},   // 4-D input, 2-D output
      {{1, 1, 1, 20}, 3, true, Activation::kNone},    // keep_num_dims
      {{2, 3, 7}, 4, true, Activation::kRelu6},       // rows over two dims
      {{2, 3, 7}, 5, false, Activation::kNone},
      {{2, 9}, 10, false, Activation::kNone},
      {{1, 33}, 40, false, Activation::kSigmoid},
      {{3, 1}, 4, false, Activation::kNone},   // C 1
      {{2, 3}, 17, false, Activation::kRelu},  // C 3
  };
  for (Precision p : BothPrecisions()) {
    uint32_t seed = 90;
    for (const Case& c : cases) {
      GlOpTest t(seed++);
      int x = t.Input(c.input);
      int w = t.Const({c.units, c.input.back()});
      int b = t.Const({c.units});
      FullyConnectedAttributes a;
      a.activation = c.act;
      a.keep_num_dims = c.keep_num_dims;
      t.Op(OpType::kFullyConnected, {x, w, b}, a);
      t.ExpectGpuMatchesCpu(*env, p, "FULLY_CONNECTED " + ShapeToString(c.input) + " -> " + std::to_string(c.units));
    }
  }
}

TEST(ConvTest, NonConstantWeightsAreRefused) {
  GlOpTest t;
  int x = t.Input({1, 4, 4, 3});
  int w = t.Input({2, 3, 3, 3});
  t.Op(OpType::kConv2d, {x, w, kNoTensor}, Conv2dAttributes{});
  ASSERT_TRUE(InferShapes(t.graph).ok());
  std::string reason;
  EXPECT_FALSE(gl::IsNodeSupported(t.graph, 0, &reason));
  EXPECT_NE(reason.find("not constant"), std::string::npos) << reason;
}

TEST(ConvTest, Float16WeightsAreWidened) {
  GLD_REQUIRE_GL(env);
  // Weights stored as float16 constants, the way the file has them before
  // DEQUANTIZE folding; the CPU side gets the same values as float32.
  GlOpTest t(5);
  int x = t.Input({1, 5, 5, 4});
  std::vector<float> wf = RandomFloats(3 * 3 * 3 * 4, 77, -1, 1);
  std::vector<uint16_t> wh(wf.size());
  for (size_t i = 0; i < wf.size(); ++i) {
    // Both sides see identical weights: the float32 ones are the halves.
    wh[i] = FloatToHalf(wf[i]);
    wf[i] = HalfToFloat(wh[i]);
  }
  int w32 = t.ConstValues({3, 3, 3, 4}, wf);
  t.Op(OpType::kConv2d, {x, w32, kNoTensor}, Conv2dAttributes{Padding::kSame});
  ASSERT_TRUE(t.RunCpu().ok());
  std::vector<float> expected = t.CpuFloats(t.graph.outputs[0]);
  // Now the same weights as float16.
  gld::Tensor& wt = t.graph.tensors[static_cast<size_t>(w32)];
  wt.type = DataType::kFloat16;
  std::vector<uint8_t> half = Bytes(wh);
  wt.data = half;
  ASSERT_TRUE(t.RunGpu(*env, Precision::kFp32).ok());
  std::vector<float> got = t.GpuFloats(t.graph.outputs[0]);
  ASSERT_EQ(got.size(), expected.size());
  float max_ref = 0, max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    max_ref = std::max(max_ref, std::abs(expected[i]));
    max_err = std::max(max_err, std::abs(expected[i] - got[i]));
  }
  EXPECT_LE(max_err / max_ref, 1e-4f);
}

}  // namespace
}  // namespace gld::testing
