#include "cpu_kernels/micro/vector_ops/vector_ops.h"

#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

template <VectorOp kOp>
__attribute__((always_inline)) inline float Apply(float a, float b) {
  if constexpr (kOp == VectorOp::kAdd) return a + b;
  if constexpr (kOp == VectorOp::kSub) return a - b;
  if constexpr (kOp == VectorOp::kMul) return a * b;
  return a / b;
}

// The scalar twin of GLD_CLAMP8 (simd.h), for the tail.
__attribute__((always_inline)) inline float Clamp1(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

template <VectorOp kOp>
__attribute__((always_inline)) inline void Binary(const float* a, const float* b, float* out, int64_t n, bool clamp,
                                                  float lo, float hi) {
  const Float8 vlo = Float8{} + lo, vhi = Float8{} + hi;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    Float8 a0, a1, b0, b1;
    GLD_LOAD8(a0, a + i);
    GLD_LOAD8(a1, a + i + 8);
    GLD_LOAD8(b0, b + i);
    GLD_LOAD8(b1, b + i + 8);
    Float8 r0, r1;
    if constexpr (kOp == VectorOp::kAdd) {
      r0 = a0 + b0;
      r1 = a1 + b1;
    } else if constexpr (kOp == VectorOp::kSub) {
      r0 = a0 - b0;
      r1 = a1 - b1;
    } else if constexpr (kOp == VectorOp::kMul) {
      r0 = a0 * b0;
      r1 = a1 * b1;
    } else {
      r0 = a0 / b0;
      r1 = a1 / b1;
    }
    if (clamp) {
      GLD_CLAMP8(r0, vlo, vhi);
      GLD_CLAMP8(r1, vlo, vhi);
    }
    GLD_STORE8(out + i, r0);
    GLD_STORE8(out + i + 8, r1);
  }
  for (; i < n; ++i) {
    const float r = Apply<kOp>(a[i], b[i]);
    out[i] = clamp ? Clamp1(r, lo, hi) : r;
  }
}

// n values of one row: out = x >= 0 ? x : x * alpha, lane by lane.
__attribute__((always_inline)) inline void PreluRow(const float* x, const float* alpha, int64_t n, float* out) {
  const Float8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) {
    Float8 v, s;
    GLD_LOAD8(v, x + c);
    GLD_LOAD8(s, alpha + c);
    const Float8 scaled = v * s;
    v = v >= zero ? v : scaled;
    GLD_STORE8(out + c, v);
  }
  for (; c < n; ++c) out[c] = x[c] >= 0.f ? x[c] : x[c] * alpha[c];
}

}  // namespace

GLD_MULTIVERSION
void VectorBinary(VectorOp op, const float* a, const float* b, float* out, int64_t n, bool clamp, float lo,
                  float hi) {
  switch (op) {
    case VectorOp::kAdd: Binary<VectorOp::kAdd>(a, b, out, n, clamp, lo, hi); break;
    case VectorOp::kSub: Binary<VectorOp::kSub>(a, b, out, n, clamp, lo, hi); break;
    case VectorOp::kMul: Binary<VectorOp::kMul>(a, b, out, n, clamp, lo, hi); break;
    case VectorOp::kDiv: Binary<VectorOp::kDiv>(a, b, out, n, clamp, lo, hi); break;
  }
}

GLD_MULTIVERSION
void PreluRows(const float* x, const float* alpha, int64_t channels, int64_t rows, float* out) {
  for (int64_t r = 0; r < rows; ++r) PreluRow(x + r * channels, alpha, channels, out + r * channels);
}

GLD_MULTIVERSION
void PreluSpan(const float* x, const float* alpha, int64_t channels, int64_t c0, int64_t n, float* out) {
  int64_t i = n < channels - c0 ? n : channels - c0;
  PreluRow(x, alpha + c0, i, out);
  for (; i + channels <= n; i += channels) PreluRow(x + i, alpha, channels, out + i);
  PreluRow(x + i, alpha, n - i, out + i);
}

}  // namespace gld::cpu

// ---- The recurrent product (recurrent.cc) -------------------------------------

namespace gld::cpu {

GLD_MULTIVERSION
void MatVecTransposedAccumulate(const float* __restrict wt, const float* __restrict h, int64_t k, int64_t n,
                                float* __restrict g) {
  for (int64_t kk = 0; kk < k; ++kk) {
    const float hk = h[kk];
    const float* __restrict row = wt + kk * n;
    for (int64_t j = 0; j < n; ++j) g[j] += hk * row[j];
  }
}

}  // namespace gld::cpu
