// One pass over an XNNPACK operator's output that both checks it for NaN and
// infinity and applies the node's fused activation (see xnnpack_op.h: the
// operators run unclamped, and an output holding a non-finite value is
// recomputed by the kernel's own code). Internal to cpu_kernels/.
#pragma once

#include <cstdint>

#include "graph/attributes.h"

namespace gld::cpu {

// True when every element of data[0, n) is finite (checked before the
// activation); `a` is then applied in place. When false, data holds a mix of
// activated and raw values and must be recomputed.
bool ActivateCheckingFinite(Activation a, float* data, int64_t n);

}  // namespace gld::cpu
