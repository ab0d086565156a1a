// The int8 kernels of cpu_kernels/ops/integer_ops.cc and the fixed-point helpers
// they share (cpu_kernels/micro/fixed_point.h). Each kernel is checked against the
// exact result computed in double from the integers (round(real / output
// scale) + output zero point, clamped): the fixed-point and float
// requantizations TFLite and XNNPACK use land within one step of it, and on
// it for nearly every element. That LiteRT's own kernels give the same
// integers bit for bit is the op conformance test's part (the int8 cases'
// outputs_default).
#include <algorithm>
#include <cmath>
#include <random>

#include "cpu_kernels/micro/fixed_point.h"
#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/ops/integer_ops.h"
#include "op_test_util.h"

namespace gld::testing {
namespace {

namespace fp = cpu::fixed_point;

int QuantInput(OpTest& t, const Shape& shape, const std::vector<int8_t>& v, float scale, int zp) {
  const int id = t.Input<int8_t>(shape, v);
  t.graph.tensors[static_cast<size_t>(id)].quant = Quant(scale, zp);
  return id;
}

int QuantOutput(OpTest& t, float scale, int zp) {
  const int id = t.Output(DataType::kInt8);
  t.graph.tensors[static_cast<size_t>(id)].quant = Quant(scale, zp);
  return id;
}

// A constant as the reader leaves an int8 one: float32 values decoded from
// the stored integers, the quantization kept with its storage type.
int StoredInt8Constant(OpTest& t, const Shape& shape, const std::vector<int8_t>& stored, float scale, int zp) {
  std::vector<float> real(stored.size());
  for (size_t i = 0; i < stored.size(); ++i) real[i] = static_cast<float>((stored[i] - zp) * static_cast<double>(scale));
  const int id = t.Const<float>(shape, real);
  t.graph.tensors[static_cast<size_t>(id)].quant = Quant(scale, zp, DataType::kInt8);
  return id;
}

double Dequant(int8_t v, float scale, int zp) { return (v - zp) * static_cast<double>(scale); }

// At least `min_equal` of the outputs on round(real / scale) + zp, none
// more than one step from it.
void ExpectNearExact(const std::vector<int8_t>& got, const std::vector<double>& real, float scale, int zp,
                     double min_equal = 0.99) {
  ASSERT_EQ(got.size(), real.size());
  size_t equal = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double q = std::min(127.0, std::max(-128.0, std::nearbyint(real[i] / scale) + zp));
    const double diff = std::abs(got[i] - q);
    ASSERT_LE(diff, 1.0) << "element " << i << " real " << real[i] << " got " << int{got[i]};
    equal += diff == 0 ? 1 : 0;
  }
  EXPECT_GE(static_cast<double>(equal), min_equal * static_cast<double>(got.size()));
}

TEST(FixedPoint, RoundingHelpersRoundAsGemmlowp) {
  EXPECT_EQ(fp::RoundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(fp::RoundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(fp::RoundingDivideByPOT(6, 2), 2);  // 1.5 -> 2
  EXPECT_EQ(fp::RoundingDivideByPOT(-6, 2), -2);
  EXPECT_EQ(fp::RoundingDivideByPOT(-5, 2), -1);  // -1.25
  EXPECT_EQ(fp::SaturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
  EXPECT_EQ(fp::SaturatingRoundingDoublingHighMul(INT32_MIN, INT32_MIN), INT32_MAX);
  // gemmlowp's nudge: a negative half-way product goes up (-1.5 -> -1).
  EXPECT_EQ(fp::SaturatingRoundingDoublingHighMul(-3, 1 << 30), -1);
  EXPECT_EQ(fp::SaturatingRoundingDoublingHighMul(3, 1 << 30), 2);
}

TEST(FixedPoint, RoundHalfEvenSmallIsNearbyint) {
  for (float v : {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 127.49f, -128.5f, 3.0000002f, -255.5f, 0.f}) {
    EXPECT_EQ(fp::RoundHalfEvenSmall(v), static_cast<int32_t>(std::nearbyint(v))) << v;
  }
}

TEST(FixedPoint, QuantizedMultiplierScalesLikeTheReal) {
  int32_t m = 0;
  int shift = 0;
  fp::QuantizeMultiplier(0.5, &m, &shift);
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(shift, 0);
  fp::QuantizeMultiplier(3.0, &m, &shift);
  EXPECT_EQ(shift, 2);
  EXPECT_EQ(fp::MultiplyByQuantizedMultiplier(7, m, shift), 21);
  for (double real : {0.3, 0.0123, 1.7, 1e-5}) {
    fp::QuantizeMultiplier(real, &m, &shift);
    for (int32_t x : {1000, -1000, 123456, -98765}) {
      EXPECT_NEAR(fp::MultiplyByQuantizedMultiplier(x, m, shift), x * real, 1.0) << real << " " << x;
    }
  }
  fp::QuantizeMultiplier(0.0, &m, &shift);
  EXPECT_EQ(m, 0);
}

TEST(IntegerOps, RsqrtTableIsTheFixedPointInverseSquareRoot) {
  OpTest t;
  std::vector<int8_t> x(256);
  for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
  const float xs = 0.004f, os = 0.1f;
  const int xz = -128, oz = -100;
  const int in = QuantInput(t, {256}, x, xs, xz);
  const int out = QuantOutput(t, os, oz);
  t.Node(OpType::kRsqrt, {in}, {out});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  const auto got = t.Get<int8_t>(out);
  EXPECT_EQ(got[0], 127);  // 1/sqrt(0): the largest value
  std::vector<double> real;
  std::vector<int8_t> rest(got.begin() + 1, got.end());
  for (size_t i = 1; i < x.size(); ++i) real.push_back(1.0 / std::sqrt(Dequant(x[i], xs, xz)));
  ExpectNearExact(rest, real, os, oz, 0.95);
}

TEST(IntegerOps, GeluTablesMatchTheFunction) {
  for (bool approximate : {false, true}) {
    OpTest t;
    std::vector<int8_t> x(256);
    for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
    const float xs = 0.03f, os = 0.02f;
    const int in = QuantInput(t, {2, 128}, x, xs, 5);
    const int out = QuantOutput(t, os, -110);
    GeluAttributes a;
    a.approximate = approximate;
    t.Node(OpType::kGelu, {in}, {out}, a);
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.Run());  // no state slot: the kernel builds its table per run
    std::vector<double> real;
    for (int8_t v : x) {
      const double r = Dequant(v, xs, 5);
      real.push_back(approximate ? 0.5 * r * (1 + std::tanh(std::sqrt(2 / M_PI) * (r + 0.044715 * r * r * r)))
                                 : 0.5 * r * std::erfc(-r / std::sqrt(2.0)));
    }
    ExpectNearExact(t.Get<int8_t>(out), real, os, -110);
  }
}

TEST(IntegerOps, SoftmaxRowsAreProbabilities) {
  OpTest t;
  const int rows = 6, n = 40;
  const auto x = RandomInts<int8_t>(rows * n, -128, 127, 7);
  const float xs = 0.07f, beta = 0.8f;
  const int in = QuantInput(t, {2, 3, n}, x, xs, 3);
  const int out = QuantOutput(t, 1.f / 256, -128);
  SoftmaxAttributes a;
  a.beta = beta;
  t.Node(OpType::kSoftmax, {in}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared(2));
  std::vector<double> real;
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += std::exp(beta * Dequant(x[static_cast<size_t>(r * n + j)], xs, 3));
    for (int j = 0; j < n; ++j) real.push_back(std::exp(beta * Dequant(x[static_cast<size_t>(r * n + j)], xs, 3)) / sum);
  }
  ExpectNearExact(t.Get<int8_t>(out), real, 1.f / 256, -128, 0.97);
}

TEST(IntegerOps, BatchMatMulWithBroadcastAndAdjoints) {
  OpTest t;
  const int m = 5, k = 12, n = 7;
  const auto xa = RandomInts<int8_t>(2 * k * m, -128, 127, 11);  // [2, 1, k, m]: adj_x
  const auto xb = RandomInts<int8_t>(3 * n * k, -128, 127, 12);  // [3, n, k]: adj_y
  const float as = 0.03f, bs = 0.02f, os = 0.2f;
  const int az = 4, bz = -3, oz = -2;
  const int a = QuantInput(t, {2, 1, k, m}, xa, as, az);
  const int b = QuantInput(t, {3, n, k}, xb, bs, bz);
  const int out = QuantOutput(t, os, oz);
  BatchMatMulAttributes attrs;
  attrs.adj_x = attrs.adj_y = true;
  t.Node(OpType::kBatchMatMul, {a, b}, {out}, attrs);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared(2));
  ASSERT_EQ(t.ShapeOf(out), (Shape{2, 3, m, n}));
  std::vector<double> real;
  for (int i0 = 0; i0 < 2; ++i0) {
    for (int i1 = 0; i1 < 3; ++i1) {
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          double acc = 0;
          for (int s = 0; s < k; ++s) {
            acc += Dequant(xa[static_cast<size_t>((i0 * k + s) * m + i)], as, az) *
                   Dequant(xb[static_cast<size_t>((i1 * n + j) * k + s)], bs, bz);
          }
          real.push_back(acc);
        }
      }
    }
  }
  ExpectNearExact(t.Get<int8_t>(out), real, os, oz);
}

