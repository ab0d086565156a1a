#include "gldelegate/seeded_values.hpp"

namespace gld {

uint64_t SeededWord(uint64_t seed, uint64_t stream, uint64_t j) {
  constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  constexpr uint64_t kStream = 0xD1B54A32D192ED03ull;
  uint64_t z = (seed * 65536 + stream) * kStream + (j + 1) * kGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float WordToPm1(uint64_t z) {
  return static_cast<float>(static_cast<int64_t>(z >> 40) - (int64_t{1} << 23)) / 8388608.0f;
}

std::vector<float> UniformPm1(uint64_t seed, uint64_t stream, size_t count) {
  std::vector<float> values(count);
  for (size_t j = 0; j < count; ++j) values[j] = WordToPm1(SeededWord(seed, stream, j));
  return values;
}

}  // namespace gld
