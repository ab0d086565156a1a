// The integer kernels (cpu_kernels/ops/integer_kernels.h) against the exact
// result: every output is round(real / output scale) + output zero point,
// clamped to the fused activation's range, where real is computed exactly
// (in double) from the stored integers. XNNPACK requantizes in float, which
// may land one step away where the exact value is within a float rounding of
// a tie: at least 99% must be equal (70% for ADD and SUB, whose operands
// XNNPACK scales in fixed point), none more than one step apart.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "cpu_kernels/micro/int8_depthwise/int8_depthwise.h"
#include "cpu_kernels/micro/int8_gemm/int8_gemm.h"
#include "cpu_kernels/ops/integer_kernels.h"
#include "graph/shape_inference.h"
#include "op_test_util.h"
#include "runtime/step.h"

namespace gld::testing {
namespace {

// A constant as the reader leaves a quantized one: float32 values decoded
// from `stored` with `q` kept.
int StoredConstant(OpTest& t, const Shape& shape, const std::vector<int32_t>& stored, QuantizationParams q) {
  std::vector<float> real(stored.size());
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(q.quantized_dimension) + 1; d < shape.size(); ++d) inner *= shape[d];
  for (size_t i = 0; i < stored.size(); ++i) {
    const size_t c = q.scale.size() == 1 ? 0 : (i / static_cast<size_t>(inner)) % q.scale.size();
    const double zp = q.zero_point.empty() ? 0 : static_cast<double>(q.zero_point[c]);
    real[i] = static_cast<float>((stored[i] - zp) * static_cast<double>(q.scale[c]));
  }
  const int id = t.Const<float>(shape, real);
  t.graph.tensors[static_cast<size_t>(id)].quant = std::move(q);
  return id;
}

// Requantizes exact reals and compares.
template <typename T>
void ExpectRequantized(const std::vector<T>& got, const std::vector<double>& real, float out_scale, int out_zp,
                       int lo, int hi, double min_equal = 0.99) {
  ASSERT_EQ(got.size(), real.size());
  size_t equal = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double q = std::nearbyint(real[i] / out_scale) + out_zp;
    q = std::min<double>(std::max<double>(q, lo), hi);
    const int diff = std::abs(static_cast<int>(got[i]) - static_cast<int>(q));
    ASSERT_LE(diff, 1) << "element " << i << " real " << real[i];
    equal += diff == 0 ? 1 : 0;
  }
  EXPECT_GE(static_cast<double>(equal), min_equal * static_cast<double>(got.size()));
}

// XNNPACK's QC8 requantization (and so LiteRT's default kernels'):
// nearbyint(float(acc) * (input scale * weight scale / output scale, in
// float)) + zero point, clamped. The 1x1 layers run on the VNNI GEMM where
// the CPU has it, the others on XNNPACK: both must give exactly this.
int QC8Requantize(int64_t acc, float in_scale, float w_scale, float out_scale, int zp, int lo, int hi) {
  const float scale = in_scale * w_scale / out_scale;
  float f = static_cast<float>(acc) * scale;
  f = std::min(std::max(f, static_cast<float>(lo - zp)), static_cast<float>(hi - zp));
  return static_cast<int>(std::nearbyint(f)) + zp;
}

TEST(IntegerKernels, Conv2dPerChannelInt8WithRelu6AndPadding) {
  const cpu::ScopedOwnInt8Gemm own(true);  // the ARM tiles too, off by default there
  OpTest t;
  const Shape in_shape{1, 7, 6, 5};
  const int oc = 4, kh = 3, kw = 3, ic = 5;
  const auto x = RandomInts<int8_t>(7 * 6 * 5, -128, 127, 1);
  const auto w = RandomInts<int32_t>(oc * kh * kw * ic, -127, 127, 2);
  const auto b = RandomInts<int32_t>(oc, -3000, 3000, 3);
  const std::vector<float> ws{0.01f, 0.02f, 0.005f, 0.013f};
  const float xs = 0.03f, os = 0.05f;
  const int xz = -7, oz = 3;
  const int in = t.Input<int8_t>(in_shape, x);
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(xs, xz);
  const int filter = StoredConstant(t, {oc, kh, kw, ic}, w, Quant(ws, {0, 0, 0, 0}, 0, DataType::kInt8));
  std::vector<float> bs(oc);
  for (int c = 0; c < oc; ++c) bs[static_cast<size_t>(c)] = xs * ws[static_cast<size_t>(c)];
  const int bias = StoredConstant(t, {oc}, b, Quant(bs, {0, 0, 0, 0}, 0, DataType::kInt32));
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, oz);
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = 2;
  a.activation = Activation::kRelu6;
  t.Node(OpType::kConv2d, {in, filter, bias}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  const Shape& os_shape = t.ShapeOf(out);
  ASSERT_EQ(os_shape, (Shape{1, 4, 6, oc}));
  // SAME padding, stride 2 x 1: 1 row on top (7 rows, 4 outputs: 3 + 6 = 9 = 7 + 2), 1 column left.
  std::vector<double> real;
  std::vector<int64_t> accs;
  for (int oy = 0; oy < 4; ++oy) {
    for (int ox = 0; ox < 6; ++ox) {
      for (int c = 0; c < oc; ++c) {
        int64_t acc = b[static_cast<size_t>(c)];
        for (int fy = 0; fy < kh; ++fy) {
          for (int fx = 0; fx < kw; ++fx) {
            const int iy = oy * 2 - 1 + fy, ix = ox - 1 + fx;
            if (iy < 0 || iy >= 7 || ix < 0 || ix >= 6) continue;
            for (int k = 0; k < ic; ++k) {
              acc += (x[static_cast<size_t>((iy * 6 + ix) * ic + k)] - xz) *
                     static_cast<int64_t>(w[static_cast<size_t>(((c * kh + fy) * kw + fx) * ic + k)]);
            }
          }
        }
        real.push_back(static_cast<double>(acc) * xs * ws[static_cast<size_t>(c)]);
        accs.push_back(acc);
      }
    }
  }
  const int hi = std::min(127, oz + static_cast<int>(std::round(6.0f / os)));
  ExpectRequantized(t.Get<int8_t>(out), real, os, oz, oz, hi);
  // Exactly QC8's requantization, on either path (the GEMM gathers this
  // window's rows where the CPU has VNNI).
  EXPECT_EQ(dynamic_cast<cpu::Int8GemmWeights*>(t.states[0].get()) != nullptr, cpu::HasInt8Gemm());
  for (size_t i = 0; i < accs.size(); ++i) {
    const int c = static_cast<int>(i % oc);
    ASSERT_EQ(t.Get<int8_t>(out)[i], QC8Requantize(accs[i], xs, ws[static_cast<size_t>(c)], os, oz, oz, hi)) << i;
  }
}

