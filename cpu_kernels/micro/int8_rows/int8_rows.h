// The inner loops of the exact int8 kernels of integer_ops.cc (what LiteRT's
// builtin int8 kernels and XNNPACK's requantizations compute, integer for
// integer): elementwise binary runs (TFLite's fixed point and XNNPACK's
// arithmetic), softmax rows, one batch of a batch matmul, and mean's sums
// and requantization. Each has a portable loop and, where the CPU has
// AVX-512 (F, BW, VL, VNNI: HasInt8Rows16), a vector loop that gives the same
// integers (table lookups: VBMI's byte permutes): the fixed-point multiplies on int64 lanes with gemmlowp's
// rounding, float requantizations with the same operations in the same
// order (no fused multiply-adds), float sums in the same order (softmax's
// lanes are rows). integer_ops.cc prepares the parameters (its Make*Params)
// and calls these; the tests compare the two paths over every value.
// Internal to cpu_kernels/.
#pragma once

#include <cstdint>
#include <vector>

namespace gld::cpu {

// Which loops run: kAuto takes the AVX-512 loops where HasInt8Rows16();
// kPortable the portable ones (the tests compare both).
enum class Int8Path { kAuto, kPortable };

// Where the AVX-512 loops are compiled and the CPU runs them.
bool HasInt8Rows16();
// Where the NEON loops (MultiplyByQuantizedMultiplierRow, Int8BinaryRun,
// Int8TableLookup, Int8SumBlock, Int8MeanRequantize) are compiled: AArch64,
// whose every CPU has NEON.
bool HasInt8RowsNeon();

// y[i] = TFLite's MultiplyByQuantizedMultiplier(x[i], multiplier, shift)
// (fixed_point.h), for the tests of the vector arithmetic the kernels share.
void MultiplyByQuantizedMultiplierRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift,
                                      Int8Path path = Int8Path::kAuto);

// --- ADD / SUB / MUL / SQUARED_DIFFERENCE ------------------------------------

enum class Int8BinaryKind { kAdd, kSub, kMul, kSquaredDifference, kXnnAdd, kXnnSub, kXnnMul };

struct Int8BinaryParams {
  Int8BinaryKind kind = Int8BinaryKind::kAdd;
  int32_t a_offset = 0, b_offset = 0, out_offset = 0;
  int left_shift = 0;
  int32_t a_mult = 0, b_mult = 0, out_mult = 0;
  int a_shift = 0, b_shift = 0, out_shift = 0;
  float xnn_scale = 0.f;
  int64_t xnn_bias = 0;  // XNNPACK's add: rounding less the zero points' share
  int32_t lo = -128, hi = 127;
  // ADD / SUB / SQUARED_DIFFERENCE: each operand's value (by its int8 bits)
  // shifted left and scaled onto twice the larger input scale
  // (FillScaledTables; the vector loops compute them the same way).
  int32_t a_scaled[256] = {}, b_scaled[256] = {};
};

// a_scaled / b_scaled from the offsets, left_shift and the operands'
// multipliers: MultiplyByQuantizedMultiplier((v + offset) x 2^left_shift,
// multiplier, shift) for each int8 v.
void FillScaledTables(Int8BinaryParams* p);

// y[i] = a[i * sa] op b[i * sb] for i < n (strides of any value; the vector
// loops take 0 and 1).
void Int8BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                   int64_t n, Int8Path path = Int8Path::kAuto);

// --- RSQRT / GELU / HARD_SWISH: 256-entry tables -------------------------------

// y[i] = table[the int8 bits of x[i]] for i < n; where the CPU has AVX-512
// VBMI, 64 at a time (two VPERMI2B lookups of 128 entries, one blend by the
// index's top bit).
void Int8TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y, Int8Path path = Int8Path::kAuto);

// --- SOFTMAX -------------------------------------------------------------------

struct Int8SoftmaxParams {
  float table[256];  // exp(-input scale x beta x (255 - i))
  float out_scale = 1.f;
  int32_t out_zero_point = 0;
};

// Softmax over each of `rows` rows of n values.
void Int8SoftmaxRows(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y,
                     Int8Path path = Int8Path::kAuto);

// --- BATCH_MATMUL --------------------------------------------------------------

struct Int8MatMulParams {
  int32_t a_zero_point = 0, b_zero_point = 0, out_zero_point = 0;
  int32_t mult = 0;
  int shift = 0;
  float xnn_scale = 0.f;  // a scale x b scale / output scale, in float
};

// One [m, k] x [k, n] product: x[i, t] at x[i * a_stride_m + t * a_stride_k],
// w[t, j] at w[t * b_stride_k + j * b_stride_n], y row-major [m, n]. The
// int32 sums of the operands less their zero points, requantized in float
// when the second operand's zero point is 0 (XNNPACK's delegate takes
// those), else in TFLite's fixed point. `scratch` holds the packed operands
// between calls.
struct Int8MatMulShape {
  int64_t m = 0, k = 0, n = 0;
  int64_t a_stride_m = 0, a_stride_k = 0, b_stride_k = 0, b_stride_n = 0;
};
void Int8MatMul(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w, int8_t* y,
                std::vector<int16_t>* scratch, Int8Path path = Int8Path::kAuto);

// --- MEAN ----------------------------------------------------------------------

// sums[o * inner + i] = sum over r < reduced of x[(o * reduced + r) * inner + i]
// (sums are set, not added to).
void Int8SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums,
                  Int8Path path = Int8Path::kAuto);

// y[j] = round half to even(clamp(float(sums[j]) x scale + bias, -128, 127))
// (XNNPACK's QS8 mean; the product and the sum rounded each).
void Int8MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y,
                        Int8Path path = Int8Path::kAuto);

}  // namespace gld::cpu
