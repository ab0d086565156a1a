// Portable SIMD helpers for the hot CPU loops. GLD_MULTIVERSION compiles a
// function twice on x86 (baseline, and x86-64-v3: AVX2 with FMA) and picks
// one at load time, so the library runs on any x86-64 while using 8-wide
// vectors and fused multiply-adds where present.
// Vectors use GCC/Clang vector extensions, not intrinsics.
#pragma once

#include <cstdint>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && defined(__linux__) && \
    !defined(GLD_NO_MULTIVERSION)
#define GLD_MULTIVERSION __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GLD_MULTIVERSION
#endif

// GLD_AVX512 marks a function compiled for AVX-512F, called only where
// HasAvx512f() (defined on x86-64 GCC/Clang Linux builds, as
// GLD_MULTIVERSION). Its 16-float vectors are Float16.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__) && !defined(GLD_NO_MULTIVERSION)
#define GLD_AVX512 __attribute__((target("avx512f")))
// GLD_AVX2 marks a function compiled for AVX2 with FMA (x86-64-v3), called
// only where HasAvx2Fma(): the GEMM tiles that have an AVX-512 form too and
// need the fused multiply-adds for the same sums.
#define GLD_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace gld::cpu {

// Copies n bytes: up to 256 of them as inline moves of 32, 16, 8, 4, 2 and
// 1 bytes, more through memcpy. The rows of attention's head transposes
// and of a matmul's packed operand are 16-256 bytes, where a memcpy call
// each cost more than the copy.
inline void CopyBytes(void* dst, const void* src, int64_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (n > 256) {
    std::memcpy(d, s, static_cast<size_t>(n));
    return;
  }
  for (; n >= 32; n -= 32, d += 32, s += 32) std::memcpy(d, s, 32);
  for (int64_t chunk = 16; chunk >= 1; chunk /= 2) {
    if (n >= chunk) {
      std::memcpy(d, s, static_cast<size_t>(chunk));
      n -= chunk, d += chunk, s += chunk;
    }
  }
}

// Copies n 4-byte values (CopyBytes).
inline void CopyWords(void* dst, const void* src, int64_t n) { CopyBytes(dst, src, n * 4); }

// o[r * o_stride + c] = s[r + c * s_stride] for r < rows, c < cols: a
// transpose of 4-byte values moved as bits (NaN payloads kept), 8 x 8
// blocks in registers, the edges one by one. TRANSPOSE's tiles
// (data_movement.cc) and the packing of a [n, k] filter into a GEMM's
// panels (pointwise_gemm.cc) run on it.
void TransposeWords(const uint32_t* s, int64_t s_stride, uint32_t* o, int64_t o_stride, int64_t rows, int64_t cols);

// 8 floats; lowered to two 4-wide halves where AVX is absent.
typedef float Float8 __attribute__((vector_size(32)));
// 16 floats, for GLD_AVX512 functions.
typedef float Float16 __attribute__((vector_size(64)));

// True where GLD_AVX512 functions are compiled and may run: the CPU has
// AVX-512F and the OS saves its state (util/cpu_features.h).
bool HasAvx512f();
// True where GLD_AVX2 functions are compiled and may run: AVX2 and FMA with
// the OS saving the YMM state.
bool HasAvx2Fma();

}  // namespace gld::cpu

// Unaligned load/store of a Float8 (macros: vector-typed function arguments
// and returns would change the ABI between the clones).
#define GLD_LOAD8(dst, src) std::memcpy(&(dst), (src), sizeof(::gld::cpu::Float8))
#define GLD_STORE8(dst, src) std::memcpy((dst), &(src), sizeof(::gld::cpu::Float8))

// v = min(max(v, lo), hi) on Float8s, as v < lo ? lo : v then v > hi ? hi : v,
// so that a NaN fails both compares and stays NaN (TFLite's activation
// clamp). A macro for the same ABI reason as GLD_LOAD8.
#define GLD_CLAMP8(v, lo, hi)          \
  do {                                 \
    (v) = (v) < (lo) ? (lo) : (v);     \
    (v) = (v) > (hi) ? (hi) : (v);     \
  } while (0)
