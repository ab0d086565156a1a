#include "cpu_kernels/simd.h"

namespace gld::cpu {

bool HasAvx512f() {
#ifdef GLD_AVX512
  // GCC's and Clang's runtime check both require the OS to save the ZMM
  // state as well (XGETBV).
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

}  // namespace gld::cpu