TEST(IntegerOps, MeanOverAMiddleAxis) {
  OpTest t;
  const auto x = RandomInts<int8_t>(2 * 9 * 5, -128, 127, 21);
  const float xs = 0.03f, os = 0.012f;
  const int in = QuantInput(t, {2, 9, 5}, x, xs, -5);
  const int axes = t.Const<int32_t>({1}, {-2});
  const int out = QuantOutput(t, os, -13);
  t.Node(OpType::kMean, {in, axes}, {out}, ReduceAttributes{});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  ASSERT_EQ(t.ShapeOf(out), (Shape{2, 5}));
  std::vector<double> real;
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 5; ++c) {
      double sum = 0;
      for (int r = 0; r < 9; ++r) sum += Dequant(x[static_cast<size_t>((b * 9 + r) * 5 + c)], xs, -5);
      real.push_back(sum / 9);
    }
  }
  ExpectNearExact(t.Get<int8_t>(out), real, os, -13);
}

TEST(IntegerOps, SquaredDifferenceBroadcast) {
  OpTest t;
  const auto xa = RandomInts<int8_t>(4 * 8, -128, 127, 31);
  const auto xb = RandomInts<int8_t>(4, -128, 127, 32);
  const int a = QuantInput(t, {1, 4, 8}, xa, 0.02f, 3);
  const int b = QuantInput(t, {1, 4, 1}, xb, 0.015f, -5);
  const int out = QuantOutput(t, 0.01f, -128);
  t.Node(OpType::kSquaredDifference, {a, b}, {out}, BinaryAttributes{});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  std::vector<double> real;
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 8; ++c) {
      const double d = Dequant(xa[static_cast<size_t>(r * 8 + c)], 0.02f, 3) - Dequant(xb[static_cast<size_t>(r)], 0.015f, -5);
      real.push_back(d * d);
    }
  }
  ExpectNearExact(t.Get<int8_t>(out), real, 0.01f, -128, 0.95);
}

