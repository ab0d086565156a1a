// The element functions the elementwise table's CPU columns are written in
// (graph/elementwise_ops.inc): integer arithmetic that wraps instead of
// overflowing, TFLite's integer division rules, and the float functions libm
// lacks. Internal to cpu_kernels/.
#pragma once

#include <cmath>
#include <type_traits>

namespace gld::cpu {

// The table's GLD_EW_NONE: an op with no integer kernel.
struct NoInteger {};

// What an integer right operand must be, checked over the whole tensor
// before the kernel runs (the table's int_rhs column).
enum class IntRhs { kAny, kNonZero, kNonNegative };

template <typename T>
T WrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}
template <typename T>
T WrapNeg(T v) {
  return WrapSub<T>(0, v);
}
// Truncating division; b != 0 checked by the caller. MIN / -1 wraps.
template <typename T>
T IntDiv(T a, T b) {
  if (b == -1) return WrapNeg(a);
  return a / b;
}
template <typename T>
T IntFloorDiv(T a, T b) {
  if (b == -1) return WrapNeg(a);
  T q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
template <typename T>
T IntFloorMod(T a, T b) {
  if (b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
// exp >= 0 checked by the caller.
template <typename T>
T IntPow(T base, T exp) {
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// -1, 0 or 1 (NaN gives 0, as TFLite's SIGN).
template <typename T>
T SignOf(T v) {
  return static_cast<T>((T(0) < v) - (v < T(0)));
}

// The remainder with the divisor's sign (TFLite's FLOOR_MOD).
inline float FloatFloorMod(float x, float y) {
  float r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

// Rounds to the nearest integer, halves to the even one (TFLite's ROUND),
// whatever the thread's floating-point rounding mode. NaN and infinities
// pass through.
inline float RoundHalfToEven(float x) {
  const float f = std::floor(x);
  const float d = x - f;
  if (d > 0.5f || (d == 0.5f && std::fmod(f, 2.0f) != 0.0f)) return f + 1.0f;
  return f;
}

}  // namespace gld::cpu
