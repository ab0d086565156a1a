#include "cpu_kernels/micro/int8_rows/int8_rows.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "cpu_kernels/micro/fixed_point.h"
#include "cpu_kernels/micro/int8_rows/variants.h"
#include "util/cpu_features.h"


namespace gld::cpu {

namespace fp = fixed_point;

bool HasInt8RowsNeon() {
#ifdef GLD_INT8_ROWS_NEON
  return true;
#else
  return false;
#endif
}

bool HasInt8Rows16() {
#ifdef GLD_INT8_ROWS16
  const CpuFeatures& f = HostCpuFeatures();
  return f.avx512f && f.avx512vnni;
#else
  return false;
#endif
}

namespace {

int8_t ClampToInt8(int32_t v) { return static_cast<int8_t>(std::min(std::max(v, -128), 127)); }

// --- portable loops -------------------------------------------------------------

// One element of kind `K` (a template parameter, so the run's loop carries
// no switch).
template <Int8BinaryKind K>
int32_t ApplyBinary(const Int8BinaryParams& p, int32_t x, int32_t y) {
  const int32_t xv = x + p.a_offset, yv = y + p.b_offset;
  int32_t raw = 0;
  if constexpr (K == Int8BinaryKind::kXnnAdd || K == Int8BinaryKind::kXnnSub) {
    const int64_t acc = p.xnn_bias + int64_t{x} * p.a_mult + int64_t{y} * p.b_mult;
    raw = static_cast<int32_t>(acc >> p.out_shift);
  } else if constexpr (K == Int8BinaryKind::kXnnMul) {
    const float scaled = static_cast<float>(xv * yv) * p.xnn_scale;
    const float clamped =
        std::min(std::max(scaled, static_cast<float>(p.lo - p.out_offset)), static_cast<float>(p.hi - p.out_offset));
    return fp::RoundHalfEvenSmall(clamped) + p.out_offset;
  } else if constexpr (K == Int8BinaryKind::kMul) {
    raw = fp::MultiplyByQuantizedMultiplier(xv * yv, p.out_mult, p.out_shift);
  } else {
    // Each operand on the common scale, from its table.
    const int32_t sx = p.a_scaled[static_cast<uint8_t>(x)];
    const int32_t sy = p.b_scaled[static_cast<uint8_t>(y)];
    int32_t combined = 0;
    if constexpr (K == Int8BinaryKind::kAdd) combined = sx + sy;
    if constexpr (K == Int8BinaryKind::kSub) combined = sx - sy;
    if constexpr (K == Int8BinaryKind::kSquaredDifference) combined = (sx - sy) * (sx - sy);
    raw = fp::MultiplyByQuantizedMultiplier(combined, p.out_mult, p.out_shift);
  }
  return std::min(std::max(raw + p.out_offset, p.lo), p.hi);
}

void BinaryRunPortable(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                       int64_t n) {
  WithKind(p.kind, [&](auto kind) {
    constexpr Int8BinaryKind K = decltype(kind)::value;
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(ApplyBinary<K>(p, a[i * sa], b[i * sb]));
  });
}

void SoftmaxRowsPortable(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y) {
  for (int64_t r = 0; r < rows; ++r, x += n, y += n) {
    int32_t max = -128;
    for (int64_t j = 0; j < n; ++j) max = std::max<int32_t>(max, x[j]);
    const float* row = p.table + 255 - max;  // row[v] = exp(-scale x beta x (max - v))
    float sum = 0.f;
    for (int64_t j = 0; j < n; ++j) sum += row[x[j]];
    const float inv = 1.f / (sum * p.out_scale);
    for (int64_t j = 0; j < n; ++j) {
      y[j] = ClampToInt8(static_cast<int32_t>(std::round(row[x[j]] * inv)) + p.out_zero_point);
    }
  }
}

int8_t RequantizeMatMul(const Int8MatMulParams& p, int32_t acc) {
  // XNNPACK's delegate takes the node when the second operand's zero point
  // is 0 (float requantization, half to even); TFLite's kernel the others
  // (fixed point).
  int32_t q = 0;
  if (p.b_zero_point == 0) {
    const float f =
        std::min(std::max(static_cast<float>(acc) * p.xnn_scale, -128.f - p.out_zero_point), 127.f - p.out_zero_point);
    q = fp::RoundHalfEvenSmall(f) + p.out_zero_point;
  } else {
    q = fp::MultiplyByQuantizedMultiplier(acc, p.mult, p.shift) + p.out_zero_point;
  }
  return ClampToInt8(q);
}

void MatMulPortable(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w, int8_t* y,
                    std::vector<int16_t>* scratch) {
  // Both operands less their zero points as int16 rows with k contiguous,
  // so the dot products vectorize.
  const int64_t m = s.m, k = s.k, n = s.n;
  scratch->resize(static_cast<size_t>((m + n) * k));
  int16_t* xs = scratch->data();
  int16_t* ws = xs + m * k;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t t = 0; t < k; ++t) {
      xs[i * k + t] = static_cast<int16_t>(x[i * s.a_stride_m + t * s.a_stride_k] - p.a_zero_point);
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t t = 0; t < k; ++t) {
      ws[j * k + t] = static_cast<int16_t>(w[t * s.b_stride_k + j * s.b_stride_n] - p.b_zero_point);
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    const int16_t* xr = xs + i * k;
    for (int64_t j = 0; j < n; ++j) {
      const int16_t* wr = ws + j * k;
      int32_t acc = 0;
      for (int64_t t = 0; t < k; ++t) acc += int32_t{xr[t]} * int32_t{wr[t]};
      y[i * n + j] = RequantizeMatMul(p, acc);
    }
  }
}

void SumBlockPortable(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums) {
  std::fill(sums, sums + outer * inner, 0);
  for (int64_t o = 0; o < outer; ++o) {
    int32_t* s = sums + o * inner;
    for (int64_t r = 0; r < reduced; ++r) {
      const int8_t* row = x + (o * reduced + r) * inner;
      for (int64_t i = 0; i < inner; ++i) s[i] += row[i];
    }
  }
}

void MeanRequantizePortable(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y) {
  for (int64_t j = 0; j < n; ++j) {
    const float v = static_cast<float>(sums[j]) * scale + bias;
    y[j] = static_cast<int8_t>(fp::RoundHalfEvenSmall(std::min(std::max(v, -128.f), 127.f)));
  }
}

#ifdef GLD_INT8_ROWS16
bool UseVector(Int8Path path) { return path == Int8Path::kAuto && HasInt8Rows16(); }
#endif


}  // namespace

void MultiplyByQuantizedMultiplierRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift,
                                      Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path)) return int8_rows_x86::MultiplyRow(x, y, n, multiplier, shift);
#endif
#ifdef GLD_INT8_ROWS_NEON
  if (path == Int8Path::kAuto) return int8_rows_arm::MultiplyRow(x, y, n, multiplier, shift);
#endif
  for (int64_t i = 0; i < n; ++i) y[i] = fp::MultiplyByQuantizedMultiplier(x[i], multiplier, shift);
}

void FillScaledTables(Int8BinaryParams* p) {
  for (int v = -128; v <= 127; ++v) {
    const size_t i = static_cast<uint8_t>(static_cast<int8_t>(v));
    p->a_scaled[i] = fp::MultiplyByQuantizedMultiplier((v + p->a_offset) * (1 << p->left_shift), p->a_mult, p->a_shift);
    p->b_scaled[i] = fp::MultiplyByQuantizedMultiplier((v + p->b_offset) * (1 << p->left_shift), p->b_mult, p->b_shift);
  }
}

void Int8BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                   int64_t n, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path) && (sa == 0 || sa == 1) && (sb == 0 || sb == 1) && n >= 4) {
    return int8_rows_x86::BinaryRun(p, a, sa, b, sb, y, n);
  }
#endif
#ifdef GLD_INT8_ROWS_NEON
  if (path == Int8Path::kAuto && (sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
    const int64_t done = int8_rows_arm::BinaryRun(p, a, sa, b, sb, y, n);
    return BinaryRunPortable(p, a + done * sa, sa, b + done * sb, sb, y + done, n - done);
  }
#endif
  BinaryRunPortable(p, a, sa, b, sb, y, n);
}

void Int8TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (path == Int8Path::kAuto && HostCpuFeatures().avx512vbmi) return int8_rows_x86::TableLookup(table, x, n, y);
#endif
  int64_t i = 0;
#ifdef GLD_INT8_ROWS_NEON
  if (path == Int8Path::kAuto) i = int8_rows_arm::TableLookup(table, x, n, y);
#endif
  for (; i < n; ++i) y[i] = table[static_cast<uint8_t>(x[i])];
}

void Int8SoftmaxRows(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path) && rows > 1 && n > 0) {
    std::vector<int8_t> columns;
    std::vector<float> exps;
    return int8_rows_x86::SoftmaxRows(p, x, rows, n, y, &columns, &exps);
  }
#endif
  SoftmaxRowsPortable(p, x, rows, n, y);
}

void Int8MatMul(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w, int8_t* y,
                std::vector<int16_t>* scratch, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path)) return int8_rows_x86::MatMul(p, s, x, w, y, scratch);
#endif
  MatMulPortable(p, s, x, w, y, scratch);
}

void Int8SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path)) return int8_rows_x86::SumBlock(x, outer, reduced, inner, sums);
#endif
#ifdef GLD_INT8_ROWS_NEON
  if (path == Int8Path::kAuto) return int8_rows_arm::SumBlock(x, outer, reduced, inner, sums);
#endif
  SumBlockPortable(x, outer, reduced, inner, sums);
}

void Int8MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y, Int8Path path) {
#ifdef GLD_INT8_ROWS16
  if (UseVector(path)) return int8_rows_x86::MeanRequantize(sums, n, scale, bias, y);
#endif
  int64_t done = 0;
#ifdef GLD_INT8_ROWS_NEON
  if (path == Int8Path::kAuto) done = int8_rows_arm::MeanRequantize(sums, n, scale, bias, y);
#endif
  MeanRequantizePortable(sums + done, n - done, scale, bias, y + done);
}

}  // namespace gld::cpu
