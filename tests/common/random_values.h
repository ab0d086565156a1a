// Seeded random test values: the same seed gives the same values on every
// machine (std::mt19937 and the libstdc++ distributions), so tolerances and
// expectations tuned to them stay put.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace gld::testing {

// n floats uniform in [lo, hi): std::mt19937(seed) through
// std::uniform_real_distribution<float>.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f);

// n integers uniform in [lo, hi] (std::mt19937(seed) through
// std::uniform_int_distribution<int>), as T.
template <typename T>
std::vector<T> RandomInts(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

// n raw bytes: the low 8 bits of each std::mt19937(seed) word.
std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed);

}  // namespace gld::testing
