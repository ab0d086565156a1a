// One pass over an XNNPACK operator's output that both checks it for NaN and
// infinity and applies the node's fused activation (see xnnpack_op.h: the
// operators run unclamped, and an output holding a non-finite value is
// recomputed by the kernel's own code); or, for an operator whose input is
// the smaller tensor, one read-only pass over its input instead (MaxAbs).
// Internal to cpu_kernels/.
#pragma once

#include <cstdint>

#include "graph/attributes.h"

namespace gld::cpu {

// True when every element of data[0, n) is finite (checked before the
// activation); `a` is then applied in place. When false, data holds a mix of
// activated and raw values and must be recomputed.
bool ActivateCheckingFinite(Activation a, float* data, int64_t n);

// The largest |x| over data[0, n) (0 when n is 0), read only: NaN when an
// element is NaN, else +infinity when one is infinite. A linear operator's
// input bounds its output this way (XnnLinearBound).
float MaxAbs(const float* data, int64_t n);
// The larger of two MaxAbs results, with the same NaN and infinity order.
float MaxAbsOf(float a, float b);

}  // namespace gld::cpu
