// IEEE 754 binary16 <-> float32 on the host: gld::HalfToFloat and
// gld::FloatToHalf, declared in the public API (tools need them too).
#pragma once

#include "gldelegate/types.hpp"

#include <cstdint>

namespace gld {

// dst[i] = HalfToFloat(src[i]) for i in [0, n); with the F16C instructions
// where the CPU has them (the same IEEE conversion, 8 values at a time).
void HalfToFloatArray(const uint16_t* src, float* dst, int64_t n);

}  // namespace gld