TEST(IntegerKernels, PointwiseConvAndFullyConnectedInt8MatchQC8Exactly) {
  const cpu::ScopedOwnInt8Gemm own(true);  // the ARM tiles too, off by default there
  for (bool fully_connected : {false, true}) {
    OpTest t;
    const int rows = 15, k = 13, n = 37;  // neither a multiple of the GEMM's tiles
    const auto x = RandomInts<int8_t>(rows * k, -128, 127, 21);
    const auto w = RandomInts<int32_t>(n * k, -127, 127, 22);
    const auto b = RandomInts<int32_t>(n, -4000, 4000, 23);
    std::vector<float> ws(n), bs(n);
    const float xs = 0.021f, os = 0.037f;
    const int xz = 9, oz = -4;
    for (int c = 0; c < n; ++c) {
      ws[static_cast<size_t>(c)] = 0.003f + 0.0007f * static_cast<float>(c % 5);
      bs[static_cast<size_t>(c)] = xs * ws[static_cast<size_t>(c)];
    }
    const Shape in_shape = fully_connected ? Shape{rows, k} : Shape{1, 3, 5, k};
    const int in = t.Input<int8_t>(in_shape, x);
    t.graph.tensors[static_cast<size_t>(in)].quant = Quant(xs, xz);
    const Shape w_shape = fully_connected ? Shape{n, k} : Shape{n, 1, 1, k};
    const int filter = StoredConstant(t, w_shape, w, Quant(ws, std::vector<int64_t>(n, 0), 0, DataType::kInt8));
    const int bias = StoredConstant(t, {n}, b, Quant(bs, std::vector<int64_t>(n, 0), 0, DataType::kInt32));
    const int out = t.Output(DataType::kInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, oz);
    if (fully_connected) {
      FullyConnectedAttributes a;
      a.activation = Activation::kRelu;
      t.Node(OpType::kFullyConnected, {in, filter, bias}, {out}, a);
    } else {
      Conv2dAttributes a;
      a.activation = Activation::kRelu;
      t.Node(OpType::kConv2d, {in, filter, bias}, {out}, a);
    }
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.RunPrepared(2));
    EXPECT_EQ(dynamic_cast<cpu::Int8GemmWeights*>(t.states[0].get()) != nullptr, cpu::HasInt8Gemm());
    const std::vector<int8_t> got = t.Get<int8_t>(out);
    ASSERT_EQ(got.size(), static_cast<size_t>(rows * n));
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < n; ++c) {
        int64_t acc = b[static_cast<size_t>(c)];
        for (int i = 0; i < k; ++i) {
          acc += (x[static_cast<size_t>(r * k + i)] - xz) * static_cast<int64_t>(w[static_cast<size_t>(c * k + i)]);
        }
        const int want = QC8Requantize(acc, xs, ws[static_cast<size_t>(c)], os, oz, oz, 127);
        ASSERT_EQ(got[static_cast<size_t>(r * n + c)], want) << (fully_connected ? "fc" : "conv") << " row " << r
                                                             << " channel " << c;
      }
    }
  }
}

// Depthwise layers against a plain sum, exactly: QC8's
// requantization of bias + sum (x - input zero point) x w over the taps
// inside the input. Where the CPU has VNNI the own kernel
// (int8_depthwise.h) runs every case but the last (more dot products than
// it takes: XNNPACK's); elsewhere XNNPACK runs them all. The cases cover
// channel counts around its 16-lane blocks, windows of 1-4 taps a dot
// product and past, strides 1-3 (packed by the stride or by column),
// dilation, padding on every side (SAME, and extra explicit padding:
// whole rows and columns of it), widths around its 8- and 4-pixel steps,
// two images, the input zero point at both ends, a fused ReLU and depth
// multipliers 2-4 (the input's bytes repeated, int8_depthwise.h).
TEST(IntegerKernels, DepthwisePerChannelInt8MatchesQC8Exactly) {
  struct Case {
    int c, kh, kw, sh, sw, dh, dw, h, w;
    Padding padding;
    ExplicitPadding extra = {};
    int batch = 1, xz = 5;
    Activation act = Activation::kNone;
    int m = 1;  // depth multiplier: output channels c x m
  };
  const Case cases[] = {
      {6, 3, 3, 1, 1, 1, 1, 5, 5, Padding::kValid},
      {40, 5, 5, 1, 1, 1, 1, 9, 11, Padding::kSame},
      {21, 5, 5, 2, 2, 1, 1, 8, 7, Padding::kSame},
      {48, 3, 3, 2, 2, 1, 1, 7, 9, Padding::kSame},
      {48, 3, 3, 2, 2, 1, 1, 8, 8, Padding::kValid},  // VALID at stride 2 leaves the last row and column unread
      {16, 3, 3, 1, 1, 1, 1, 13, 21, Padding::kSame},  // 16 channels: columns read 64 bytes at a time
      {16, 3, 3, 2, 2, 1, 1, 12, 19, Padding::kSame},
      {17, 3, 3, 1, 1, 1, 1, 6, 13, Padding::kSame, {}, 2, -128},
      {1, 3, 3, 1, 1, 1, 1, 7, 9, Padding::kSame, {}, 1, 127},
      {15, 5, 5, 1, 1, 1, 1, 6, 12, Padding::kSame, {}, 1, 0, Activation::kRelu},
      {31, 3, 3, 1, 1, 1, 1, 5, 17, Padding::kSame},
      {33, 5, 5, 2, 2, 1, 1, 9, 11, Padding::kSame, {}, 2},
      {72, 3, 3, 1, 1, 1, 1, 10, 10, Padding::kSame},
      {24, 3, 3, 1, 1, 2, 2, 9, 10, Padding::kSame},  // dilation: taps two columns apart
      {20, 3, 5, 1, 1, 3, 3, 13, 14, Padding::kSame},
      {19, 5, 3, 2, 1, 1, 2, 11, 12, Padding::kValid, {2, 3, 4, 1}},
      {32, 3, 3, 3, 3, 1, 1, 10, 12, Padding::kSame},  // stride 3: packed by column
      {32, 3, 3, 1, 2, 1, 1, 9, 10, Padding::kSame},
      {16, 2, 2, 1, 1, 1, 1, 5, 7, Padding::kSame},
      {9, 1, 1, 2, 2, 1, 1, 5, 7, Padding::kValid, {1, 2, 3, 4}},
      {48, 3, 3, 1, 1, 1, 1, 6, 6, Padding::kValid, {3, 2, 1, 4}},  // rows and columns of padding only
      {23, 7, 7, 1, 1, 1, 1, 9, 9, Padding::kSame},
      {18, 9, 9, 1, 1, 1, 1, 5, 5, Padding::kSame},
      {16, 3, 3, 2, 2, 1, 1, 20, 20, Padding::kValid, {}, 1, 5, Activation::kNone, 2},  // a SeparableConv2D's
      {5, 3, 3, 1, 1, 1, 1, 6, 7, Padding::kSame, {}, 2, -128, Activation::kNone, 3},
      {8, 5, 5, 2, 1, 1, 1, 9, 10, Padding::kSame, {}, 1, 127, Activation::kRelu, 4},
      {3, 17, 17, 1, 1, 1, 1, 17, 18, Padding::kSame},  // 17 x 5 dot products: XNNPACK's
  };
  for (const Case& cs : cases) {
    OpTest t;
    const int ic = cs.c, c = cs.c * cs.m;  // input and output channels
    const auto x = RandomInts<int8_t>(static_cast<size_t>(cs.batch * cs.h * cs.w * ic), -128, 127, 4);
    const auto w = RandomInts<int32_t>(static_cast<size_t>(cs.kh * cs.kw * c), -127, 127, 5);
    const auto b = RandomInts<int32_t>(static_cast<size_t>(c), -3000, 3000, 6);
    std::vector<float> ws(static_cast<size_t>(c)), bs(static_cast<size_t>(c));
    const float xs = 0.02f, os = 0.04f;
    const int xz = cs.xz, oz = -2;
    for (int j = 0; j < c; ++j) {
      ws[static_cast<size_t>(j)] = 0.004f * static_cast<float>(j % 7 + 1);
      bs[static_cast<size_t>(j)] = xs * ws[static_cast<size_t>(j)];
    }
    const int in = t.Input<int8_t>({cs.batch, cs.h, cs.w, ic}, x);
    t.graph.tensors[static_cast<size_t>(in)].quant = Quant(xs, xz);
    const int filter =
        StoredConstant(t, {1, cs.kh, cs.kw, c}, w, Quant(ws, std::vector<int64_t>(c, 0), 3, DataType::kInt8));
    const int bias = StoredConstant(t, {c}, b, Quant(bs, std::vector<int64_t>(c, 0), 0, DataType::kInt32));
    const int out = t.Output(DataType::kInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, oz);
    DepthwiseConv2dAttributes a;
    a.padding = cs.padding;
    a.stride_h = cs.sh, a.stride_w = cs.sw;
    a.dilation_h = cs.dh, a.dilation_w = cs.dw;
    a.explicit_padding = cs.extra;
    a.activation = cs.act;
    a.depth_multiplier = cs.m;
    t.Node(OpType::kDepthwiseConv2d, {in, filter, bias}, {out}, a);
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.RunPrepared(2));
    EXPECT_EQ(dynamic_cast<cpu::Int8DepthwiseState*>(t.states[0].get()) != nullptr,
              cpu::HasInt8Depthwise() && cs.kh * ((cs.kw + 3) / 4) <= cpu::kInt8DepthwiseMaxDots)
        << "case c=" << c;
    // TFLite's windows over the input with the extra padding: SAME:
    // ceil(in / stride) outputs, total padding max((out - 1) x stride +
    // window - in, 0), the smaller half first; VALID: no more padding.
    const auto geometry = [&](int size, int extra_before, int extra_after, int k, int stride, int dilation, int* o,
                              int* pad) {
      const int padded = size + extra_before + extra_after, window = (k - 1) * dilation + 1;
      *o = cs.padding == Padding::kSame ? (padded + stride - 1) / stride : (padded - window) / stride + 1;
      *pad = extra_before + (cs.padding == Padding::kSame ? std::max((*o - 1) * stride + window - padded, 0) / 2 : 0);
    };
    int oh = 0, ow = 0, pad_t = 0, pad_l = 0;
    geometry(cs.h, cs.extra.top, cs.extra.bottom, cs.kh, cs.sh, cs.dh, &oh, &pad_t);
    geometry(cs.w, cs.extra.left, cs.extra.right, cs.kw, cs.sw, cs.dw, &ow, &pad_l);
    ASSERT_EQ(t.ShapeOf(out), (Shape{cs.batch, oh, ow, c}));
    const int lo = cs.act == Activation::kRelu ? oz : -128;
    const std::vector<int8_t> got = t.Get<int8_t>(out);
    for (int n = 0; n < cs.batch; ++n) {
      for (int oy = 0; oy < oh; ++oy) {
        for (int ox = 0; ox < ow; ++ox) {
          for (int j = 0; j < c; ++j) {
            int64_t acc = b[static_cast<size_t>(j)];
            for (int fy = 0; fy < cs.kh; ++fy) {
              for (int fx = 0; fx < cs.kw; ++fx) {
                const int iy = oy * cs.sh - pad_t + fy * cs.dh, ix = ox * cs.sw - pad_l + fx * cs.dw;
                if (iy < 0 || iy >= cs.h || ix < 0 || ix >= cs.w) continue;
                acc += (x[static_cast<size_t>(((n * cs.h + iy) * cs.w + ix) * ic + j / cs.m)] - xz) *
                       static_cast<int64_t>(w[static_cast<size_t>((fy * cs.kw + fx) * c + j)]);
              }
            }
            const int want = QC8Requantize(acc, xs, ws[static_cast<size_t>(j)], os, oz, lo, 127);
            ASSERT_EQ(got[static_cast<size_t>(((n * oh + oy) * ow + ox) * c + j)], want)
                << "case c=" << c << " window " << cs.kh << "x" << cs.kw << " stride " << cs.sh << "," << cs.sw
                << " dilation " << cs.dh << "," << cs.dw << " multiplier " << cs.m << " image " << n << " pixel " << oy << "," << ox
                << " channel " << j;
          }
        }
      }
    }
  }
}

