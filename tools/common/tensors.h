// Tensor helpers for the tools: deterministic inputs, statistics, printing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"

namespace gld::tools {

// Deterministic input values, the same on every machine and backend (and the
// rule tools/reference/ uses, so references made with the same seed match).
// From word z = gld::SeededWord(seed, stream, j) of input `stream`
// (gldelegate/seeded_values.hpp):
// float32/float16/float64: gld::WordToPm1(z) = ((z >> 40) - 2^23) / 2^23,
// uniform in [-1, 1); bool: (z >> 11) % 2; other integers: (z >> 11) % 4.
// Internal ("cannot allocate N bytes for tensor 'x'") when the memory is not
// there.
StatusOr<std::vector<uint8_t>> MakeRandomInput(const TensorInfo& info, uint64_t seed, int stream);

struct TensorStats {
  double min = 0, max = 0, mean = 0;
  size_t count = 0;
  size_t nan = 0;  // NaNs are left out of min/max/mean
};
// UNIMPLEMENTED for element types it cannot read.
StatusOr<TensorStats> ComputeStats(ElementType type, const void* data, size_t bytes);

// "[1, 224, 224, 3]"
std::string FormatShape(const std::vector<int>& shape);
// "'x' [1, 4] float32" (+ " signature [-1, 4]" when the shape_signature has a
// free dimension, + " q(scale=0.5, zero_point=3)" when quantized)
std::string DescribeTensor(const TensorInfo& info);
// File-name-safe version of a tensor name: [A-Za-z0-9._-], others become '_'.
std::string SanitizeName(const std::string& name);

}  // namespace gld::tools
