// A small blocked fp32 GEMM for CONV_2D (im2col), FULLY_CONNECTED and
// BATCH_MATMUL: C = A * B (+ bias per column), then a clamp activation.
// B is packed once into panels of kGemmNr columns so the micro-kernel reads
// it contiguously.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cpu_kernels/kernel_helpers.h"

namespace gld::cpu {

inline constexpr int64_t kGemmNr = 16;   // columns per packed panel
inline constexpr int64_t kGemmMr = 6;    // rows per micro-kernel call
inline constexpr int64_t kGemmKc = 256;  // depth block

struct PackedB {
  int64_t k = 0, n = 0;
  // Panels of kGemmNr columns; panel p holds rows [0, k) as k x kGemmNr,
  // columns past n are zero.
  std::vector<float> data;
};

// Packed weight matrices, one per group, kept in a node's state slot when
// the weights are constant.
struct PackedWeights final : KernelState {
  std::vector<PackedB> groups;
};

// The packed weights of the node's input `weights_input`: from its state slot
// when they are constant and were packed on an earlier run, else packed now
// by pack(&groups) (and kept when constant). `scratch` holds them otherwise.
const std::vector<PackedB>& PackWeightsOnce(KernelContext& ctx, size_t weights_input, PackedWeights* scratch,
                                            const std::function<void(std::vector<PackedB>*)>& pack);

// Packs B (k x n) where element (r, c) is at b[r * row_stride + c * col_stride].
void PackGemmB(const float* b, int64_t k, int64_t n, int64_t row_stride, int64_t col_stride,
               PackedB* out);

// sum a[i] * b[i] over [0, n), in eight interleaved partial sums.
float Dot(const float* a, const float* b, int64_t n);

// Few rows (fewer than kGemmMr): packing B would cost more than the product,
// so each output is a dot product over W as it is, row-major [n, k] (the
// weights of FULLY_CONNECTED and CONV_2D). For rows [0, m) and columns
// [j0, j1): c[i * ldc + j] = act(dot(a + i * k, w + j * k) + bias[j]).
// bias may be nullptr. Single-threaded; callers split columns.
void DotRows(const float* a, int64_t m, const float* w, int64_t k, int64_t j0, int64_t j1, const float* bias,
             float* c, int64_t ldc, Activation act);

// C rows [0, m): c[i * ldc + j] = act(sum_k a[i * lda + k] * B(k, j) + bias[j]).
// bias may be nullptr. Single-threaded; callers split rows.
void GemmRows(const float* a, int64_t lda, int64_t m, const PackedB& b, const float* bias,
              float* c, int64_t ldc, ActivationRange act);

}  // namespace gld::cpu
