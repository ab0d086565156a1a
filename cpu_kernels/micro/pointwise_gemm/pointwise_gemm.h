// The GEMM of a 1x1 convolution on AVX-512 or AVX2: C[m x n] = A[m x k] *
// W^T + bias, clamped, where A's rows are input pixels (k channels) and W is
// the filter, [n, k] row-major. Where the CPU has AVX-512F this runs a 1x1 CONV_2D at
// about 1.2x the speed of the XNNPACK build this project links (its AVX-512
// GEMM reads A through seven pointers, one channel per loop; single 1x1
// layers of hand_landmark_lite: 43 -> 35 us). Weights are packed once, at
// prepare, into panels of 32 (or, for the last 16 or fewer columns, 16)
// columns. PointwiseGemmIndirect runs the same tiles over rows given as
// runs of pointers: a convolution's other windows, read in place.
//
// Each output is bias[j] + sum over c = 0..k-1 of a[c] * w[j][c], one fused
// multiply-add at a time in that order (the order of XNNPACK's GEMMs); the
// clamp keeps a NaN (as GLD_CLAMP8). Two forms over the same packed panels:
// AVX-512F tiles of 16-lane vectors, and, where the CPU has AVX2 and FMA but
// not AVX-512 (AMD Zen 2/3, Intel client cores), tiles of 8-lane vectors
// over each 16-column half of a panel; the same multiply-adds in the same
// order, so the same bits. Internal to cpu_kernels/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_kernels/kernel_helpers.h"
#include "gldelegate/status.hpp"
#include "util/aligned_buffer.h"

namespace gld::cpu {

// True when the CPU (and the OS) run AVX-512F or AVX2 with FMA, the library
// was built with those kernels (GCC or Clang on x86-64 Linux), and the path
// is on (SetPointwiseGemmEnabled).
bool PointwiseGemmAvailable();

// The tile forms: what the CPU runs, the one runs use, and, for tests of
// each form on a CPU that runs both, a choice (kNone: the best again) for
// the whole process that returns the previous one.
enum class PointwiseForm { kNone, kAvx2, kAvx512 };
std::vector<PointwiseForm> PointwiseGemmForms();
PointwiseForm ActivePointwiseGemmForm();
PointwiseForm SetPointwiseGemmForm(PointwiseForm form);
const char* PointwiseFormName(PointwiseForm form);

// Turns the path off (false) or back on for the prepares that follow, in the
// whole process; returns the previous setting. For tests of the XNNPACK
// path a 1x1 convolution takes elsewhere (ScopedPointwiseGemm).
bool SetPointwiseGemmEnabled(bool enabled);
class ScopedPointwiseGemm {
 public:
  explicit ScopedPointwiseGemm(bool enabled) : previous_(SetPointwiseGemmEnabled(enabled)) {}
  ~ScopedPointwiseGemm() { SetPointwiseGemmEnabled(previous_); }
  ScopedPointwiseGemm(const ScopedPointwiseGemm&) = delete;
  ScopedPointwiseGemm& operator=(const ScopedPointwiseGemm&) = delete;

 private:
  bool previous_;
};

struct PointwisePanel {
  int64_t col = 0;    // first output column
  int64_t width = 0;  // 16 or 32 packed columns
  int64_t cols = 0;   // of them real (the rest are zero)
  int64_t weights = 0;  // float offset of the panel's k rows of `width` weights
  int64_t bias = 0;     // float offset of its `width` biases
};

struct PointwiseWeights {
  int64_t k = 0, n = 0;
  std::vector<PointwisePanel> panels;
  AlignedBuffer packed;  // the panels' weights, then their biases (zero past n)
  const float* data() const { return reinterpret_cast<const float*>(packed.data()); }
};

// Packs filter w ([n, k] row-major) and bias (n values, or nullptr: zeros).
// Internal error naming `what` when the memory cannot be had.
Status PackPointwiseWeights(const float* w, const float* bias, int64_t n, int64_t k, const std::string& what,
                            PointwiseWeights* out);

// The same in two stages, for a B that changes from run to run (BATCH_MATMUL's
// operand): the panels of n columns of depth k, zeroed (bias zero), once;
// then, at every run, B (k x n, element (r, c) at b[r * row_stride + c *
// col_stride]) written into them. Columns past n stay zero.
Status PlanPointwisePanels(int64_t n, int64_t k, const std::string& what, PointwiseWeights* out);
void PackPointwiseB(const float* b, int64_t row_stride, int64_t col_stride, PointwiseWeights* w);

// Output rows per micro-kernel call at most (and rows of PointwiseGemmIndirect).
constexpr int64_t kPointwiseRowTile = 16;

// Rows [0, m) of C over the columns of panels [p0, p1):
// c[i * ldc + j] = clamp(bias[j] + sum_c a[i * lda + c] * w[j][c]), clamped
// to [act.lo, act.hi] (NaN stays). Reads the k values of each row of a;
// single-threaded (callers split rows and panels).
// PointwiseGemmAvailable() must be true.
void PointwiseGemmRows(const PointwiseWeights& w, size_t p0, size_t p1, const float* a, int64_t lda, int64_t m,
                       float* c, int64_t ldc, ActivationRange act);

// Where the rows of A are (a convolution's windows, read in place): row r
// is `segments` runs of seg_len values (segments * seg_len = k), run s at
// ptrs[s * stride + r] + s * advance (a table of every run: stride = the
// row count, advance 0; windows wholly inside the input: stride 0, one
// pointer per row and the distance between its runs).
struct PointwiseRuns {
  const float* const* ptrs = nullptr;
  int64_t stride = 0, advance = 0;
  int64_t segments = 1, seg_len = 0;
};

// The same for at most kPointwiseRowTile rows given as runs.
void PointwiseGemmIndirect(const PointwiseWeights& w, size_t p0, size_t p1, const PointwiseRuns& a, int64_t m,
                           float* c, int64_t ldc, ActivationRange act);

// A CONV_2D (or FULLY_CONNECTED) run on PointwiseGemmRows or
// PointwiseGemmIndirect (conv_gemm.cc): its packed filter, one per group,
// the fused activation's range and the window, kept in the node's state slot
// by PrepareConv2d.
struct ConvGemmState final : KernelState {
  std::vector<PointwiseWeights> weights;  // group g's: filter rows [g * n / groups, (g + 1) * n / groups)
  ActivationRange range;
  bool pointwise = false;  // a 1x1 window over every pixel: A is the input itself
  int64_t runs = 1;        // of a window: kh, kh x kw with a dilation across or with groups
  int64_t groups = 1, group_ic = 0;  // group g reads input channels [g * group_ic, (g + 1) * group_ic)
  int64_t ih = 0, iw = 0, ic = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pad_t = 0, pad_l = 0;
};

}  // namespace gld::cpu
