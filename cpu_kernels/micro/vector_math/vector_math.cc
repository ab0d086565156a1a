#include "cpu_kernels/micro/vector_math/vector_math.h"

#include <cmath>
#include <cstring>

#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

typedef int32_t Int8 __attribute__((vector_size(32)));
typedef int32_t Int16 __attribute__((vector_size(64)));

#define GLD_INLINE inline __attribute__((always_inline))

// The formulas on vectors of W floats (V) with W int32 lanes (I), in place on
// references (a vector passed by value would change the ABI between the
// target clones).
template <typename V, typename I>
struct VecMath {
  static constexpr int kWidth = static_cast<int>(sizeof(V) / sizeof(float));

  static GLD_INLINE void Load(V& v, const float* p) { std::memcpy(&v, p, sizeof(V)); }
  static GLD_INLINE void Store(float* p, const V& v) { std::memcpy(p, &v, sizeof(V)); }

  // x = exp(x). Cody-Waite reduction x = n ln2 + r, |r| <= ln2 / 2, a degree
  // 7 Taylor polynomial (truncation 5e-9), then 2^n applied as two factors
  // so that results down to the denormals and up to the overflow come out
  // right. x clamped to [-104, 89] first (keeps a NaN): exp(89) is +inf,
  // exp(-104) is 0.
  static GLD_INLINE void Exp(V& x) {
    const V zero = {};
    const V lo = zero - 104.f, hi = zero + 89.f;
    x = x < lo ? lo : x;
    x = x > hi ? hi : x;
    constexpr float kMagic = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer
    const V t = x * 1.44269504088896341f + kMagic;
    const V n = t - kMagic;
    I ni;
    std::memcpy(&ni, &t, sizeof(I));
    ni -= 0x4B400000;  // the integer n from t's low mantissa bits
    V r = x - n * 0.693145751953125f;
    r = r - n * 1.428606765330187e-06f;
    V p = r * (1.f / 5040.f) + (1.f / 720.f);
    p = p * r + (1.f / 120.f);
    p = p * r + (1.f / 24.f);
    p = p * r + (1.f / 6.f);
    p = p * r + 0.5f;
    p = p * r + 1.f;
    p = p * r + 1.f;
    const I n1 = ni >> 1;
    const I n2 = ni - n1;
    const I b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
    V s1, s2;
    std::memcpy(&s1, &b1, sizeof(V));
    std::memcpy(&s2, &b2, sizeof(V));
    x = p * s1 * s2;
  }

  // x = exp(x) for x in [kExpDenormalCutoff, 0] or NaN (softmax's shifted
  // logits): the reduction of Exp, then a degree 5 polynomial (fitted for
  // this file by reweighted least squares on Chebyshev nodes of
  // [-ln2 / 2, ln2 / 2]: 1.0e-7 relative, 1.8e-7 once evaluated in float)
  // and 2^n as one factor (n >= -126: a normal number). A NaN stays NaN.
  static GLD_INLINE void ExpNonPositive(V& x) {
    constexpr float kMagic = 12582912.f;
    const V t = x * 1.44269504088896341f + kMagic;
    const V n = t - kMagic;
    I ni;
    std::memcpy(&ni, &t, sizeof(I));
    ni -= 0x4B400000;
    V r = x - n * 0.693145751953125f;
    r = r - n * 1.428606765330187e-06f;
    V p = r * 0.008262364193797112f + 0.04189872369170189f;
    p = p * r + 0.16668100655078888f;
    p = p * r + 0.49999141693115234f;
    p = p * r + 0.9999995231628418f;
    p = p * r + 1.f;
    const I b = (ni + 127) << 23;
    V scale;
    std::memcpy(&scale, &b, sizeof(V));
    x = p * scale;
  }

