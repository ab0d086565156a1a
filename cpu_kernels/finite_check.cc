#include "cpu_kernels/finite_check.h"

#include <cstring>

#include "cpu_kernels/kernel_util.h"
#include "cpu_kernels/simd.h"

namespace gld::cpu {

namespace {

typedef uint32_t Bits8 __attribute__((vector_size(32)));

constexpr uint32_t kExponent = 0x7f800000u;  // all ones: infinity or NaN

// Checks data[0, n) and, when `clamp`, clamps it to [lo, hi] in the same
// pass. Integer compares on the exponent bits (a float compare would not
// tell NaN from a number without -ffast-math games), four independent
// accumulators of eight lanes, so that the loop runs at the cache's speed.
GLD_MULTIVERSION bool ClampCheckingFinite(float* data, int64_t n, bool clamp, float lo, float hi) {
  const Bits8 exponent = Bits8{} + kExponent;
  const Float8 vlo = Float8{} + lo, vhi = Float8{} + hi;
  Bits8 acc[4] = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      Float8 x;
      GLD_LOAD8(x, data + i + 8 * k);
      const Bits8 bits = (Bits8)x;  // the same 32 bytes, as integers
      acc[k] |= (Bits8)((bits & exponent) == exponent);
      if (clamp) {
        GLD_CLAMP8(x, vlo, vhi);
        GLD_STORE8(data + i + 8 * k, x);
      }
    }
  }
  const Bits8 all = acc[0] | acc[1] | acc[2] | acc[3];
  uint32_t any = 0;
  for (int lane = 0; lane < 8; ++lane) any |= all[lane];
  for (; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    any |= static_cast<uint32_t>((bits & kExponent) == kExponent);
    if (clamp) data[i] = std::min(std::max(data[i], lo), hi);
  }
  return any == 0;
}

}  // namespace

bool ActivateCheckingFinite(Activation a, float* data, int64_t n) {
  if (IsClampActivation(a)) {
    const ActivationRange r = GetActivationRange(a);
    return ClampCheckingFinite(data, n, a != Activation::kNone, r.lo, r.hi);
  }
  if (!ClampCheckingFinite(data, n, false, 0.f, 0.f)) return false;
  ApplyActivationInPlace(a, data, n);
  return true;
}

}  // namespace gld::cpu