// The rows packed by one chunk serve the later chunks of the same loop on
// that thread, and only those: a layer computed one output row at a time,
// in any order, with one loop id equals the whole; after the input changes,
// a new loop id sees the new bytes.
TEST(IntegerKernels, DepthwiseChunksOfOneLoopShareRowsAndOnlyThose) {
  if (!cpu::HasInt8Depthwise()) GTEST_SKIP() << "the own int8 depthwise kernel needs AVX-512 VNNI";
  OpTest t;
  const int c = 24, h = 9, w = 7;
  auto x = RandomInts<int8_t>(static_cast<size_t>(h * w * c), -128, 127, 8);
  const auto wt = RandomInts<int32_t>(static_cast<size_t>(25 * c), -127, 127, 9);
  const int in = t.Input<int8_t>({1, h, w, c}, x);
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.02f, 3);
  const int filter = StoredConstant(t, {1, 5, 5, c}, wt,
                                    Quant(std::vector<float>(c, 0.003f), std::vector<int64_t>(c, 0), 3, DataType::kInt8));
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.05f, -1);
  DepthwiseConv2dAttributes a;
  a.padding = Padding::kSame;
  a.depth_multiplier = 1;
  t.Node(OpType::kDepthwiseConv2d, {in, filter}, {out}, a);
  GLD_ASSERT_OK(t.RunPrepared(1, 1));
  const auto* s = dynamic_cast<const cpu::Int8DepthwiseState*>(t.states[0].get());
  ASSERT_NE(s, nullptr);
  const size_t bytes = static_cast<size_t>(h * w * c);
  std::vector<int8_t> whole(bytes), rows(bytes);
  cpu::Int8DepthwiseRows(x.data(), *s, 0, h, whole.data(), cpu::NewInt8DepthwiseLoop());
  uint64_t loop = cpu::NewInt8DepthwiseLoop();
  for (int r = h - 1; r >= 0; --r) cpu::Int8DepthwiseRows(x.data(), *s, r, r + 1, rows.data(), loop);
  EXPECT_EQ(rows, whole);
  for (int8_t& v : x) v = static_cast<int8_t>(v ^ 0x55);
  std::vector<int8_t> changed(bytes);
  cpu::Int8DepthwiseRows(x.data(), *s, 0, h, changed.data(), cpu::NewInt8DepthwiseLoop());
  EXPECT_NE(changed, whole);
  loop = cpu::NewInt8DepthwiseLoop();
  for (int r = 0; r < h; r += 2) cpu::Int8DepthwiseRows(x.data(), *s, r, std::min(h, r + 2), rows.data(), loop);
  EXPECT_EQ(rows, changed);
}

TEST(IntegerKernels, FullyConnectedPerTensorUint8) {
  OpTest t;
  const int n = 7, k = 19, rows = 3;
  const auto x = RandomInts<uint8_t>(rows * k, 0, 255, 6);
  const auto w = RandomInts<int32_t>(n * k, 0, 255, 7);
  const auto b = RandomInts<int32_t>(n, -2000, 2000, 8);
  const float xs = 0.02f, wsc = 0.01f, os = 0.1f;
  const int in = t.Input<uint8_t>({rows, k}, x);
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(xs, 128);
  const int weights = StoredConstant(t, {n, k}, w, Quant(wsc, 120, DataType::kUInt8));
  const int bias = StoredConstant(t, {n}, b, Quant(xs * wsc, 0, DataType::kInt32));
  const int out = t.Output(DataType::kUInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, 100);
  FullyConnectedAttributes a;
  a.activation = Activation::kRelu;
  t.Node(OpType::kFullyConnected, {in, weights, bias}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  std::vector<double> real;
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < n; ++j) {
      int64_t acc = b[static_cast<size_t>(j)];
      for (int i = 0; i < k; ++i) {
        acc += (x[static_cast<size_t>(r * k + i)] - 128) * static_cast<int64_t>(w[static_cast<size_t>(j * k + i)] - 120);
      }
      real.push_back(static_cast<double>(acc) * xs * wsc);
    }
  }
  ExpectRequantized(t.Get<uint8_t>(out), real, os, 100, 100, 255);
}

