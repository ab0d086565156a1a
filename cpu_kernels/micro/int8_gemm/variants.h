// The per-architecture forms of the int8 GEMM (int8_gemm.h), for the
// dispatch in int8_gemm.cc, and the panel layout both sides share: x86.cc
// (AVX-512 VNNI), where GLD_AVX512 is defined. A form for another
// architecture adds its file and its block here. Internal to
// micro/int8_gemm/.
#pragma once

#include <cstdint>

#include "cpu_kernels/micro/int8_gemm/int8_gemm.h"
#include "cpu_kernels/micro/x86_intrinsics.h"

#ifdef GLD_AVX512
#define GLD_INT8_GEMM 1
#define GLD_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#endif

namespace gld::cpu {

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

#ifdef GLD_INT8_GEMM
namespace gld::cpu::int8_gemm_x86 {

// d = s + 128 (the sign bit flipped), `bytes` of them; d may be s.
GLD_VNNI void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes);

// Rows of x times panels [q0, q1) (32 channels each; y points at channel
// 0), row r's runs at x + r * stride_x + off[i]; the rows hold x + 128.
void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y);

}  // namespace gld::cpu::int8_gemm_x86
#endif
