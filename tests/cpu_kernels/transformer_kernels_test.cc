// The CPU paths the transformer graphs run on, against double-precision
// references computed here: BATCH_MATMUL on the AVX-512 GEMM (every
// adj_x / adj_y, broadcast batches, rows and columns off the tiles),
// FULLY_CONNECTED over [B, T, C] on the same GEMM, MEAN over trailing axes,
// TRANSPOSE in tiles; each on one and two threads, and with the AVX-512
// path turned off (the code it replaces), NaN and infinities included.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu_kernels/micro/pointwise_gemm/pointwise_gemm.h"
#include "op_test_util.h"

namespace gld::testing {
namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// got[i] ~ want[i] within tol of the largest finite |want|; NaN where want
// is NaN, the same infinity where want is infinite.
void ExpectMatches(const std::vector<float>& got, const std::vector<double>& want, double tol,
                   const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 1e-30;
  for (double w : want) {
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      ASSERT_TRUE(std::isnan(got[i])) << what << " at " << i << ": got " << got[i];
    } else if (std::isinf(want[i])) {
      ASSERT_EQ(static_cast<double>(got[i]), want[i]) << what << " at " << i;
    } else {
      ASSERT_NEAR(got[i], want[i], tol * scale) << what << " at " << i;
    }
  }
}

// x [bx..., M, K] (adj_x: [..., K, M]) times y [by..., K, N] (adj_y:
// [..., N, K]) with batch dims broadcast (same rank here).
std::vector<double> BatchMatMulRef(const Shape& xs, const std::vector<float>& x, const Shape& ys,
                                   const std::vector<float>& y, bool adj_x, bool adj_y, Shape* out_shape) {
  const size_t r = xs.size();
  const int64_t m = adj_x ? xs[r - 1] : xs[r - 2], k = adj_x ? xs[r - 2] : xs[r - 1];
  const int64_t n = adj_y ? ys[r - 2] : ys[r - 1];
  Shape batch;
  for (size_t d = 0; d + 2 < r; ++d) batch.push_back(std::max(xs[d], ys[d]));
  *out_shape = batch;
  out_shape->push_back(static_cast<int32_t>(m));
  out_shape->push_back(static_cast<int32_t>(n));
  const int64_t batches = NumElements(batch);
  std::vector<double> out(static_cast<size_t>(batches * m * n));
  for (int64_t b = 0; b < batches; ++b) {
    int64_t ox = 0, oy = 0, rem = b, sx = 1, sy = 1;
    for (size_t d = batch.size(); d-- > 0;) {
      const int64_t i = rem % batch[d];
      rem /= batch[d];
      ox += (xs[d] == 1 ? 0 : i) * sx;
      oy += (ys[d] == 1 ? 0 : i) * sy;
      sx *= xs[d];
      sy *= ys[d];
    }
    const float* a = x.data() + ox * m * k;
    const float* c = y.data() + oy * k * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) {
          s += static_cast<double>(adj_x ? a[q * m + i] : a[i * k + q]) * (adj_y ? c[j * k + q] : c[q * n + j]);
        }
        out[static_cast<size_t>((b * m + i) * n + j)] = s;
      }
    }
  }
  return out;
}

TEST(TransformerKernels, BatchMatMulEveryLayout) {
  struct Case {
    Shape x, y;
    bool adj_x, adj_y;
  };
  const std::vector<Case> cases = {
      {{1, 2, 37, 24}, {1, 2, 24, 50}, false, false},   // attention's scores, rows and columns off the tiles
      {{1, 3, 36, 36}, {1, 3, 36, 64}, false, false},   // scores times values
      {{1, 2, 40, 17}, {1, 2, 33, 17}, false, true},    // y transposed, read in place
      {{2, 19, 5}, {2, 19, 21}, true, false},           // x transposed
      {{2, 9, 7}, {2, 33, 9}, true, true},
      {{3, 1, 20, 8}, {1, 2, 8, 40}, false, false},     // broadcast batches both ways
      {{17, 300}, {300, 16}, false, false},             // 2-D, deeper than a tile
  };
  for (bool avx512 : {true, false}) {
    cpu::ScopedPointwiseGemm scoped(avx512);
    for (const Case& c : cases) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(ShapeToString(c.x) + " x " + ShapeToString(c.y) + (c.adj_x ? " adj_x" : "") +
                     (c.adj_y ? " adj_y" : "") + " threads " + std::to_string(threads) +
                     (avx512 ? " avx512" : " gemm.h"));
        std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(c.x)), 1);
        std::vector<float> y = RandomFloats(static_cast<size_t>(NumElements(c.y)), 2);
        x[3] = kNan;
        y[5] = kInf;
        OpTest t;
        const int ix = t.Input<float>(c.x, x), iy = t.Input<float>(c.y, y);
        const int out = t.Output();
        BatchMatMulAttributes a;
        a.adj_x = c.adj_x;
        a.adj_y = c.adj_y;
        t.Node(OpType::kBatchMatMul, {ix, iy}, {out}, a);
        GLD_ASSERT_OK(t.RunPrepared(threads));
        Shape want_shape;
        const std::vector<double> want = BatchMatMulRef(c.x, x, c.y, y, c.adj_x, c.adj_y, &want_shape);
        EXPECT_EQ(t.ShapeOf(out), want_shape);
        ExpectMatches(t.Get(out), want, 1e-5, "batch matmul");
      }
    }
  }
}