  // z = f(z) for an odd f that saturates at +-1 (erf, tanh): z P(z^2) /
  // Q(z^2) for |z| < limit, exactly +-1 beyond (so that GELU(-inf) is
  // -inf * 0 = NaN as in the formula); a NaN fails both compares and
  // stays. p and q: coefficients from the highest power down.
  template <size_t kP, size_t kQ>
  static GLD_INLINE void SaturatingRational(V& z, float limit, const float (&p)[kP], const float (&q)[kQ]) {
    const V zero = {};
    const V lo = zero - limit, hi = zero + limit;
    const V zc = z < lo ? lo : (z > hi ? hi : z);
    const V u = zc * zc;
    V pu = zero + p[0], qu = zero + q[0];
    for (size_t i = 1; i < kP; ++i) pu = pu * u + p[i];
    for (size_t i = 1; i < kQ; ++i) qu = qu * u + q[i];
    V f = zc * pu / qu;
    f = z <= lo ? zero - 1.f : f;
    f = z >= hi ? zero + 1.f : f;
    z = f;
  }

  // GELU exact: 0.5 x (1 + erf(x / sqrt 2)), erf a rational fit of degrees
  // 5 / 5 in z^2 on |z| < 3.925 (made for this file by least squares on
  // Chebyshev nodes: 7e-8 from erf, 4e-7 once evaluated in float;
  // erf(3.925) = 1 - 3e-8).
  static GLD_INLINE void GeluExact(V& x) {
    static constexpr float kP[] = {2.1344178549043136e-06f, 0.0002846464922185987f, 0.0035881444346159697f,
                                   0.05220967158675194f, 0.1857660412788391f, 1.1283791065216064f};
    static constexpr float kQ[] = {3.8954261981416494e-05f, 0.0011265879729762673f, 0.014609311707317829f,
                                   0.11225925385951996f, 0.49796387553215027f, 1.f};
    V erf = x * 0.70710678118654752f;
    SaturatingRational(erf, 3.925f, kP, kQ);
    x = 0.5f * x * (1.f + erf);
  }

  // x = tanh(x): a fit of degrees 4 / 4 in x^2 on |x| < 9 (as erf's: 7e-8
  // from tanh, 3e-7 once evaluated in float; tanh(9) = 1 - 3e-8), +-1
  // beyond; NaN stays NaN.
  static GLD_INLINE void Tanh(V& x) {
    static constexpr float kP[] = {1.4013871840745651e-08f, 2.1094669136800803e-05f, 0.0035254748072475195f,
                                   0.1340629905462265f, 1.f};
    static constexpr float kQ[] = {8.049349844441167e-07f, 0.00033342555980198085f, 0.025991030037403107f,
                                   0.46739622950553894f, 1.f};
    SaturatingRational(x, 9.f, kP, kQ);
  }

  // x = 1 / (1 + exp(-x)) on Exp (relative error a few ulp: small results
  // keep their digits, unlike 0.5 + 0.5 tanh(x / 2)); 0 below -89, 1
  // above 17 (rounds to it), NaN stays NaN.
  static GLD_INLINE void Sigmoid(V& x) {
    V e = -x;
    Exp(e);
    x = 1.f / (1.f + e);
  }

  // GELU tanh approximation: 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x +
  // 0.044715 x^3), tanh as Tanh.
  static GLD_INLINE void GeluTanh(V& x) {
    V tanh = (x + 0.044715f * x * x * x) * 0.7978845608028654f;
    Tanh(tanh);
    x = 0.5f * x * (1.f + tanh);
  }
};

template <typename V, typename I, typename F>
GLD_INLINE void MapRow(const float* x, float* y, int64_t n, F f) {
  using M = VecMath<V, I>;
  constexpr int64_t w = M::kWidth;
  int64_t i = 0;
  for (; i + w <= n; i += w) {
    V v;
    M::Load(v, x + i);
    f(v);
    M::Store(y + i, v);
  }
  if (i < n) {
    float tail[w] = {};
    std::memcpy(tail, x + i, static_cast<size_t>(n - i) * sizeof(float));
    V v;
    M::Load(v, tail);
    f(v);
    M::Store(tail, v);
    std::memcpy(y + i, tail, static_cast<size_t>(n - i) * sizeof(float));
  }
}

