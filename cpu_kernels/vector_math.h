// Vectorized transcendental rows for the transformer and recurrent kernels
// (GELU, SOFTMAX, TANH, LOGISTIC):
// 16-wide where the CPU has AVX-512F, else 8-wide (AVX2 with FMA where
// present, see simd.h). Accuracy: exp within 2 ulp of std::exp over the
// normal range (overflow to +inf above ~88.72, flush to 0 below ~-103.9);
// GELU within 2e-6 of its value plus 3e-7 of |x| of the formulas TFLite's
// kernel evaluates. NaN and infinities come out as those formulas give them
// (GELU(-inf) = -inf * 0 = NaN, GELU(+inf) = +inf). Internal to cpu_kernels/.
#pragma once

#include <cstdint>

namespace gld::cpu {

// y[i] = exp(x[i]) for i < n (y may be x).
void ExpRow(const float* x, float* y, int64_t n);

// GELU over n values (y may be x): exact, 0.5 x (1 + erf(x / sqrt(2))),
// with a rational erf within 4e-7 (XNNPACK's GELU, which LiteRT runs, is
// also a rational erf); or, with `approximate`,
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) with a rational tanh
// within 3e-7.
void GeluRow(const float* x, float* y, int64_t n, bool approximate);

// y[i] = tanh(x[i]) for i < n (y may be x): a rational fit within 3e-7
// of tanh (relative for small |x|), exactly +-1 beyond |x| = 9.
void TanhRow(const float* x, float* y, int64_t n);

// y[i] = 1 / (1 + exp(-x[i])) for i < n (y may be x), on ExpRow's exp:
// within a few ulp, 0 for x below about -88, 1 above about 17.
void SigmoidRow(const float* x, float* y, int64_t n);

// Softmax of one row of n > 0 values: y = exp((x - max x) * beta) / sum
// (y may be x). A NaN anywhere, or +inf, makes the row NaN, as the scalar
// formula does.
void SoftmaxRow(const float* x, float* y, int64_t n, float beta);

}  // namespace gld::cpu