TEST(TransformerKernels, FullyConnectedOverTokens) {
  const int64_t tokens = 37, depth = 48, units = 80;
  std::vector<float> x = RandomFloats(static_cast<size_t>(2 * tokens * depth), 3);
  x[100] = kNan;
  x[200] = -kInf;
  const std::vector<float> w = RandomFloats(static_cast<size_t>(units * depth), 4);
  const std::vector<float> bias = RandomFloats(static_cast<size_t>(units), 5);
  for (bool avx512 : {true, false}) {
    cpu::ScopedPointwiseGemm scoped(avx512);
    for (Activation act : {Activation::kNone, Activation::kRelu6}) {
      for (bool with_bias : {true, false}) {
        for (int threads : {1, 2}) {
          SCOPED_TRACE(std::string(avx512 ? "avx512" : "xnnpack") + " " + ActivationName(act) +
                       (with_bias ? " bias" : "") + " threads " + std::to_string(threads));
          OpTest t;
          const int in = t.Input<float>({2, static_cast<int32_t>(tokens), static_cast<int32_t>(depth)}, x);
          const int wi = t.Const<float>({static_cast<int32_t>(units), static_cast<int32_t>(depth)}, w);
          const int bi = with_bias ? t.Const<float>({static_cast<int32_t>(units)}, bias) : kNoTensor;
          const int out = t.Output();
          FullyConnectedAttributes a;
          a.keep_num_dims = true;
          a.activation = act;
          t.Node(OpType::kFullyConnected, {in, wi, bi}, {out}, a);
          GLD_ASSERT_OK(t.RunPrepared(threads));
          EXPECT_EQ(t.ShapeOf(out), (Shape{2, static_cast<int32_t>(tokens), static_cast<int32_t>(units)}));
          std::vector<double> want(static_cast<size_t>(2 * tokens * units));
          for (int64_t r = 0; r < 2 * tokens; ++r) {
            for (int64_t u = 0; u < units; ++u) {
              double s = with_bias ? bias[static_cast<size_t>(u)] : 0.0;
              for (int64_t c = 0; c < depth; ++c) {
                s += static_cast<double>(x[static_cast<size_t>(r * depth + c)]) * w[static_cast<size_t>(u * depth + c)];
              }
              if (act == Activation::kRelu6 && !std::isnan(s)) s = std::min(std::max(s, 0.0), 6.0);
              want[static_cast<size_t>(r * units + u)] = s;
            }
          }
          ExpectMatches(t.Get(out), want, 1e-5, "fully connected");
        }
      }
    }
  }
}

TEST(TransformerKernels, MeanOverTrailingAxes) {
  const Shape shape = {2, 5, 37};
  std::vector<float> x = RandomFloats(static_cast<size_t>(NumElements(shape)), 6, -3.f, 3.f);
  x[40] = kNan;
  x[80] = kInf;
  x[81] = -kInf;  // same row: inf - inf
  x[120] = kInf;
  struct Case {
    std::vector<int32_t> axes;
    std::vector<bool> reduced;
  };
  const std::vector<Case> cases = {{{2}, {false, false, true}},
                                   {{-1}, {false, false, true}},
                                   {{1, 2}, {false, true, true}},
                                   {{2, 1, 2}, {false, true, true}},
                                   {{1}, {false, true, false}},  // not trailing: the general code
                                   {{0, 1, 2}, {true, true, true}}};
  for (const Case& c : cases) {
    for (bool keep : {true, false}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE("axes " + ShapeToString(Shape(c.axes.begin(), c.axes.end())) + (keep ? " keep_dims" : "") +
                     " threads " + std::to_string(threads));
        OpTest t;
        const int in = t.Input<float>(shape, x);
        const int ax = t.Const<int32_t>({static_cast<int32_t>(c.axes.size())}, c.axes);
        const int out = t.Output();
        ReduceAttributes a;
        a.keep_dims = keep;
        t.Node(OpType::kMean, {in, ax}, {out}, a);
        GLD_ASSERT_OK(t.RunPrepared(threads));
        // Reference: sum into the output index of each element.
        std::vector<double> sum;
        std::vector<int64_t> count;
        Shape out_shape;
        for (size_t d = 0; d < 3; ++d) out_shape.push_back(c.reduced[d] ? 1 : shape[d]);
        sum.assign(static_cast<size_t>(NumElements(out_shape)), 0.0);
        count.assign(sum.size(), 0);
        for (int64_t i = 0; i < NumElements(shape); ++i) {
          const int64_t i0 = i / (5 * 37), i1 = (i / 37) % 5, i2 = i % 37;
          const int64_t o = ((c.reduced[0] ? 0 : i0) * out_shape[1] + (c.reduced[1] ? 0 : i1)) * out_shape[2] +
                            (c.reduced[2] ? 0 : i2);
          sum[static_cast<size_t>(o)] += x[static_cast<size_t>(i)];
          ++count[static_cast<size_t>(o)];
        }
        for (size_t o = 0; o < sum.size(); ++o) sum[o] /= static_cast<double>(count[o]);
        ExpectMatches(t.Get(out), sum, 1e-6, "mean");
      }
    }
  }
}