// Vectors of W floats, for the halving reductions below.
template <int W>
struct Lanes {
  typedef float Type __attribute__((vector_size(W * sizeof(float))));
};

// The sum (or, with kMax, the max) of v's lanes, by halving: log2(W) vector
// steps instead of W - 1 scalar ones (short rows, such as attention's 32
// keys, spent most of their time in the scalar chain). For max, a NaN lane
// may or may not survive; the callers make a NaN row NaN through the sum.
template <bool kMax, int W>
GLD_INLINE float ReduceLanes(const typename Lanes<W>::Type& v) {
  if constexpr (W == 2) {
    return kMax ? (v[1] > v[0] ? v[1] : v[0]) : v[0] + v[1];
  } else {
    typename Lanes<W / 2>::Type lo, hi;
    std::memcpy(&lo, &v, sizeof(lo));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(lo), sizeof(hi));
    if constexpr (kMax) {
      lo = hi > lo ? hi : lo;
    } else {
      lo += hi;
    }
    return ReduceLanes<kMax, W / 2>(lo);
  }
}

// Below this, exp(x) is a denormal (or 0): the softmax takes it as 0, as
// XNNPACK's softmax does, rather than pay the CPU's slow path for
// denormal products (attention rows with masked or far-apart logits:
// 1.7x the row's time).
constexpr float kExpDenormalCutoff = -87.336544f;

// The row's max, then y = exp((x - max) * beta) and their sum, then y / sum.
// The tail (n not a multiple of W) runs as the row's last W values where
// n > W, else as one vector padded with zeros, the padding's lanes left
// out of the sum. Any NaN in the row makes the
// sum, and so the row, NaN; max's order does not matter. Exponents below
// kExpDenormalCutoff give 0.
template <typename V, typename I>
GLD_INLINE void Softmax(const float* x, float* y, int64_t n, float beta) {
  using M = VecMath<V, I>;
  constexpr int w = M::kWidth;
  const V zero = {};
  const V cutoff = zero + kExpDenormalCutoff;
  // With beta > 0 the shifted logits are <= 0 (or NaN): the shorter exp.
  const bool non_positive = beta > 0.f;
  auto exp_shifted = [&](V& v, float mx) {
    v = (v - mx) * beta;
    const auto tiny = v < cutoff;
    v = tiny ? cutoff : v;
    if (non_positive) {
      M::ExpNonPositive(v);
    } else {
      M::Exp(v);
    }
    v = tiny ? zero : v;
  };
  if (n > w && n % w != 0) {
    // The tail as the row's last W values, overlapping the vector before:
    // read before anything is stored (y may be x), its exps computed once,
    // its lanes before the tail left out of the sum, and stored last, over
    // lanes that hold the same values (no stack copy: a narrow store then
    // a wide load stalled each short row, DeiT's 18 keys).
    const int64_t full = n / w * w, left = n - full;
    V m, last;
    M::Load(m, x);
    for (int64_t i = w; i < full; i += w) {
      V v;
      M::Load(v, x + i);
      m = v > m ? v : m;
    }
    M::Load(last, x + n - w);
    m = last > m ? last : m;
    const float mx = ReduceLanes<true, w>(m);
    exp_shifted(last, mx);
    I lane;
    for (int j = 0; j < w; ++j) lane[j] = j;
    V sum = lane >= static_cast<int>(w - left) ? last : zero;
    for (int64_t i = 0; i < full; i += w) {
      V v;
      M::Load(v, x + i);
      exp_shifted(v, mx);
      sum += v;
      M::Store(y + i, v);
    }
    const float inv = 1.f / ReduceLanes<false, w>(sum);
    for (int64_t i = 0; i < full; i += w) {
      V v;
      M::Load(v, y + i);
      v *= inv;
      M::Store(y + i, v);
    }
    last *= inv;
    M::Store(y + n - w, last);
    return;
  }
  float mx = x[0];
  int64_t i = 0;
  if (n >= w) {
    V m;
    M::Load(m, x);
    for (i = w; i + w <= n; i += w) {
      V v;
      M::Load(v, x + i);
      m = v > m ? v : m;
    }
    mx = ReduceLanes<true, w>(m);
  }
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  V sum = {};
  i = 0;
  for (; i + w <= n; i += w) {
    V v;
    M::Load(v, x + i);
    exp_shifted(v, mx);
    sum += v;
    M::Store(y + i, v);
  }
  float s = ReduceLanes<false, w>(sum);
  if (i < n) {
    const int64_t left = n - i;
    float tail[w] = {};
    std::memcpy(tail, x + i, static_cast<size_t>(left) * sizeof(float));
    V v;
    M::Load(v, tail);
    exp_shifted(v, mx);
    M::Store(tail, v);
    for (int64_t j = 0; j < left; ++j) {
      y[i + j] = tail[j];
      s += tail[j];
    }
  }
  const float inv = 1.f / s;
  i = 0;
  for (; i + w <= n; i += w) {
    V v;
    M::Load(v, y + i);
    v *= inv;
    M::Store(y + i, v);
  }
  for (; i < n; ++i) y[i] *= inv;
}

