#include "cpu_kernels/xnnpack/finite_check.h"

#include <algorithm>
#include <cstring>

#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/micro/simd.h"
#include "cpu_kernels/micro/vector_math/activation.h"

namespace gld::cpu {

namespace {

typedef uint32_t Bits8 __attribute__((vector_size(32)));

// |x| as its bits: for floats of one sign, integer order is magnitude order,
// with every infinity (kInfinity) above every number and every NaN above
// infinity.
constexpr uint32_t kMagnitude = 0x7fffffffu;
constexpr uint32_t kInfinity = 0x7f800000u;

// The largest |x| over data[0, n) as its bits, read before clamping
// data in place to [lo, hi] when `clamp` (one pass for both). Integer max
// on the magnitude bits (a float compare would not tell NaN from a number
// without -ffast-math games), four independent accumulators of eight lanes,
// so that the loop runs at the cache's speed.
GLD_MULTIVERSION uint32_t MaxAbsBitsClamping(float* data, int64_t n, bool clamp, float lo, float hi) {
  const Bits8 magnitude = Bits8{} + kMagnitude;
  const Float8 vlo = Float8{} + lo, vhi = Float8{} + hi;
  Bits8 acc[4] = {};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int k = 0; k < 4; ++k) {
      Float8 x;
      GLD_LOAD8(x, data + i + 8 * k);
      const Bits8 bits = (Bits8)x & magnitude;  // the same 32 bytes, as integers
      acc[k] = bits > acc[k] ? bits : acc[k];
      if (clamp) {
        GLD_CLAMP8(x, vlo, vhi);
        GLD_STORE8(data + i + 8 * k, x);
      }
    }
  }
  uint32_t best = 0;
  for (int k = 0; k < 4; ++k) {
    for (int lane = 0; lane < 8; ++lane) best = std::max(best, acc[k][lane]);
  }
  for (; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    best = std::max(best, bits & kMagnitude);
    if (clamp) data[i] = std::min(std::max(data[i], lo), hi);
  }
  return best;
}

bool ClampCheckingFinite(float* data, int64_t n, bool clamp, float lo, float hi) {
  return MaxAbsBitsClamping(data, n, clamp, lo, hi) < kInfinity;
}

}  // namespace

float MaxAbs(const float* data, int64_t n) {
  // Not clamping, it only reads.
  const uint32_t bits = MaxAbsBitsClamping(const_cast<float*>(data), n, false, 0.f, 0.f);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float MaxAbsOf(float a, float b) {
  const float pair[] = {a, b};
  return MaxAbs(pair, 2);
}

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
