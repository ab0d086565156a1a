#include "cpu_kernels/vector_math.h"

#include <cmath>
#include <cstring>

#include "cpu_kernels/simd.h"

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

// The lanes combined by f, one after the other.
template <int kWidth, typename F>
GLD_INLINE float ReduceLanes(const float (&lanes)[kWidth], F f) {
  float r = lanes[0];
  for (int j = 1; j < kWidth; ++j) r = f(r, lanes[j]);
  return r;
}

// The row's max, then y = exp((x - max) * beta) and their sum, then y / sum.
// The tail (n not a multiple of W) runs as one vector padded with zeros,
// the padding's lanes left out of the sum. Any NaN in the row makes the
// sum, and so the row, NaN; max's order does not matter.
template <typename V, typename I>
GLD_INLINE void Softmax(const float* x, float* y, int64_t n, float beta) {
  using M = VecMath<V, I>;
  constexpr int64_t w = M::kWidth;
  float lanes[w];
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
    M::Store(lanes, m);
    mx = ReduceLanes(lanes, [](float a, float b) { return b > a ? b : a; });
  }
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  V sum = {};
  i = 0;
  for (; i + w <= n; i += w) {
    V v;
    M::Load(v, x + i);
    v = (v - mx) * beta;
    M::Exp(v);
    sum += v;
    M::Store(y + i, v);
  }
  M::Store(lanes, sum);
  float s = ReduceLanes(lanes, [](float a, float b) { return a + b; });
  if (i < n) {
    const int64_t left = n - i;
    float tail[w] = {};
    std::memcpy(tail, x + i, static_cast<size_t>(left) * sizeof(float));
    V v;
    M::Load(v, tail);
    v = (v - mx) * beta;
    M::Exp(v);
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
GLD_AVX512 void SoftmaxRow16(const float* x, float* y, int64_t n, float beta) {
  Softmax<Float16, Int16>(x, y, n, beta);
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
GLD_MULTIVERSION void SoftmaxRow8(const float* x, float* y, int64_t n, float beta) {
  Softmax<Float8, Int8>(x, y, n, beta);
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

void SoftmaxRow(const float* x, float* y, int64_t n, float beta) {
#ifdef GLD_AVX512
  if (HasAvx512f()) return SoftmaxRow16(x, y, n, beta);
#endif
  SoftmaxRow8(x, y, n, beta);
}

}  // namespace gld::cpu