// Layer norm of `rows` rows of c values (see LayerNormRows): the sum, then
// the squared deviations from the mean (two passes, as the converter's
// chain), then x * s + (beta - mean * s) with s = rsqrt(var + eps) * gamma.
// Two accumulators per pass; the tails (c not a multiple of W) in scalars.
template <typename V, typename I>
GLD_INLINE void LayerNorm(const float* x, float* y, int64_t rows, int64_t c, const float* gamma, const float* beta,
                          float epsilon) {
  using M = VecMath<V, I>;
  constexpr int w = M::kWidth;
  const float inv_c = 1.f / static_cast<float>(c);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * c;
    float* dst = y + r * c;
    V a0 = {}, a1 = {};
    int64_t i = 0;
    for (; i + 2 * w <= c; i += 2 * w) {
      V v0, v1;
      M::Load(v0, row + i);
      M::Load(v1, row + i + w);
      a0 += v0;
      a1 += v1;
    }
    for (; i + w <= c; i += w) {
      V v;
      M::Load(v, row + i);
      a0 += v;
    }
    a0 += a1;
    float sum = ReduceLanes<false, w>(a0);
    for (; i < c; ++i) sum += row[i];
    const float mean = sum * inv_c;
    a0 = V{};
    a1 = V{};
    for (i = 0; i + 2 * w <= c; i += 2 * w) {
      V v0, v1;
      M::Load(v0, row + i);
      M::Load(v1, row + i + w);
      v0 -= mean;
      v1 -= mean;
      a0 += v0 * v0;
      a1 += v1 * v1;
    }
    for (; i + w <= c; i += w) {
      V v;
      M::Load(v, row + i);
      v -= mean;
      a0 += v * v;
    }
    a0 += a1;
    float sq = ReduceLanes<false, w>(a0);
    for (; i < c; ++i) sq += (row[i] - mean) * (row[i] - mean);
    const float rs = 1.f / std::sqrt(sq * inv_c + epsilon);
    for (i = 0; i + w <= c; i += w) {
      V v, g, b;
      M::Load(v, row + i);
      M::Load(g, gamma + i);
      M::Load(b, beta + i);
      const V s = g * rs;
      v = v * s + (b - mean * s);
      M::Store(dst + i, v);
    }
    for (; i < c; ++i) {
      const float s = rs * gamma[i];
      dst[i] = row[i] * s + (beta[i] - mean * s);
    }
  }
}

