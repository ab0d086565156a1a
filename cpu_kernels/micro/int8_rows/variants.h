// The per-architecture forms of the int8 rows (int8_rows.h), for the
// dispatch in int8_rows.cc: x86.cc (AVX-512 F, BW, VL with VNNI or VBMI),
// where GLD_AVX512 is defined; arm.cc (NEON) on AArch64. A form for another architecture adds its file
// and its block here. Internal to micro/int8_rows/.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cpu_kernels/micro/int8_rows/int8_rows.h"
#include "cpu_kernels/micro/x86_intrinsics.h"

#if defined(__aarch64__) && defined(__ARM_NEON) && !defined(GLD_NO_MULTIVERSION)
#define GLD_INT8_ROWS_NEON 1
#include <arm_neon.h>
#endif

#ifdef GLD_AVX512
#define GLD_INT8_ROWS16 1
#define GLD_I8V __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define GLD_I8VBMI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))
#endif

namespace gld::cpu {

// Calls fn with the kind as a compile-time constant.
template <typename Fn>
void WithKind(Int8BinaryKind kind, Fn fn) {
  using K = Int8BinaryKind;
  // clang-format off
  switch (kind) {
    case K::kAdd: return fn(std::integral_constant<K, K::kAdd>{});
    case K::kSub: return fn(std::integral_constant<K, K::kSub>{});
    case K::kMul: return fn(std::integral_constant<K, K::kMul>{});
    case K::kSquaredDifference: return fn(std::integral_constant<K, K::kSquaredDifference>{});
    case K::kXnnAdd: return fn(std::integral_constant<K, K::kXnnAdd>{});
    case K::kXnnSub: return fn(std::integral_constant<K, K::kXnnSub>{});
    case K::kXnnMul: return fn(std::integral_constant<K, K::kXnnMul>{});
  }
  // clang-format on
}

}  // namespace gld::cpu

#ifdef GLD_INT8_ROWS16
// The AVX-512 loops, each as its portable loop in int8_rows.cc computes it.
namespace gld::cpu::int8_rows_x86 {

GLD_I8V void MultiplyRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift);
GLD_I8V void BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                       int64_t n);
GLD_I8VBMI void TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y);
GLD_I8V void SoftmaxRows(const Int8SoftmaxParams& p, const int8_t* x, int64_t rows, int64_t n, int8_t* y,
                         std::vector<int8_t>* columns, std::vector<float>* exps);
GLD_I8V void MatMul(const Int8MatMulParams& p, const Int8MatMulShape& s, const int8_t* x, const int8_t* w, int8_t* y,
                    std::vector<int16_t>* scratch);
GLD_I8V void SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums);
GLD_I8V void MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y);

}  // namespace gld::cpu::int8_rows_x86
#endif

#ifdef GLD_INT8_ROWS_NEON
// The NEON loops, each as its portable loop in int8_rows.cc computes it;
// BinaryRun takes operands of stride 0 or 1 and returns how many of the n
// values it wrote (a multiple of 8: the rest are the portable loop's).
namespace gld::cpu::int8_rows_arm {

void MultiplyRow(const int32_t* x, int32_t* y, int64_t n, int32_t multiplier, int shift);
int64_t BinaryRun(const Int8BinaryParams& p, const int8_t* a, int64_t sa, const int8_t* b, int64_t sb, int8_t* y,
                  int64_t n);
// TableLookup and MeanRequantize return how many of the n values they
// wrote (multiples of 16 and 8; the rest are the portable loop's).
int64_t TableLookup(const int8_t* table, const int8_t* x, int64_t n, int8_t* y);
void SumBlock(const int8_t* x, int64_t outer, int64_t reduced, int64_t inner, int32_t* sums);
int64_t MeanRequantize(const int32_t* sums, int64_t n, float scale, float bias, int8_t* y);

}  // namespace gld::cpu::int8_rows_arm
#endif