TEST(IntegerOps, MulByAConstantRequantizesAsXnnpack) {
  OpTest t;
  const auto x = RandomInts<int8_t>(3 * 16, -128, 127, 41);
  const auto c = RandomInts<int8_t>(16, -127, 127, 42);
  const float xs = 0.5f, cs = 0.25f, os = 4.f;  // powers of two: half-way cases
  const int in = QuantInput(t, {3, 16}, x, xs, 3);
  const int k = StoredInt8Constant(t, {16}, c, cs, 0);
  const int out = QuantOutput(t, os, -1);
  t.Node(OpType::kMul, {in, k}, {out}, BinaryAttributes{});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  const auto got = t.Get<int8_t>(out);
  const float scale = xs * cs / os;
  for (size_t i = 0; i < got.size(); ++i) {
    const int acc = (x[i] - 3) * c[i % 16];
    const float f = std::min(std::max(static_cast<float>(acc) * scale, -127.f), 128.f);
    EXPECT_EQ(got[i], static_cast<int>(std::nearbyint(f)) - 1) << i;  // half to even
  }
}

TEST(IntegerOps, AddOfATinyConstantKeepsTheInput) {
  // A layer norm's epsilon: XNNPACK's delegate refuses the scale ratio, so
  // LiteRT adds in TFLite's fixed point, which leaves the input as it is.
  OpTest t;
  std::vector<int8_t> x(256);
  for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
  const int in = QuantInput(t, {256}, x, 0.0016f, -128);
  const int eps = StoredInt8Constant(t, {}, {-43}, 5.9e-9f, -43);
  const int out = QuantOutput(t, 0.0016f, -128);
  t.Node(OpType::kAdd, {in, eps}, {out}, BinaryAttributes{});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  EXPECT_EQ(t.Get<int8_t>(out), x);
}

