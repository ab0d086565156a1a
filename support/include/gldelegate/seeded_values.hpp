// The project's deterministic input values ("splitmix64_pm1"): the same on
// every machine. The tools' random inputs (gld_run, gld_benchmark),
// gld_make_model's weights and the reference data the model tests
// regenerate (tools/reference/reflib.py, bit for bit) all follow this rule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gld {

// Word j of stream `stream`:
//   z = (seed * 65536 + stream) * 0xD1B54A32D192ED03 + (j + 1) * 0x9E3779B97F4A7C15
//   z = splitmix64 mix of z
uint64_t SeededWord(uint64_t seed, uint64_t stream, uint64_t j);

// A word's top 24 bits as ((z >> 40) - 2^23) / 2^23: exact in float32,
// uniform in [-1, 1).
float WordToPm1(uint64_t z);

// WordToPm1(SeededWord(seed, stream, j)) for j in [0, count).
std::vector<float> UniformPm1(uint64_t seed, uint64_t stream, size_t count);

}  // namespace gld