// TRANSPOSE of 4-byte (float, with a NaN: moved as bits) and 1-byte (int8)
// elements, against the permutation's index arithmetic: the tiled paths
// (whole and partial 8 x 8 and 16 x 16 blocks), rows that stay contiguous,
// one and two threads.
template <typename T>
void CheckTransposes() {
  struct Case {
    Shape in;
    std::vector<int32_t> perm;
  };
  const std::vector<Case> cases = {{{1, 37, 3, 20}, {0, 2, 3, 1}},  // keys to [B, H, D, T]
                                   {{1, 2, 37, 45}, {0, 1, 3, 2}},  // scores' last two swapped
                                   {{1, 37, 3, 20}, {0, 2, 1, 3}},  // heads out: rows stay contiguous
                                   {{33, 17}, {1, 0}},
                                   {{3, 4, 5, 6}, {3, 1, 0, 2}},
                                   {{2, 1, 18, 1}, {3, 2, 1, 0}},
                                   {{1, 64, 2, 32}, {0, 2, 3, 1}},  // whole 8 x 8 blocks only
                                   {{1, 16, 4, 16}, {0, 2, 3, 1}},  // whole 16 x 16 blocks only
                                   {{1, 4, 16, 16}, {0, 2, 1, 3}},
                                   {{2, 300, 3, 20}, {0, 2, 1, 3}}};  // rows split mid-index across threads
  for (const Case& c : cases) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(ShapeToString(c.in) + " perm " + ShapeToString(Shape(c.perm.begin(), c.perm.end())) +
                   " threads " + std::to_string(threads) + " element bytes " + std::to_string(sizeof(T)));
      const int64_t n = NumElements(c.in);
      std::vector<T> x(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<T>(i % 251 - 125);
      if constexpr (std::is_same_v<T, float>) x[0] = kNan;
      OpTest t;
      const int in = t.Input<T>(c.in, x);
      const int p = t.Const<int32_t>({static_cast<int32_t>(c.perm.size())}, c.perm);
      const int out = t.Output(TypeOf<T>());
      t.Node(OpType::kTranspose, {in, p}, {out});
      GLD_ASSERT_OK(t.RunPrepared(threads));
      const size_t rank = c.in.size();
      Shape out_shape(rank);
      for (size_t d = 0; d < rank; ++d) out_shape[d] = c.in[static_cast<size_t>(c.perm[d])];
      ASSERT_EQ(t.ShapeOf(out), out_shape);
      std::vector<int64_t> in_strides(rank, 1);
      for (size_t d = rank - 1; d-- > 0;) in_strides[d] = in_strides[d + 1] * c.in[d + 1];
      std::vector<T> want(static_cast<size_t>(n));
      for (int64_t o = 0; o < n; ++o) {
        int64_t rem = o, src = 0;
        for (size_t d = rank; d-- > 0;) {
          src += (rem % out_shape[d]) * in_strides[static_cast<size_t>(c.perm[d])];
          rem /= out_shape[d];
        }
        want[static_cast<size_t>(o)] = x[static_cast<size_t>(src)];
      }
      const std::vector<T> got = t.Get<T>(out);
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)), 0) << "transpose differs";
    }
  }
}

TEST(TransformerKernels, TransposeTiles) { CheckTransposes<float>(); }
TEST(TransformerKernels, TransposeTilesOfBytes) { CheckTransposes<int8_t>(); }

}  // namespace
}  // namespace gld::testing