TEST(IntegerOps, HardSwishTableFollowsTheFunction) {
  OpTest t;
  std::vector<int8_t> x(256);
  for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<int8_t>(v - 128);
  const float xs = 0.04f, os = 0.03f;
  const int in = QuantInput(t, {256}, x, xs, -3);
  const int out = QuantOutput(t, os, -50);
  t.Node(OpType::kHardSwish, {in}, {out});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  std::vector<double> real;
  for (int8_t v : x) {
    const double r = Dequant(v, xs, -3);
    real.push_back(r * std::min(6.0, std::max(0.0, r + 3)) / 6);
  }
  ExpectNearExact(t.Get<int8_t>(out), real, os, -50, 0.95);
}

TEST(IntegerOps, AveragePoolCountsOnlyTheInputUnderTheWindow) {
  OpTest t;
  const auto x = RandomInts<int8_t>(5 * 7 * 3, -128, 127, 51);
  const int in = QuantInput(t, {1, 5, 7, 3}, x, 0.05f, -3);
  const int out = QuantOutput(t, 0.05f, -3);
  Pool2dAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  a.filter_h = a.filter_w = 3;
  t.Node(OpType::kAveragePool2d, {in}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.Run());
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 3, 4, 3}));
  const auto got = t.Get<int8_t>(out);
  // SAME, 3x3 stride 2 over 5x7: one row and one column of padding before.
  for (int oy = 0; oy < 3; ++oy) {
    for (int ox = 0; ox < 4; ++ox) {
      for (int c = 0; c < 3; ++c) {
        int sum = 0, count = 0;
        for (int iy = std::max(0, oy * 2 - 1); iy < std::min(5, oy * 2 + 2); ++iy) {
          for (int ix = std::max(0, ox * 2 - 1); ix < std::min(7, ox * 2 + 2); ++ix) {
            sum += x[static_cast<size_t>((iy * 7 + ix) * 3 + c)];
            ++count;
          }
        }
        const double avg = static_cast<double>(sum) / count;  // half away from zero
        EXPECT_EQ(got[static_cast<size_t>((oy * 4 + ox) * 3 + c)], static_cast<int>(std::round(avg)))
            << oy << " " << ox << " " << c;
      }
    }
  }
}

TEST(IntegerOps, TransposeConvPerChannel) {
  OpTest t;
  const int oc = 3, ic = 4, kh = 3, kw = 3;
  const auto x = RandomInts<int8_t>(3 * 2 * ic, -128, 127, 61);
  const auto w = RandomInts<int8_t>(oc * kh * kw * ic, -127, 127, 62);
  const std::vector<float> ws{0.01f, 0.02f, 0.015f};
  const float xs = 0.04f, os = 0.08f;
  const int shape = t.Const<int32_t>({4}, {1, 6, 4, oc});
  std::vector<float> wreal(w.size());
  for (size_t i = 0; i < w.size(); ++i) wreal[i] = static_cast<float>(w[i] * static_cast<double>(ws[i / (kh * kw * ic)]));
  const int weights = t.Const<float>({oc, kh, kw, ic}, wreal);
  QuantizationParams wq;
  wq.scale = ws;
  wq.zero_point = {0, 0, 0};
  wq.storage_type = DataType::kInt8;
  t.graph.tensors[static_cast<size_t>(weights)].quant = wq;
  const int in = QuantInput(t, {1, 3, 2, ic}, x, xs, 2);
  const int out = QuantOutput(t, os, -4);
  TransposeConvAttributes a;
  a.padding = Padding::kSame;
  a.stride_h = a.stride_w = 2;
  t.Node(OpType::kTransposeConv, {shape, weights, in}, {out}, a);
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.RunPrepared());
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 6, 4, oc}));
  // Output 6x4 from 3x2 at stride 2, 3x3 SAME: total padding 1, none before.
  std::vector<double> real(static_cast<size_t>(6 * 4 * oc), 0.0);
  for (int iy = 0; iy < 3; ++iy) {
    for (int ix = 0; ix < 2; ++ix) {
      for (int ky = 0; ky < kh; ++ky) {
        for (int kx = 0; kx < kw; ++kx) {
          const int oy = iy * 2 + ky, ox = ix * 2 + kx;
          if (oy >= 6 || ox >= 4) continue;
          for (int c = 0; c < oc; ++c) {
            for (int k = 0; k < ic; ++k) {
              real[static_cast<size_t>((oy * 4 + ox) * oc + c)] +=
                  Dequant(x[static_cast<size_t>((iy * 2 + ix) * ic + k)], xs, 2) *
                  wreal[static_cast<size_t>(((c * kh + ky) * kw + kx) * ic + k)];
            }
          }
        }
      }
    }
  }
  ExpectNearExact(t.Get<int8_t>(out), real, os, -4);
}