TEST(IntegerKernels, AddSubMulBroadcastInt8) {
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul}) {
    OpTest t;
    const auto a = RandomInts<int8_t>(2 * 3 * 4, -128, 127, 9);
    const auto b = RandomInts<int8_t>(4, -128, 127, 10);
    const float as = 0.05f, bs = 0.03f, os = op == OpType::kMul ? 0.3f : 0.08f;
    const int ia = t.Input<int8_t>({2, 3, 4}, a);
    t.graph.tensors[static_cast<size_t>(ia)].quant = Quant(as, 1);
    const int ib = t.Input<int8_t>({4}, b);
    t.graph.tensors[static_cast<size_t>(ib)].quant = Quant(bs, -4);
    const int out = t.Output(DataType::kInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, 6);
    t.Node(op, {ia, ib}, {out}, BinaryAttributes{});
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr) << OpTypeName(op);
    GLD_ASSERT_OK(t.RunPrepared());
    std::vector<double> real;
    for (size_t i = 0; i < a.size(); ++i) {
      const double ra = (a[i] - 1) * static_cast<double>(as), rb = (b[i % 4] + 4) * static_cast<double>(bs);
      real.push_back(op == OpType::kAdd ? ra + rb : op == OpType::kSub ? ra - rb : ra * rb);
    }
    // XNNPACK's ADD and SUB scale each operand by a fixed-point multiplier
    // of limited precision (LiteRT's default kernels do the same): a step
    // away more often than float requantization.
    ExpectRequantized(t.Get<int8_t>(out), real, os, 6, -128, 127, op == OpType::kMul ? 0.99 : 0.7);
  }
}

TEST(IntegerKernels, MeanOverSpatialAxesInt8) {
  OpTest t;
  const auto x = RandomInts<int8_t>(2 * 4 * 5 * 3, -128, 127, 11);
  const int in = t.Input<int8_t>({2, 4, 5, 3}, x);
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.1f, -3);
  const int axes = t.Const<int32_t>({2}, {2, 1});
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.02f, 2);
  ReduceAttributes a;
  a.keep_dims = true;
  t.Node(OpType::kMean, {in, axes}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  EXPECT_EQ(t.ShapeOf(out), (Shape{2, 1, 1, 3}));
  std::vector<double> real;
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 3; ++c) {
      double sum = 0;
      for (int p = 0; p < 20; ++p) sum += x[static_cast<size_t>((b * 20 + p) * 3 + c)] + 3;
      real.push_back(sum / 20 * 0.1);
    }
  }
  ExpectRequantized(t.Get<int8_t>(out), real, 0.02f, 2, -128, 127);
}

TEST(IntegerKernels, MaxPoolInt8AndUint8AreExact) {
  for (bool int8 : {true, false}) {
    OpTest t;
    const auto raw = RandomInts<int>(2 * 7 * 6 * 5, int8 ? -128 : 0, int8 ? 127 : 255, 31);
    int in = -1;
    if (int8) {
      in = t.Input<int8_t>({2, 7, 6, 5}, std::vector<int8_t>(raw.begin(), raw.end()));
    } else {
      in = t.Input<uint8_t>({2, 7, 6, 5}, std::vector<uint8_t>(raw.begin(), raw.end()));
    }
    const int zp = int8 ? -10 : 118;
    t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.05f, zp);
    const int out = t.Output(int8 ? DataType::kInt8 : DataType::kUInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.05f, zp);
    Pool2dAttributes a;
    a.padding = Padding::kSame;
    a.filter_h = a.filter_w = 3;
    a.stride_h = a.stride_w = 2;
    a.activation = Activation::kRelu6;
    t.Node(OpType::kMaxPool2d, {in}, {out}, a);
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.RunPrepared());
    ASSERT_EQ(t.ShapeOf(out), (Shape{2, 4, 3, 5}));
    const int lo = zp, hi = zp + static_cast<int>(std::round(6.0f / 0.05f));
    std::vector<int> got;
    if (int8) {
      for (int8_t v : t.Get<int8_t>(out)) got.push_back(v);
    } else {
      for (uint8_t v : t.Get<uint8_t>(out)) got.push_back(v);
    }
    size_t i = 0;
    for (int n = 0; n < 2; ++n) {
      for (int oy = 0; oy < 4; ++oy) {
        for (int ox = 0; ox < 3; ++ox) {
          for (int c = 0; c < 5; ++c, ++i) {
            int m = -1000;
            for (int fy = 0; fy < 3; ++fy) {
              for (int fx = 0; fx < 3; ++fx) {
                // SAME: 7 rows -> 4 (padding 1 on top... total (4-1)*2+3-7 = 2), 6 columns -> 3 (total 1, none left)
                const int iy = oy * 2 - 1 + fy, ix = ox * 2 + fx;
                if (iy < 0 || iy >= 7 || ix < 0 || ix >= 6) continue;
                m = std::max(m, raw[static_cast<size_t>(((n * 7 + iy) * 6 + ix) * 5 + c)]);
              }
            }
            ASSERT_EQ(got[i], std::min(std::max(m, lo), hi)) << (int8 ? "int8" : "uint8") << " element " << i;
          }
        }
      }
    }
  }
}

TEST(IntegerKernels, LogisticAndTanhOnTfliteGrids) {
  for (bool logistic : {true, false}) {
    OpTest t;
    std::vector<int8_t> x(256);
    for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
    const int in = t.Input<int8_t>({4, 64}, x);
    t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.06f, 3);
    const int out = t.Output(DataType::kInt8);
    const float os = logistic ? 1.f / 256 : 1.f / 128;
    const int oz = logistic ? -128 : 0;
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(os, oz);
    t.Node(logistic ? OpType::kLogistic : OpType::kTanh, {in}, {out});
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.RunPrepared());
    std::vector<double> real;
    for (int8_t v : x) {
      const double r = (v - 3) * 0.06;
      real.push_back(logistic ? 1 / (1 + std::exp(-r)) : std::tanh(r));
    }
    ExpectRequantized(t.Get<int8_t>(out), real, os, oz, -128, 127);
  }
  // Another output grid: the float view.
  OpTest t;
  const int in = t.Input<int8_t>({4}, std::vector<int8_t>{1, 2, 3, 4});
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.06f, 3);
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.01f, 0);
  t.Node(OpType::kLogistic, {in}, {out});
  EXPECT_EQ(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
}

