#include "cpu_kernels/micro/gemm/gemm.h"

#include <algorithm>
#include <memory>

#include "cpu_kernels/micro/simd.h"
#include "cpu_kernels/micro/vector_math/activation.h"

namespace gld::cpu {

const std::vector<PackedB>& PackWeightsOnce(KernelContext& ctx, size_t weights_input, PackedWeights* scratch,
                                            const std::function<void(std::vector<PackedB>*)>& pack) {
  if (ctx.state == nullptr || !ctx.InputIsConstant(weights_input)) {
    pack(&scratch->groups);
    return scratch->groups;
  }
  if (auto* kept = StateAs<PackedWeights>(ctx)) return kept->groups;
  auto fresh = std::make_unique<PackedWeights>();
  pack(&fresh->groups);
  *ctx.state = std::move(fresh);
  return static_cast<PackedWeights*>(ctx.state->get())->groups;
}

static_assert(kGemmNr == 16, "the micro-kernels hold two 8-wide vectors per row");

void PackGemmB(const float* b, int64_t k, int64_t n, int64_t row_stride, int64_t col_stride, PackedB* out) {
  out->k = k;
  out->n = n;
  const int64_t panels = (n + kGemmNr - 1) / kGemmNr;
  out->data.assign(static_cast<size_t>(panels * k * kGemmNr), 0.f);
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = out->data.data() + p * k * kGemmNr;
    const int64_t c0 = p * kGemmNr;
    const int64_t cols = std::min(kGemmNr, n - c0);
    if (row_stride == 1) {  // columns contiguous in memory (B is a transposed weight matrix)
      for (int64_t j = 0; j < cols; ++j) {
        const float* src = b + (c0 + j) * col_stride;
        for (int64_t r = 0; r < k; ++r) dst[r * kGemmNr + j] = src[r];
      }
    } else {
      for (int64_t r = 0; r < k; ++r) {
        for (int64_t j = 0; j < cols; ++j) dst[r * kGemmNr + j] = b[r * row_stride + (c0 + j) * col_stride];
      }
    }
  }
}

GLD_MULTIVERSION
float Dot(const float* __restrict__ a, const float* __restrict__ b, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

void DotRows(const float* a, int64_t m, const float* w, int64_t k, int64_t j0, int64_t j1, const float* bias,
             float* c, int64_t ldc, Activation act) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = j0; j < j1; ++j) {
      c[i * ldc + j] = ApplyActivation(act, Dot(a + i * k, w + j * k, k) + (bias ? bias[j] : 0.f));
    }
  }
}

