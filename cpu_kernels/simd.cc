#include "cpu_kernels/simd.h"

#include "util/cpu_features.h"

namespace gld::cpu {

bool HasAvx512f() {
#ifdef GLD_AVX512
  return HostCpuFeatures().avx512f;
#else
  return false;
#endif
}

}  // namespace gld::cpu
