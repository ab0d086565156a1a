// IEEE 754 binary16 <-> binary32 conversion on the host.
#pragma once

#include <cstdint>

namespace gld {

float HalfToFloat(uint16_t h);
// Round to nearest even; overflow gives infinity, NaN stays NaN.
uint16_t FloatToHalf(float f);

}  // namespace gld