// What the integer kernels do not take stays on the float view.
TEST(IntegerKernels, RefusesWhatTheyDoNotTake) {
  OpTest t;
  const int in = t.Input<int8_t>({1, 4}, std::vector<int8_t>{1, 2, 3, 4});
  t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.1f, 0);
  // Weights with a nonzero zero point (int8 weights must be symmetric).
  const int w = StoredConstant(t, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}, Quant(0.1f, 3, DataType::kInt8));
  const int out = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.1f, 0);
  t.Node(OpType::kFullyConnected, {in, w}, {out}, FullyConnectedAttributes{});
  EXPECT_EQ(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  // A fused activation that is not a clamp.
  FullyConnectedAttributes tanh;
  tanh.activation = Activation::kTanh;
  t.graph.tensors[static_cast<size_t>(w)].quant.zero_point = {0};
  t.graph.nodes[0].attributes = tanh;
  EXPECT_EQ(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  t.graph.nodes[0].attributes = FullyConnectedAttributes{};
  EXPECT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  // A requantization scale of 1 or more (XNNPACK's operators refuse it).
  t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.01f, 0);
  EXPECT_EQ(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
}

// The 1x1 GEMM (cpu::PackInt8Gemm, Int8GemmItems) against a plain one:
// every output QC8's requantization of the exact sum, for depths that are
// not multiples of 4, channel counts around a panel's halves (32 a panel)
// and the fused pairs of rows of up to 8 channels (odd row counts leave a
// pair half empty), scales large enough that the product leaves int32 (the
// clamp before rounding); and any cut of the items (row blocks times
// panels) into consecutive runs gives the bytes of one call over every row.
TEST(IntegerKernels, Int8GemmItemsMatchAPlainGemmInAnyRuns) {
  const cpu::ScopedOwnInt8Gemm own(true);  // the ARM tiles too, off by default there
  if (!cpu::HasInt8Gemm()) GTEST_SKIP() << "no int8 GEMM form here (AVX-512 VNNI or AArch64 NEON)";
  struct Case {
    int64_t rows, k, n;
    float scale;  // of channel 0; the others a little above
    bool clamps;  // clamp_in_float expected
  };
  const Case cases[] = {
      {21, 13, 100, 0.002f, false},  // 3 row blocks (the last of 5), 4 panels (the last of 4)
      {19, 16, 8, 0.004f, false},    // fused pairs, the last row alone
      {9, 3, 5, 0.01f, false},       // fused, a depth of 3
      {1, 20, 7, 0.01f, false},      // one row, fused
      {36, 12, 16, 0.003f, false},   // a half panel
      {17, 72, 20, 0.002f, false},   // a whole panel of 20
      {11, 9, 48, 0.003f, false},    // a panel and a half
      {13, 40, 37, 3000.f, true},    // sums times scales beyond int32
      {10, 8, 6, 30000.f, true},     // the same, fused
  };
  int seed = 30;
  for (const Case& c : cases) {
    const auto w = RandomInts<int8_t>(static_cast<size_t>(c.n * c.k), -127, 127, ++seed);
    const auto b = RandomInts<int32_t>(static_cast<size_t>(c.n), -4000, 4000, ++seed);
    const auto x = RandomInts<int8_t>(static_cast<size_t>(c.rows * c.k + 64), -128, 127, ++seed);  // 64: slack
    std::vector<float> scale(static_cast<size_t>(c.n));
    for (int64_t o = 0; o < c.n; ++o) scale[static_cast<size_t>(o)] = c.scale * (1.f + 0.05f * static_cast<float>(o % 9));
    const int32_t xz = 3, oz = -5, lo = -128, hi = 127;
    cpu::Int8GemmWeights p;
    ASSERT_TRUE(cpu::PackInt8Gemm(w.data(), c.n, c.k, b.data(), xz, scale.data(), oz, lo, hi, &p));
    EXPECT_EQ(p.clamp_in_float, c.clamps) << "case " << (&c - cases);
    std::vector<int8_t> want(static_cast<size_t>(c.rows * c.n));
    for (int64_t r = 0; r < c.rows; ++r) {
      for (int64_t o = 0; o < c.n; ++o) {
        int64_t acc = b[static_cast<size_t>(o)];
        for (int64_t i = 0; i < c.k; ++i) {
          acc += (x[static_cast<size_t>(r * c.k + i)] - xz) * static_cast<int64_t>(w[static_cast<size_t>(o * c.k + i)]);
        }
        float f = static_cast<float>(acc) * scale[static_cast<size_t>(o)];
        f = std::min(std::max(f, static_cast<float>(lo - oz)), static_cast<float>(hi - oz));
        want[static_cast<size_t>(r * c.n + o)] = static_cast<int8_t>(std::nearbyint(f) + oz);
      }
    }
    std::vector<int8_t> whole(want.size(), 0x55);
    cpu::Int8GemmRows(x.data(), c.rows, p, whole.data());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(whole[i], want[i]) << "case " << (&c - cases) << " row " << i / c.n << " channel " << i % c.n;
    }
    const int64_t items = cpu::Int8GemmItemCount(c.rows, p);
    // Two runs cut anywhere, and runs of every length.
    for (int64_t cut = 0; cut <= items; ++cut) {
      std::vector<int8_t> y(want.size(), 0x55);
      cpu::Int8GemmItems(x.data(), c.rows, p, 0, cut, y.data());
      cpu::Int8GemmItems(x.data(), c.rows, p, cut, items, y.data());
      ASSERT_EQ(y, want) << "case " << (&c - cases) << ", cut at item " << cut;
    }
    for (int64_t len = 1; len <= items; ++len) {
      std::vector<int8_t> y(want.size(), 0x55);
      for (int64_t i = 0; i < items; i += len) {
        cpu::Int8GemmItems(x.data(), c.rows, p, i, std::min(items, i + len), y.data());
      }
      ASSERT_EQ(y, want) << "case " << (&c - cases) << ", runs of " << len << " items";
    }
  }
}

// The convolution path of the GEMM (cpu::PackInt8Conv, Int8ConvPixels):
// windows inside the input read in place, one run per window row (or per
// tap where dilated), the others gathered with the zero point as padding.
// Every output equals QC8's requantization of the exact sum, whatever the
// window, and any cut of the pixels into ranges gives the same bytes.
TEST(IntegerKernels, Int8ConvPixelsMatchAPlainConvolution) {
  if (!cpu::HasInt8Gemm()) GTEST_SKIP() << "no AVX-512 VNNI";
  struct Case {
    int64_t batch, ih, iw, ic, oc, kh, kw, sh, sw, dh, dw, pad_t, pad_l, oh, ow;
  };
  const Case cases[] = {
      {1, 17, 19, 3, 16, 3, 3, 2, 2, 1, 1, 0, 0, 8, 9},    // a stem: runs of 9, all padding after
      {2, 9, 11, 3, 20, 3, 3, 2, 2, 1, 1, 1, 1, 5, 6},     // padding on every side, two images
      {1, 7, 13, 5, 37, 3, 3, 1, 1, 1, 1, 1, 1, 7, 13},    // runs of 15, 37 channels (a half panel)
      {1, 10, 12, 8, 8, 3, 3, 1, 1, 2, 2, 2, 2, 10, 12},   // dilated: one run per tap
      {1, 9, 14, 6, 12, 2, 3, 1, 2, 2, 1, 0, 1, 7, 7},     // dilated rows, kw x ic = 18
      {1, 6, 7, 16, 48, 1, 1, 2, 2, 1, 1, 0, 0, 3, 4},     // a strided 1x1 layer
      {1, 5, 5, 4, 33, 5, 5, 1, 1, 1, 1, 2, 2, 5, 5},      // no window wholly inside a row's... few inside
      {1, 3, 3, 7, 9, 3, 3, 1, 1, 1, 1, 0, 0, 1, 1},       // one pixel, a valid window
  };
  int seed = 100;
  for (const Case& c : cases) {
    const cpu::Int8Window g{c.batch, c.ih, c.iw, c.ic, c.oh, c.ow, c.kh, c.kw, c.sh, c.sw, c.dh, c.dw,
                            c.pad_t, c.pad_l, static_cast<int8_t>(-9)};
    const int32_t xz = g.pad_value, oz = 6, lo = -100, hi = 120;
    const int64_t k = c.kh * c.kw * c.ic, in_size = c.batch * c.ih * c.iw * c.ic;
    const auto w = RandomInts<int8_t>(static_cast<size_t>(c.oc * k), -127, 127, ++seed);
    const auto b = RandomInts<int32_t>(static_cast<size_t>(c.oc), -3000, 3000, ++seed);
    auto x = RandomInts<int8_t>(static_cast<size_t>(in_size + 64), -128, 127, ++seed);  // 64: a buffer's slack
    std::vector<float> scale(static_cast<size_t>(c.oc));
    for (int64_t o = 0; o < c.oc; ++o) scale[static_cast<size_t>(o)] = 0.003f + 0.0004f * static_cast<float>(o % 7);
    cpu::Int8GemmWeights p;
    ASSERT_TRUE(cpu::PackInt8Conv(w.data(), c.oc, g, b.data(), xz, scale.data(), oz, lo, hi, &p));
    const int64_t pixels = c.batch * c.oh * c.ow;
    std::vector<int8_t> want(static_cast<size_t>(pixels * c.oc));
    for (int64_t pix = 0; pix < pixels; ++pix) {
      const int64_t n = pix / (c.oh * c.ow), oy = pix / c.ow % c.oh, ox = pix % c.ow;
      for (int64_t o = 0; o < c.oc; ++o) {
        int64_t acc = b[static_cast<size_t>(o)];
        for (int64_t fy = 0; fy < c.kh; ++fy) {
          for (int64_t fx = 0; fx < c.kw; ++fx) {
            const int64_t iy = oy * c.sh - c.pad_t + fy * c.dh, ix = ox * c.sw - c.pad_l + fx * c.dw;
            const bool inside = iy >= 0 && iy < c.ih && ix >= 0 && ix < c.iw;
            for (int64_t i = 0; i < c.ic; ++i) {
              const int64_t v = inside ? x[static_cast<size_t>(((n * c.ih + iy) * c.iw + ix) * c.ic + i)] : xz;
              acc += (v - xz) * w[static_cast<size_t>(((o * c.kh + fy) * c.kw + fx) * c.ic + i)];
            }
          }
        }
        float f = static_cast<float>(acc) * scale[static_cast<size_t>(o)];
        f = std::min(std::max(f, static_cast<float>(lo - oz)), static_cast<float>(hi - oz));
        want[static_cast<size_t>(pix * c.oc + o)] = static_cast<int8_t>(std::nearbyint(f) + oz);
      }
    }
    // The whole map, then cuts into ranges of every length up to 13 pixels.
    std::vector<int8_t> scratch;
    std::vector<int8_t> y(want.size(), 0x55);
    cpu::Int8ConvPixels(x.data(), 0, pixels, p, y.data(), &scratch);
    for (size_t i = 0; i < y.size(); ++i) {
      ASSERT_EQ(y[i], want[i]) << "case " << (&c - cases) << " pixel " << i / c.oc << " channel " << i % c.oc;
    }
    for (int64_t len = 1; len <= 13; ++len) {
      std::vector<int8_t> cut(want.size(), 0x55);
      for (int64_t p0 = 0; p0 < pixels; p0 += len) {
        cpu::Int8ConvPixels(x.data(), p0, std::min(pixels, p0 + len), p, cut.data(), &scratch);
      }
      ASSERT_EQ(cut, want) << "case " << (&c - cases) << ", ranges of " << len << " pixels";
    }
  }
}

