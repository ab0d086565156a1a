// Vectorized loops over contiguous float arrays for the elementwise kernels
// (compiled for AVX2 with FMA where the CPU has it, see simd.h): arithmetic
// on two operands of one shape with the fused clamp in the same pass, and
// PRELU's per-channel slope. NaN and infinities come out as the scalar IEEE
// operations (and TFLite's kernels) give them. Internal to cpu_kernels/.
#pragma once

#include <cstdint>

namespace gld::cpu {

enum class VectorOp { kAdd, kSub, kMul, kDiv };

// out[i] = a[i] op b[i] for i < n; then, when `clamp`, min(max(v, lo), hi)
// with a NaN kept (as ClampRow and TFLite's activation do).
void VectorBinary(VectorOp op, const float* a, const float* b, float* out, int64_t n, bool clamp, float lo,
                  float hi);

// `rows` rows of `channels` values: out = x >= 0 ? x : x * alpha[c].
void PreluRows(const float* x, const float* alpha, int64_t channels, int64_t rows, float* out);

// The same on n values that start at channel c0 of a row (any n, rows
// wrapping at `channels`).
void PreluSpan(const float* x, const float* alpha, int64_t channels, int64_t c0, int64_t n, float* out);

}  // namespace gld::cpu

// (The recurrent ops' gate functions are vector_math.h's SigmoidRow and
// TanhRow.)
namespace gld::cpu {
// g[j] += sum over k of h[k] * wt[k * n + j], for j < n (a matrix-vector
// product accumulated with the matrix stored transposed, [k][n]).
void MatVecTransposedAccumulate(const float* wt, const float* h, int64_t k, int64_t n, float* g);
}  // namespace gld::cpu