namespace {

// acc (6 rows x 16, row-major) += A[6 x kc] * panel[kc x 16].
GLD_MULTIVERSION
void Kernel6x16(const float* a, int64_t lda, const float* panel, int64_t kc, float* acc) {
  Float8 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  GLD_LOAD8(c00, acc + 0);
  GLD_LOAD8(c01, acc + 8);
  GLD_LOAD8(c10, acc + 16);
  GLD_LOAD8(c11, acc + 24);
  GLD_LOAD8(c20, acc + 32);
  GLD_LOAD8(c21, acc + 40);
  GLD_LOAD8(c30, acc + 48);
  GLD_LOAD8(c31, acc + 56);
  GLD_LOAD8(c40, acc + 64);
  GLD_LOAD8(c41, acc + 72);
  GLD_LOAD8(c50, acc + 80);
  GLD_LOAD8(c51, acc + 88);
  const float* a0 = a;
  const float* a1 = a + lda;
  const float* a2 = a + 2 * lda;
  const float* a3 = a + 3 * lda;
  const float* a4 = a + 4 * lda;
  const float* a5 = a + 5 * lda;
  for (int64_t k = 0; k < kc; ++k) {
    Float8 b0, b1;
    GLD_LOAD8(b0, panel + k * 16);
    GLD_LOAD8(b1, panel + k * 16 + 8);
    const float v0 = a0[k], v1 = a1[k], v2 = a2[k], v3 = a3[k], v4 = a4[k], v5 = a5[k];
    c00 += b0 * v0;
    c01 += b1 * v0;
    c10 += b0 * v1;
    c11 += b1 * v1;
    c20 += b0 * v2;
    c21 += b1 * v2;
    c30 += b0 * v3;
    c31 += b1 * v3;
    c40 += b0 * v4;
    c41 += b1 * v4;
    c50 += b0 * v5;
    c51 += b1 * v5;
  }
  GLD_STORE8(acc + 0, c00);
  GLD_STORE8(acc + 8, c01);
  GLD_STORE8(acc + 16, c10);
  GLD_STORE8(acc + 24, c11);
  GLD_STORE8(acc + 32, c20);
  GLD_STORE8(acc + 40, c21);
  GLD_STORE8(acc + 48, c30);
  GLD_STORE8(acc + 56, c31);
  GLD_STORE8(acc + 64, c40);
  GLD_STORE8(acc + 72, c41);
  GLD_STORE8(acc + 80, c50);
  GLD_STORE8(acc + 88, c51);
}

// One row: acc[16] += A[1 x kc] * panel[kc x 16].
GLD_MULTIVERSION
void Kernel1x16(const float* a, const float* panel, int64_t kc, float* acc) {
  Float8 c0, c1;
  GLD_LOAD8(c0, acc);
  GLD_LOAD8(c1, acc + 8);
  for (int64_t k = 0; k < kc; ++k) {
    Float8 b0, b1;
    GLD_LOAD8(b0, panel + k * 16);
    GLD_LOAD8(b1, panel + k * 16 + 8);
    c0 += b0 * a[k];
    c1 += b1 * a[k];
  }
  GLD_STORE8(acc, c0);
  GLD_STORE8(acc + 8, c1);
}

constexpr int64_t kRows = 6;

// A rows x 16 tile of C over depth [k0, k0 + kc): starts from the bias on the
// first depth block, from C otherwise; the last block applies `act`. The
// loops over a row carry no per-element branch, so they vectorize: with a
// shallow depth (a 1x1 convolution over few channels) they cost as much as
// the micro-kernel.
GLD_MULTIVERSION
void Tile(const float* a, int64_t lda, int64_t rows, const float* panel, int64_t k0, int64_t kc, bool first, bool last,
          const float* bias, int64_t c0, int64_t cols, float* c, int64_t ldc, ActivationRange act) {
  float acc[kRows * kGemmNr];
  for (int64_t i = 0; i < rows; ++i) {
    float* row = acc + i * kGemmNr;
    const float* src = first ? (bias != nullptr ? bias + c0 : nullptr) : c + i * ldc + c0;
    if (src != nullptr) {
      std::copy(src, src + cols, row);
    } else {
      std::fill(row, row + cols, 0.f);
    }
    std::fill(row + cols, row + kGemmNr, 0.f);
  }
  if (rows == kRows) {
    Kernel6x16(a + k0, lda, panel + k0 * kGemmNr, kc, acc);
  } else {
    for (int64_t i = 0; i < rows; ++i) Kernel1x16(a + i * lda + k0, panel + k0 * kGemmNr, kc, acc + i * kGemmNr);
  }
  for (int64_t i = 0; i < rows; ++i) {
    float* crow = c + i * ldc + c0;
    const float* arow = acc + i * kGemmNr;
    if (last) {
      for (int64_t j = 0; j < cols; ++j) crow[j] = std::min(std::max(arow[j], act.lo), act.hi);
    } else {
      for (int64_t j = 0; j < cols; ++j) crow[j] = arow[j];
    }
  }
}

}  // namespace

void GemmRows(const float* a, int64_t lda, int64_t m, const PackedB& b, const float* bias, float* c, int64_t ldc,
              ActivationRange act) {
  const int64_t k = b.k;
  const int64_t panels = (b.n + kGemmNr - 1) / kGemmNr;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < b.n; ++j)
        c[i * ldc + j] = std::min(std::max(bias != nullptr ? bias[j] : 0.f, act.lo), act.hi);
    return;
  }
  for (int64_t k0 = 0; k0 < k; k0 += kGemmKc) {
    const int64_t kc = std::min(kGemmKc, k - k0);
    const bool first = k0 == 0;
    const bool last = k0 + kc >= k;
    for (int64_t p = 0; p < panels; ++p) {
      const int64_t c0 = p * kGemmNr;
      const int64_t cols = std::min(kGemmNr, b.n - c0);
      const float* panel = b.data.data() + p * k * kGemmNr;
      for (int64_t i = 0; i < m; i += kRows) {
        const int64_t rows = std::min(kRows, m - i);
        Tile(a + i * lda, lda, rows, panel, k0, kc, first, last, bias, c0, cols, c + i * ldc, ldc, act);
      }
    }
  }
}

}  // namespace gld::cpu
