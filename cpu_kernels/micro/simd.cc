#include "cpu_kernels/micro/simd.h"

#include "util/cpu_features.h"

namespace gld::cpu {

namespace {
typedef uint32_t Uint8x32 __attribute__((vector_size(32)));
}  // namespace

bool HasAvx512f() {
#ifdef GLD_AVX512
  return HostCpuFeatures().avx512f;
#else
  return false;
#endif
}

bool HasAvx2Fma() {
#ifdef GLD_AVX2
  return HostCpuFeatures().avx2_fma;
#else
  return false;
#endif
}

// 8 x 8 blocks: eight 8-lane loads, three rounds of shuffles, eight 8-lane
// stores.
GLD_MULTIVERSION void TransposeWords(const uint32_t* s, int64_t s_stride, uint32_t* o, int64_t o_stride, int64_t rows,
                                     int64_t cols) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) {
    int64_t c = 0;
    for (; c + 8 <= cols; c += 8) {
      Uint8x32 v[8], t[8], u[8];
      for (int j = 0; j < 8; ++j) std::memcpy(&v[j], s + r + (c + j) * s_stride, sizeof(Uint8x32));
      for (int j = 0; j < 8; j += 2) {
        t[j] = __builtin_shufflevector(v[j], v[j + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[j + 1] = __builtin_shufflevector(v[j], v[j + 1], 2, 10, 3, 11, 6, 14, 7, 15);
      }
      for (int j = 0; j < 8; j += 4) {
        u[j] = __builtin_shufflevector(t[j], t[j + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        u[j + 1] = __builtin_shufflevector(t[j], t[j + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        u[j + 2] = __builtin_shufflevector(t[j + 1], t[j + 3], 0, 1, 8, 9, 4, 5, 12, 13);
        u[j + 3] = __builtin_shufflevector(t[j + 1], t[j + 3], 2, 3, 10, 11, 6, 7, 14, 15);
      }
      for (int j = 0; j < 4; ++j) {
        const Uint8x32 lo = __builtin_shufflevector(u[j], u[j + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        const Uint8x32 hi = __builtin_shufflevector(u[j], u[j + 4], 4, 5, 6, 7, 12, 13, 14, 15);
        std::memcpy(o + (r + j) * o_stride + c, &lo, sizeof(Uint8x32));
        std::memcpy(o + (r + j + 4) * o_stride + c, &hi, sizeof(Uint8x32));
      }
    }
    for (int64_t i = r; i < r + 8; ++i) {
      for (int64_t k = c; k < cols; ++k) o[i * o_stride + k] = s[i + k * s_stride];
    }
  }
  for (; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) o[r * o_stride + c] = s[r + c * s_stride];
  }
}

}  // namespace gld::cpu
