// The per-architecture forms of the int8 GEMM (int8_gemm.h), for the
// dispatch in int8_gemm.cc, and the panel layout they share: x86.cc
// (AVX-512 VNNI), where GLD_AVX512 is defined; arm.cc (AArch64 NEON: SDOT
// where the CPU has dot product, SMULL + SADALP elsewhere). A form for
// another architecture adds its file and its block here. GLD_INT8_GEMM:
// some form is compiled. Internal to micro/int8_gemm/.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cpu_kernels/micro/int8_gemm/int8_gemm.h"
#include "cpu_kernels/micro/x86_intrinsics.h"

#ifdef GLD_AVX512
#define GLD_INT8_GEMM 1
#define GLD_INT8_GEMM_X86 1
#define GLD_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#elif defined(__aarch64__) && defined(__ARM_NEON) && !defined(GLD_NO_MULTIVERSION)
#define GLD_INT8_GEMM 1
#define GLD_INT8_GEMM_NEON 1
#endif

namespace gld::cpu {

// What the rows hold when the tiles read them: x + kInputBias. VPDPBUSD
// takes one operand unsigned, so the x86 tiles read x + 128 (FlipBytes);
// SDOT and SMULL take both signed, so the ARM tiles read x (FlipBytes
// copies). The bias absorbs it: bias - (kInputBias + zero point) x sum w.
#ifdef GLD_INT8_GEMM_X86
constexpr int32_t kInputBias = 128;
#else
constexpr int32_t kInputBias = 0;
#endif

// Calls tile(std::integral_constant<int, M>{}, r) for the row blocks [r,
// r + M) of rows [0, rows): kMax rows at a time, then the rest as one block
// (the tiles' row count a compile-time constant).
template <int M, typename Fn>
inline void LastRowBlock(int64_t left, int64_t r, Fn& tile) {
  if constexpr (M > 0) {
    if (left == M) {
      tile(std::integral_constant<int, M>{}, r);
    } else {
      LastRowBlock<M - 1>(left, r, tile);
    }
  }
}
template <int kMax, typename Fn>
inline void ForEachRowBlock(int64_t rows, Fn&& tile) {
  int64_t r = 0;
  for (; r + kMax <= rows; r += kMax) tile(std::integral_constant<int, kMax>{}, r);
  LastRowBlock<kMax - 1>(rows - r, r, tile);
}

// The lane of channel j of a panel in the packed weights, bias and scale:
// a whole panel's (more than 16 channels) in the order the x86 tiles'
// byte packing leaves them (4 (j / 8) + j % 4 of vector j % 8 / 4); in
// order otherwise, and in every panel of the ARM tiles.
inline int64_t PanelLane(int64_t j, bool whole) {
#ifdef GLD_INT8_GEMM_X86
  return whole ? j % 8 / 4 * 16 + j / 8 * 4 + j % 4 : j;
#else
  (void)whole;
  return j;
#endif
}

constexpr int64_t kPanel = 32;  // output channels per panel: two vectors of 16 int32
constexpr int kRows = 8;        // rows per tile: 16 accumulators
static_assert(kInt8GemmBlockRows % kRows == 0, "a parallel item's rows are whole tiles");

// Where the packed weights start in p.w: its first 64-byte boundary (the
// tiles load them 64 bytes at a time).
template <typename P>
auto WeightsOf(P& p) {
  const auto skip = (64 - reinterpret_cast<uintptr_t>(p.w.data()) % 64) % 64;
  return p.w.data() + skip;
}

}  // namespace gld::cpu

#ifdef GLD_INT8_GEMM_X86
namespace gld::cpu::int8_gemm_x86 {

// d = s + 128 (the sign bit flipped), `bytes` of them; d may be s.
GLD_VNNI void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes);

// Rows of x times panels [q0, q1) (32 channels each; y points at channel
// 0), row r's runs at x + r * stride_x + off[i]; the rows hold x + 128.
void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y);

}  // namespace gld::cpu::int8_gemm_x86
#endif

#ifdef GLD_INT8_GEMM_NEON
namespace gld::cpu::int8_gemm_arm {

// As int8_gemm_x86's: the rows hold x (kInputBias 0); PanelsAt runs the
// SDOT tiles where HostCpuFeatures().neon_dot, the SMULL ones elsewhere.
void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes);
void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y);

}  // namespace gld::cpu::int8_gemm_arm
#endif
