// Vectorized rows for the transformer and recurrent kernels (GELU, SOFTMAX,
// layer norm, TANH, LOGISTIC):
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

// Softmax of each of `rows` consecutive rows of n > 0 values (SoftmaxRow:
// one): y = exp((x - max x) * beta) / sum (y may be x). A NaN anywhere, or +inf, makes the row NaN, as the scalar
// formula does. Terms whose exponent is below -87.34 (a denormal exp) are 0,
// as in XNNPACK's softmax.
void SoftmaxRows(const float* x, float* y, int64_t rows, int64_t n, float beta);
inline void SoftmaxRow(const float* x, float* y, int64_t n, float beta) { SoftmaxRows(x, y, 1, n, beta); }

// Layer norm of `rows` consecutive rows of c > 0 values (y may be x): per
// row, mean = sum / c, var = sum((x - mean)^2) / c (float sums, several
// lanes), s = gamma / sqrt(var + epsilon), y = x * s + (beta - mean * s).
// gamma and beta hold c values each. A NaN or infinity in a row makes the
// whole row NaN, as the converter's MEAN / SQUARED_DIFFERENCE chain does.
void LayerNormRows(const float* x, float* y, int64_t rows, int64_t c, const float* gamma, const float* beta,
                   float epsilon);

}  // namespace gld::cpu
