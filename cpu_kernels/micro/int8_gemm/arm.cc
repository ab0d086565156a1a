// The ARM form of the int8 GEMM (int8_gemm.h): AArch64 NEON tiles
// (arm_tiles.h), SDOT where the CPU has dot product (HWCAP asimddp: Cortex-A55,
// A76 and later, e.g. Raspberry Pi 5, RK3588), SMULL + SADALP elsewhere
// (Cortex-A53, A72: Raspberry Pi 3 and 4). Both take signed bytes, so the
// rows are read as they are (kInputBias 0). Compiled on every build; empty
// where GLD_INT8_GEMM_NEON is not defined (variants.h).
#include <algorithm>
#include <cstring>

#include "cpu_kernels/micro/int8_gemm/variants.h"
#include "util/cpu_features.h"

#ifdef GLD_INT8_GEMM_NEON
#include <arm_neon.h>

namespace gld::cpu::int8_gemm_arm {

namespace {

#define GLD_ARM_TILES_NS neon
#define GLD_ARM_TILES_DOT 0
#define GLD_ARM_TILES_TARGET
#include "cpu_kernels/micro/int8_gemm/arm_tiles.h"
#undef GLD_ARM_TILES_NS
#undef GLD_ARM_TILES_DOT
#undef GLD_ARM_TILES_TARGET

#define GLD_ARM_TILES_NS dot
#define GLD_ARM_TILES_DOT 1
#define GLD_ARM_TILES_TARGET __attribute__((target("arch=armv8.2-a+dotprod")))
#include "cpu_kernels/micro/int8_gemm/arm_tiles.h"
#undef GLD_ARM_TILES_NS
#undef GLD_ARM_TILES_DOT
#undef GLD_ARM_TILES_TARGET

}  // namespace

void FlipBytes(int8_t* d, const int8_t* s, int64_t bytes) {
  if (d != s) std::memcpy(d, s, static_cast<size_t>(bytes));
}

void PanelsAt(const int8_t* x, int64_t stride_x, const int64_t* off, int64_t rows, const Int8GemmWeights& p,
              int64_t q0, int64_t q1, int8_t* y, int64_t stride_y) {
  static const bool has_dot = HostCpuFeatures().neon_dot;
  if (has_dot) {
    dot::PanelsAt(x, stride_x, off, rows, p, q0, q1, y, stride_y);
  } else {
    neon::PanelsAt(x, stride_x, off, rows, p, q0, q1, y, stride_y);
  }
}

}  // namespace gld::cpu::int8_gemm_arm
#endif
