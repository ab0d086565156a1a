// IEEE 754 binary16 <-> float32 on the host: gld::HalfToFloat and
// gld::FloatToHalf, declared in the public API (tools need them too).
#pragma once

#include "gldelegate/gldelegate.hpp"
