// Fused activations applied to floats as the CPU kernels apply them: the
// clamps of kernel_helpers.h, and TANH and SIGMOID as vector_math's rows
// compute them, so that every CPU path gives the same values. Internal to
// cpu_kernels/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/micro/vector_math/vector_math.h"

namespace gld::cpu {

inline float ApplyActivation(Activation a, float x) {
  switch (a) {
    case Activation::kNone: return x;
    case Activation::kRelu: return std::max(x, 0.f);
    case Activation::kRelu6: return std::min(std::max(x, 0.f), 6.f);
    case Activation::kReluN1To1: return std::min(std::max(x, -1.f), 1.f);
    // TANH and SIGMOID as the vectorized rows compute them (vector_math.h),
    // so that every CPU path gives the same values.
    case Activation::kTanh: TanhRow(&x, &x, 1); return x;
    case Activation::kSignBit: return std::signbit(x) ? 1.f : 0.f;
    case Activation::kSigmoid: SigmoidRow(&x, &x, 1); return x;
  }
  return x;
}
// Applies `a` to data[0, n) in place.
inline void ApplyActivationInPlace(Activation a, float* data, int64_t n) {
  if (a == Activation::kNone) return;
  if (IsClampActivation(a)) {
    const ActivationRange r = GetActivationRange(a);
    for (int64_t i = 0; i < n; ++i) data[i] = std::min(std::max(data[i], r.lo), r.hi);
    return;
  }
  // TANH and SIGMOID as the TANH and LOGISTIC kernels compute them.
  if (a == Activation::kTanh) return TanhRow(data, data, n);
  if (a == Activation::kSigmoid) return SigmoidRow(data, data, n);
  for (int64_t i = 0; i < n; ++i) data[i] = ApplyActivation(a, data[i]);
}

}  // namespace gld::cpu