// Each integer layer of the networks' kinds gives the same bytes on 1, 2 and
// 3 threads, on maps as small as the networks' last (6x6), where the work
// splits by output channels or by few rows: the 1x1 GEMM (36 rows, 5
// panels), a fully connected layer of one row, the gathered 3x3
// convolution, the 5x5 and 3x3 depthwise kernels.
TEST(IntegerKernels, LayersGiveTheSameBytesOnOneTwoAndThreeThreads) {
  enum Kind { kPointwise, kFullyConnected, kGathered, kDepthwise5, kDepthwise3 };
  for (Kind kind : {kPointwise, kFullyConnected, kGathered, kDepthwise5, kDepthwise3}) {
    std::vector<int8_t> first;
    for (int threads : {1, 2, 3}) {
      OpTest t;
      const bool depthwise = kind == kDepthwise5 || kind == kDepthwise3;
      const int ic = depthwise ? 72 : 24, oc = depthwise ? 72 : kind == kFullyConnected ? 100 : 144;
      const int kh = kind == kDepthwise5 ? 5 : kind == kGathered || kind == kDepthwise3 ? 3 : 1;
      const Shape in_shape = kind == kFullyConnected ? Shape{1, ic} : Shape{1, 6, 6, ic};
      const auto x = RandomInts<int8_t>(static_cast<size_t>(NumElements(in_shape)), -128, 127, 41);
      const int in = t.Input<int8_t>(in_shape, x);
      t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.02f, 4);
      const Shape w_shape = kind == kFullyConnected ? Shape{oc, ic}
                            : depthwise             ? Shape{1, kh, kh, oc}
                                                    : Shape{oc, kh, kh, ic};
      const auto w = RandomInts<int32_t>(static_cast<size_t>(NumElements(w_shape)), -127, 127, 42);
      std::vector<float> ws(static_cast<size_t>(oc)), bs(static_cast<size_t>(oc));
      for (int c = 0; c < oc; ++c) {
        ws[static_cast<size_t>(c)] = 0.0005f * static_cast<float>(c % 7 + 1);
        bs[static_cast<size_t>(c)] = 0.02f * ws[static_cast<size_t>(c)];
      }
      const int filter = StoredConstant(t, w_shape, w, Quant(ws, std::vector<int64_t>(static_cast<size_t>(oc), 0),
                                                             depthwise ? 3 : 0, DataType::kInt8));
      const int bias = StoredConstant(t, {oc}, RandomInts<int32_t>(static_cast<size_t>(oc), -3000, 3000, 43),
                                      Quant(bs, std::vector<int64_t>(static_cast<size_t>(oc), 0), 0, DataType::kInt32));
      const int out = t.Output(DataType::kInt8);
      t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.05f, -3);
      if (kind == kFullyConnected) {
        t.Node(OpType::kFullyConnected, {in, filter, bias}, {out}, FullyConnectedAttributes{});
      } else if (depthwise) {
        DepthwiseConv2dAttributes a;
        a.padding = Padding::kSame;
        t.Node(OpType::kDepthwiseConv2d, {in, filter, bias}, {out}, a);
      } else {
        Conv2dAttributes a;
        a.padding = Padding::kSame;
        a.activation = Activation::kRelu6;
        t.Node(OpType::kConv2d, {in, filter, bias}, {out}, a);
      }
      ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr) << "kind " << kind;
      GLD_ASSERT_OK(t.RunPrepared(threads));
      const std::vector<int8_t> got = t.Get<int8_t>(out);
      if (threads == 1) {
        first = got;
        continue;
      }
      ASSERT_EQ(got, first) << "kind " << kind << " on " << threads << " threads";
    }
  }
}

// The runtime splits an integer step across threads from
// cpu::kIntegerParallelMinWork of estimated work; an integer layer's
// estimate follows its kernel's speed (node_work.cc): a 1x1 GEMM an eighth
// of its lanes' multiply-adds and two per output, a gathered convolution
// half its multiply-adds, a depthwise convolution half. MobileNetV2's
// 24x24x48 3x3 depthwise layer (6.4 us on one thread), its 24x24 8 -> 48
// 1x1 layer (3.7 us) and its 6x6 32 -> 192 1x1 layer (1.6 us) split; its
// 6x6 144 -> 24 1x1 layer (0.9 us) does not.
TEST(IntegerKernels, EstimatedWorkFollowsTheKernelsSpeed) {
  struct Layer {
    OpType op;
    int hw, ic, oc, k;
  };
  auto work = [](const Layer& l) -> int64_t {
    OpTest t;
    const int in = t.Input<int8_t>({1, l.hw, l.hw, l.ic}, std::vector<int8_t>(static_cast<size_t>(l.hw * l.hw * l.ic)));
    t.graph.tensors[static_cast<size_t>(in)].quant = Quant(0.02f, 0);
    const bool dw = l.op == OpType::kDepthwiseConv2d;
    const Shape w_shape = dw ? Shape{1, l.k, l.k, l.oc} : Shape{l.oc, l.k, l.k, l.ic};
    const int filter = StoredConstant(t, w_shape, std::vector<int32_t>(static_cast<size_t>(NumElements(w_shape)), 1),
                                      Quant(0.01f, 0, DataType::kInt8));
    const int out = t.Output(DataType::kInt8);
    t.graph.tensors[static_cast<size_t>(out)].quant = Quant(0.05f, 0);
    if (dw) {
      DepthwiseConv2dAttributes a;
      a.padding = Padding::kSame;
      t.Node(l.op, {in, filter}, {out}, a);
    } else {
      Conv2dAttributes a;
      a.padding = Padding::kSame;
      t.Node(l.op, {in, filter}, {out}, a);
    }
    EXPECT_TRUE(InferShapes(t.graph, cpu::KnownValueOracle()).ok());
    EXPECT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    return cpu::EstimateNodeWork(t.graph, 0);
  };
  const int64_t macs = 24 * 24 * 48 * 9;
  EXPECT_EQ(work({OpType::kDepthwiseConv2d, 24, 48, 48, 3}), macs / 2);
  EXPECT_EQ(work({OpType::kConv2d, 24, 1, 48, 3}), macs / 2);  // gathered 3x3 windows of one channel
  // 576 rows; 8 channels are computed as 16, a depth of 9 as 12.
  EXPECT_EQ(work({OpType::kConv2d, 24, 9, 8, 1}), 576 * 16 * 12 / 8 + 576 * 8 * 2);
  EXPECT_GE(work({OpType::kDepthwiseConv2d, 24, 48, 48, 3}), cpu::kIntegerParallelMinWork);
  EXPECT_GE(work({OpType::kConv2d, 24, 8, 48, 1}), cpu::kIntegerParallelMinWork);
  EXPECT_GE(work({OpType::kConv2d, 6, 32, 192, 1}), cpu::kIntegerParallelMinWork);
  EXPECT_LT(work({OpType::kConv2d, 6, 144, 24, 1}), cpu::kIntegerParallelMinWork);
}

