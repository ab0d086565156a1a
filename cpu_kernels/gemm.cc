#include "cpu_kernels/gemm.h"

#include <algorithm>

namespace gld::cpu {

void PackGemmB(const float* b, int64_t k, int64_t n, int64_t row_stride, int64_t col_stride,
               PackedB* out) {
  out->k = k;
  out->n = n;
  const int64_t panels = (n + kGemmNr - 1) / kGemmNr;
  out->data.assign(static_cast<size_t>(panels * k * kGemmNr), 0.f);
  for (int64_t p = 0; p < panels; ++p) {
    float* dst = out->data.data() + p * k * kGemmNr;
    const int64_t c0 = p * kGemmNr;
    const int64_t cols = std::min(kGemmNr, n - c0);
    for (int64_t r = 0; r < k; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        dst[r * kGemmNr + j] = b[r * row_stride + (c0 + j) * col_stride];
      }
    }
  }
}

namespace {

// acc[ROWS][kGemmNr] += A[ROWS x kc] * Bpanel[kc x kGemmNr].
template <int ROWS>
inline void MicroKernel(const float* a, int64_t lda, const float* bp, int64_t kc,
                        float acc[ROWS][kGemmNr]) {
  float r[ROWS][kGemmNr];
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < kGemmNr; ++j) r[i][j] = acc[i][j];
  for (int64_t k = 0; k < kc; ++k) {
    const float* brow = bp + k * kGemmNr;
    for (int i = 0; i < ROWS; ++i) {
      const float av = a[i * lda + k];
      for (int j = 0; j < kGemmNr; ++j) r[i][j] += av * brow[j];
    }
  }
  for (int i = 0; i < ROWS; ++i)
    for (int j = 0; j < kGemmNr; ++j) acc[i][j] = r[i][j];
}

// One ROWS x kGemmNr tile of C over depth [k0, k0 + kc). The first depth
// block starts from the bias, later ones from C; the last applies `act`.
template <int ROWS>
inline void Tile(const float* a, int64_t lda, const float* panel, int64_t k0, int64_t kc,
                 bool first, bool last, const float* bias, int64_t c0, int64_t cols, float* c,
                 int64_t ldc, ActivationRange act) {
  float acc[ROWS][kGemmNr];
  for (int i = 0; i < ROWS; ++i) {
    for (int64_t j = 0; j < kGemmNr; ++j) {
      if (j >= cols) {
        acc[i][j] = 0.f;
      } else if (first) {
        acc[i][j] = bias != nullptr ? bias[c0 + j] : 0.f;
      } else {
        acc[i][j] = c[i * ldc + c0 + j];
      }
    }
  }
  MicroKernel<ROWS>(a + k0, lda, panel + k0 * kGemmNr, kc, acc);
  for (int i = 0; i < ROWS; ++i) {
    float* crow = c + i * ldc + c0;
    if (last) {
      for (int64_t j = 0; j < cols; ++j) crow[j] = std::min(std::max(acc[i][j], act.lo), act.hi);
    } else {
      for (int64_t j = 0; j < cols; ++j) crow[j] = acc[i][j];
    }
  }
}

}  // namespace

void GemmRows(const float* a, int64_t lda, int64_t m, const PackedB& b, const float* bias,
              float* c, int64_t ldc, ActivationRange act) {
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
      int64_t i = 0;
      for (; i + kGemmMr <= m; i += kGemmMr) {
        Tile<kGemmMr>(a + i * lda, lda, panel, k0, kc, first, last, bias, c0, cols, c + i * ldc,
                      ldc, act);
      }
      for (; i < m; ++i) {
        Tile<1>(a + i * lda, lda, panel, k0, kc, first, last, bias, c0, cols, c + i * ldc, ldc,
                act);
      }
    }
  }
}

}  // namespace gld::cpu