TEST(IntegerOps, ResizeBilinearBlendsNeighbours) {
  OpTest t;
  const auto x = RandomInts<int8_t>(3 * 4 * 2, -128, 127, 71);
  const int in = QuantInput(t, {1, 3, 4, 2}, x, 0.05f, -3);
  const int size = t.Const<int32_t>({2}, {6, 8});
  const int out = QuantOutput(t, 0.05f, -3);
  t.Node(OpType::kResizeBilinear, {in, size}, {out}, ResizeAttributes{});
  ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
  GLD_ASSERT_OK(t.Run());
  ASSERT_EQ(t.ShapeOf(out), (Shape{1, 6, 8, 2}));
  // Legacy sampling at o / 2: even outputs copy an input, odd ones average
  // two (or four) neighbours, the last row and column repeat the edge. One
  // quantization in and out: the blend of the stored integers, its halves
  // rounded up (the weights 0 and 1/2 are exact in Q11).
  const auto got = t.Get<int8_t>(out);
  for (int oy = 0; oy < 6; ++oy) {
    for (int ox = 0; ox < 8; ++ox) {
      for (int c = 0; c < 2; ++c) {
        const double fy = oy / 2.0, fx = ox / 2.0;
        const int y0 = static_cast<int>(fy), x0 = static_cast<int>(fx);
        const int y1 = std::min(y0 + 1, 2), x1 = std::min(x0 + 1, 3);
        auto at = [&](int y, int xx) { return static_cast<double>(x[static_cast<size_t>((y * 4 + xx) * 2 + c)]); };
        const double top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * (fx - x0);
        const double bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * (fx - x0);
        EXPECT_EQ(got[static_cast<size_t>((oy * 8 + ox) * 2 + c)], std::floor(top + (bottom - top) * (fy - y0) + 0.5))
            << oy << " " << ox << " " << c;
      }
    }
  }
}

TEST(IntegerOps, AddAndSubOfAConstantInXnnpacksRange) {
  // XNNPACK's integer multipliers: within one step of the exact sum, on it
  // for nearly every element.
  for (OpType op : {OpType::kAdd, OpType::kSub}) {
    OpTest t;
    const auto x = RandomInts<int8_t>(4 * 32, -128, 127, 81);
    const auto c = RandomInts<int8_t>(32, -127, 127, 82);
    const int in = QuantInput(t, {4, 32}, x, 0.017f, 8);
    const int k = StoredInt8Constant(t, {32}, c, 0.012f, -5);
    const int out = QuantOutput(t, 0.024f, 1);
    t.Node(op, {in, k}, {out}, BinaryAttributes{});
    ASSERT_NE(cpu::FindIntegerKernel(t.graph, t.graph.nodes[0]), nullptr);
    GLD_ASSERT_OK(t.RunPrepared());
    std::vector<double> real;
    for (size_t i = 0; i < x.size(); ++i) {
      const double a = Dequant(x[i], 0.017f, 8), b = Dequant(c[i % 32], 0.012f, -5);
      real.push_back(op == OpType::kAdd ? a + b : a - b);
    }
    ExpectNearExact(t.Get<int8_t>(out), real, 0.024f, 1);
  }
}

}  // namespace
}  // namespace gld::testing