// A step goes on the pool from its kernel's bar: an integer layer from
// cpu::kIntegerParallelMinWork (integer_kernels.h), a float one from
// cpu::kParallelMinWork. Two 24x24 1x1 layers whose estimates lie between
// the bars: MobileNetV2's int8 48 -> 8 layer splits,
// a float32 12 -> 8 layer stays on the calling thread.
TEST(IntegerKernels, IntegerStepsSplitFromTheirOwnBar) {
  OpTest q;
  const int qin = q.Input<int8_t>({1, 24, 24, 48}, std::vector<int8_t>(24 * 24 * 48));
  q.graph.tensors[static_cast<size_t>(qin)].quant = Quant(0.02f, 0);
  const int qw = StoredConstant(q, {8, 1, 1, 48}, std::vector<int32_t>(8 * 48, 1), Quant(0.01f, 0, DataType::kInt8));
  const int qout = q.Output(DataType::kInt8);
  q.graph.tensors[static_cast<size_t>(qout)].quant = Quant(0.05f, 0);
  OpTest f;
  const int fin = f.Input<float>({1, 24, 24, 12}, std::vector<float>(24 * 24 * 12));
  const int fw = f.Const<float>({8, 1, 1, 12}, std::vector<float>(8 * 12, 0.5f));
  const int fout = f.Output();
  Conv2dAttributes a;
  a.padding = Padding::kSame;
  q.Node(OpType::kConv2d, {qin, qw}, {qout}, a);
  f.Node(OpType::kConv2d, {fin, fw}, {fout}, a);
  for (OpTest* t : {&q, &f}) {
    ASSERT_TRUE(InferShapes(t->graph, cpu::KnownValueOracle()).ok());
    const int64_t work = cpu::EstimateNodeWork(t->graph, 0);
    EXPECT_GE(work, cpu::kIntegerParallelMinWork);
    EXPECT_LT(work, cpu::kParallelMinWork);
  }
  ASSERT_NE(cpu::FindIntegerKernel(q.graph, q.graph.nodes[0]), nullptr);
  ASSERT_EQ(cpu::FindIntegerKernel(f.graph, f.graph.nodes[0]), nullptr);
  EXPECT_FALSE(CpuNodeStep(q.graph, 0, cpu::FindCpuKernel(OpType::kConv2d)).serial());
  EXPECT_TRUE(CpuNodeStep(f.graph, 0, cpu::FindCpuKernel(OpType::kConv2d)).serial());
}

TEST(IntegerKernels, StoredIntegersComeBackExactly) {
  OpTest t;
  const std::vector<int32_t> stored{-127, -1, 0, 1, 127, 100000, -5000000};
  const int c = StoredConstant(t, {7}, stored, Quant(0.0123f, 0, DataType::kInt32));
  std::vector<int32_t> back;
  ASSERT_TRUE(cpu::StoredIntegers(t.graph.tensors[static_cast<size_t>(c)], &back));
  EXPECT_EQ(back, stored);
  // Values off the grid are refused.
  Tensor off = t.graph.tensors[static_cast<size_t>(c)];
  std::vector<float> v{0.5f, 0, 0, 0, 0, 0, 0};
  off.data = ConstantData::CopyOf(v.data(), v.size() * sizeof(float));
  EXPECT_FALSE(cpu::StoredIntegers(off, &back));
}

// The packing's layout, element by element as PackRuns first wrote it: row c
// ([groups][group_len] values) of `tile_n` channels into lane L of its
// panel, value i of run g at byte ((panel x k4 / 4 + kk / 4) x 32 + L) x 4 +
// kk % 4, kk = g x steps x 4 + i; bias and scale in lane order. The x86
// tiles' lanes of a whole panel are permuted and their rows hold x + 128;
// the ARM tiles' lanes are in order and their rows hold x.
void FormerPacking(const std::vector<int8_t>& w, const std::vector<int32_t>& bias, const std::vector<float>& scale,
                   int32_t xz, const cpu::Int8GemmWeights& p, std::vector<int8_t>* packed,
                   std::vector<int32_t>* packed_bias, std::vector<float>* packed_scale) {
  const int64_t n = p.tile_n, k = p.groups * p.group_len;
  const bool x86 = cpu::CompiledInt8GemmForm() == cpu::Int8GemmForm::kX86Vnni;
  const int64_t input_bias = x86 ? 128 : 0;
  packed->assign(static_cast<size_t>(p.panels * p.k4 * 32), 0);
  packed_bias->assign(static_cast<size_t>(p.panels * 32), 0);
  packed_scale->assign(static_cast<size_t>(p.panels * 32), 0.f);
  for (int64_t c = 0; c < n; ++c) {
    const int64_t panel = c / 32, j = c % 32;
    const int64_t lane = x86 && n - panel * 32 > 16 ? j % 8 / 4 * 16 + j / 8 * 4 + j % 4 : j;
    int64_t sum = 0;
    for (int64_t i = 0; i < k; ++i) {
      const int8_t v = w[static_cast<size_t>(c * k + i)];
      sum += v;
      const int64_t kk = i / p.group_len * p.steps * 4 + i % p.group_len;
      (*packed)[static_cast<size_t>(((panel * (p.k4 / 4) + kk / 4) * 32 + lane) * 4 + kk % 4)] = v;
    }
    (*packed_bias)[static_cast<size_t>(panel * 32 + lane)] =
        static_cast<int32_t>(bias[static_cast<size_t>(c)] - (input_bias + int64_t{xz}) * sum);
    (*packed_scale)[static_cast<size_t>(panel * 32 + lane)] = scale[static_cast<size_t>(c)];
  }
}