#ifdef GLD_AVX512
GLD_AVX512 void ExpRow16(const float* x, float* y, int64_t n) {
  MapRow<Float16, Int16>(x, y, n, [](Float16& v) { VecMath<Float16, Int16>::Exp(v); });
}
GLD_AVX512 void GeluRow16(const float* x, float* y, int64_t n, bool approximate) {
  if (approximate) {
    MapRow<Float16, Int16>(x, y, n, [](Float16& v) { VecMath<Float16, Int16>::GeluTanh(v); });
  } else {
    MapRow<Float16, Int16>(x, y, n, [](Float16& v) { VecMath<Float16, Int16>::GeluExact(v); });
  }
}
GLD_AVX512 void TanhRow16(const float* x, float* y, int64_t n) {
  MapRow<Float16, Int16>(x, y, n, [](Float16& v) { VecMath<Float16, Int16>::Tanh(v); });
}
GLD_AVX512 void SigmoidRow16(const float* x, float* y, int64_t n) {
  MapRow<Float16, Int16>(x, y, n, [](Float16& v) { VecMath<Float16, Int16>::Sigmoid(v); });
}
GLD_AVX512 void SoftmaxRows16(const float* x, float* y, int64_t rows, int64_t n, float beta) {
  for (int64_t r = 0; r < rows; ++r) Softmax<Float16, Int16>(x + r * n, y + r * n, n, beta);
}
GLD_AVX512 void LayerNormRows16(const float* x, float* y, int64_t rows, int64_t c, const float* gamma,
                                const float* beta, float epsilon) {
  LayerNorm<Float16, Int16>(x, y, rows, c, gamma, beta, epsilon);
}
#endif

GLD_MULTIVERSION void ExpRow8(const float* x, float* y, int64_t n) {
  MapRow<Float8, Int8>(x, y, n, [](Float8& v) { VecMath<Float8, Int8>::Exp(v); });
}
GLD_MULTIVERSION void GeluRow8(const float* x, float* y, int64_t n, bool approximate) {
  if (approximate) {
    MapRow<Float8, Int8>(x, y, n, [](Float8& v) { VecMath<Float8, Int8>::GeluTanh(v); });
  } else {
    MapRow<Float8, Int8>(x, y, n, [](Float8& v) { VecMath<Float8, Int8>::GeluExact(v); });
  }
}
GLD_MULTIVERSION void TanhRow8(const float* x, float* y, int64_t n) {
  MapRow<Float8, Int8>(x, y, n, [](Float8& v) { VecMath<Float8, Int8>::Tanh(v); });
}
GLD_MULTIVERSION void SigmoidRow8(const float* x, float* y, int64_t n) {
  MapRow<Float8, Int8>(x, y, n, [](Float8& v) { VecMath<Float8, Int8>::Sigmoid(v); });
}
GLD_MULTIVERSION void SoftmaxRows8(const float* x, float* y, int64_t rows, int64_t n, float beta) {
  for (int64_t r = 0; r < rows; ++r) Softmax<Float8, Int8>(x + r * n, y + r * n, n, beta);
}
GLD_MULTIVERSION void LayerNormRows8(const float* x, float* y, int64_t rows, int64_t c, const float* gamma,
                                     const float* beta, float epsilon) {
  LayerNorm<Float8, Int8>(x, y, rows, c, gamma, beta, epsilon);
}

}  // namespace

void ExpRow(const float* x, float* y, int64_t n) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return ExpRow16(x, y, n);
#endif
  ExpRow8(x, y, n);
}

void GeluRow(const float* x, float* y, int64_t n, bool approximate) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return GeluRow16(x, y, n, approximate);
#endif
  GeluRow8(x, y, n, approximate);
}

void TanhRow(const float* x, float* y, int64_t n) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return TanhRow16(x, y, n);
#endif
  TanhRow8(x, y, n);
}

void SigmoidRow(const float* x, float* y, int64_t n) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return SigmoidRow16(x, y, n);
#endif
  SigmoidRow8(x, y, n);
}

void SoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, float beta) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return SoftmaxRows16(x, y, rows, n, beta);
#endif
  SoftmaxRows8(x, y, rows, n, beta);
}

void LayerNormRows(const float* x, float* y, int64_t rows, int64_t c, const float* gamma, const float* beta,
                   float epsilon) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return LayerNormRows16(x, y, rows, c, gamma, beta, epsilon);
#endif
  LayerNormRows8(x, y, rows, c, gamma, beta, epsilon);
}

}  // namespace gld::cpu
