// Shape rules of the normalizations (cpu_kernels/ops/softmax.cc): SOFTMAX,
// LOG_SOFTMAX and L2_NORMALIZATION keep their input's shape (Unary,
// elementwise.cc); LOCAL_RESPONSE_NORMALIZATION also needs a 4-D input.
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status LocalResponseNormalization(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  return Unary(ctx);
}

}  // namespace gld::shapes