// PackInt8Gemm and PackInt8Conv lay the weights out byte for byte as the
// former per-element packing did: 1x1 layers around a panel's halves, fused
// pairs (the block-diagonal rows of two), runs per window row and per tap,
// depths that are not multiples of 4.
TEST(IntegerKernels, Int8GemmPackingKeepsItsLayout) {
  struct Case {
    int64_t n, kh, kw, ic, dw;  // kh = 0: a 1x1 layer of depth ic
  };
  const Case cases[] = {{100, 0, 0, 13, 1}, {5, 0, 0, 3, 1},   {8, 0, 0, 16, 1},  {16, 0, 0, 12, 1},
                        {20, 0, 0, 72, 1},  {48, 0, 0, 9, 1},  {37, 3, 3, 5, 1},  {16, 3, 3, 3, 1},
                        {8, 3, 3, 8, 2},    {12, 2, 3, 6, 1},  {33, 5, 5, 4, 1},  {64, 1, 7, 10, 3}};
  int seed = 500;
  for (const Case& c : cases) {
    const int64_t k = c.kh == 0 ? c.ic : c.kh * c.kw * c.ic;
    const auto w = RandomInts<int8_t>(static_cast<size_t>(c.n * k), -128, 127, ++seed);
    const auto b = RandomInts<int32_t>(static_cast<size_t>(c.n), -4000, 4000, ++seed);
    std::vector<float> scale(static_cast<size_t>(c.n));
    for (size_t o = 0; o < scale.size(); ++o) scale[o] = 0.001f * static_cast<float>(o + 1);
    const int32_t xz = -7;
    cpu::Int8GemmWeights p;
    if (c.kh == 0) {
      ASSERT_TRUE(cpu::PackInt8Gemm(w.data(), c.n, k, b.data(), xz, scale.data(), 2, -128, 127, &p));
    } else {
      const cpu::Int8Window g{1, 20, 30, c.ic, 18, 8, c.kh, c.kw, 1, 1, 1, c.dw, 0, 0, 0};
      ASSERT_TRUE(cpu::PackInt8Conv(w.data(), c.n, g, b.data(), xz, scale.data(), 2, -128, 127, &p));
    }
    // The rows PackRuns took: fused ones block-diagonal (two rows of k side
    // by side, each with its channels' copy).
    std::vector<int8_t> rows = w;
    std::vector<int32_t> bias = b;
    std::vector<float> scales = scale;
    if (p.fuse == 2) {
      rows.assign(static_cast<size_t>(4 * c.n * k), 0);
      bias.assign(static_cast<size_t>(2 * c.n), 0);
      scales.assign(static_cast<size_t>(2 * c.n), 0.f);
      for (int64_t h = 0; h < 2; ++h) {
        for (int64_t o = 0; o < c.n; ++o) {
          std::copy_n(w.begin() + o * k, k, rows.begin() + ((h * c.n + o) * 2 * k + h * k));
          bias[static_cast<size_t>(h * c.n + o)] = b[static_cast<size_t>(o)];
          scales[static_cast<size_t>(h * c.n + o)] = scale[static_cast<size_t>(o)];
        }
      }
    }
    std::vector<int8_t> want;
    std::vector<int32_t> want_bias;
    std::vector<float> want_scale;
    FormerPacking(rows, bias, scales, xz, p, &want, &want_bias, &want_scale);
    const size_t skip = (64 - reinterpret_cast<uintptr_t>(p.w.data()) % 64) % 64;
    ASSERT_GE(p.w.size(), skip + want.size());
    EXPECT_TRUE(std::equal(want.begin(), want.end(), p.w.begin() + static_cast<std::ptrdiff_t>(skip)))
        << "case " << (&c - cases);
    EXPECT_EQ(p.bias, want_bias) << "case " << (&c - cases);
    EXPECT_EQ(p.scale, want_scale) << "case " << (&c - cases);
  }
}

// Per-channel constants (the channel axis first or last) come back as they
// were stored, in each of the three forms; one value off the grid refuses
// every form.
TEST(IntegerKernels, StoredIntegersPerChannelInEveryForm) {
  for (int32_t dim : {0, 3}) {
    OpTest t;
    const Shape shape{6, 3, 2, 19};  // 19 along the last axis: two vectors of 8 and 3
    const int64_t channels = shape[static_cast<size_t>(dim)];
    const auto stored = RandomInts<int32_t>(6 * 3 * 2 * 19, -127, 127, 40 + static_cast<uint32_t>(dim));
    std::vector<float> scales;
    for (int64_t ch = 0; ch < channels; ++ch) scales.push_back(0.0031f * static_cast<float>(ch + 1) + 0.0007f);
    const int c = StoredConstant(t, shape, stored, Quant(scales, std::vector<int64_t>(scales.size(), 0), dim,
                                                         DataType::kInt8));
    const Tensor& tensor = t.graph.tensors[static_cast<size_t>(c)];
    std::vector<int32_t> back;
    std::vector<int8_t> bytes;
    ASSERT_TRUE(cpu::StoredIntegers(tensor, &back));
    ASSERT_TRUE(cpu::StoredIntegers(tensor, &bytes));
    EXPECT_EQ(back, stored) << "dim " << dim;
    EXPECT_EQ(std::vector<int32_t>(bytes.begin(), bytes.end()), stored) << "dim " << dim;
    Tensor off = tensor;
    std::vector<float> v(tensor.DataAs<float>(), tensor.DataAs<float>() + stored.size());
    v[37] = std::nextafter(v[37], 1e9f);
    off.data = ConstantData::CopyOf(v.data(), v.size() * sizeof(float));
    EXPECT_FALSE(cpu::StoredIntegers(off, &back));
    EXPECT_FALSE(cpu::StoredIntegers(off, &bytes));
  }
}

// StoredIntegers against the plain rule (round(v / scale) + zp with
// std::nearbyint, decoded again with DequantizeAffine's arithmetic) on
// constants of 8-bit and 32-bit integers, random scales and zero points,
// some with one value moved off the grid by an ulp or onto a half step:
// the same answer, and the same integers where it is yes.
TEST(IntegerKernels, StoredIntegersFollowThePlainRule) {
  std::mt19937 rng(77);
  int yes = 0, no = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const bool wide = trial % 4 == 3;
    const double scale = std::ldexp(1.0 + std::uniform_real_distribution<double>(0, 1)(rng),
                                    std::uniform_int_distribution<int>(-20, 3)(rng));
    const float fscale = static_cast<float>(scale);
    const int64_t zp = wide ? 0 : std::uniform_int_distribution<int>(-128, 127)(rng);
    const int n = 1 + static_cast<int>(rng() % 70);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) {
      const int32_t k = wide ? static_cast<int32_t>(rng() % 20000001) - 10000000
                             : std::uniform_int_distribution<int32_t>(-128, 127)(rng);
      x = static_cast<float>((static_cast<double>(k) - static_cast<double>(zp)) * static_cast<double>(fscale));
    }
    const size_t at = rng() % static_cast<size_t>(n);
    switch (trial % 5) {
      case 1: v[at] = std::nextafter(v[at], 1e30f); break;
      case 2: v[at] = static_cast<float>(static_cast<double>(v[at]) + 0.5 * static_cast<double>(fscale)); break;
      default: break;
    }
    std::vector<int32_t> want(v.size());
    bool ok = true;
    for (size_t i = 0; i < v.size() && ok; ++i) {
      const double k = std::nearbyint(static_cast<double>(v[i]) / static_cast<double>(fscale)) + static_cast<double>(zp);
      ok = k >= -2147483648.0 && k <= 2147483647.0;
      want[i] = ok ? static_cast<int32_t>(k) : 0;
      const float again = static_cast<float>((static_cast<double>(want[i]) - static_cast<double>(zp)) *
                                             static_cast<double>(fscale));
      ok = ok && std::memcmp(&again, &v[i], sizeof(float)) == 0;
    }
    Tensor t;
    t.type = DataType::kFloat32;
    t.shape = {n};
    t.is_constant = true;
    t.data = ConstantData::CopyOf(v.data(), v.size() * sizeof(float));
    t.quant = Quant(fscale, zp, wide ? DataType::kInt32 : DataType::kInt8);
    std::vector<int32_t> got;
    ASSERT_EQ(cpu::StoredIntegers(t, &got), ok) << "trial " << trial;
    if (ok) {
      EXPECT_EQ(got, want) << "trial " << trial;
    }
    (ok ? yes : no) += 1;
  }
  EXPECT_GT(yes, 100);
  EXPECT_GT(no, 100);
}

}  // namespace
}  // namespace gld::testing
