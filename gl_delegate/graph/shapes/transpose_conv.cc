// Shape rules of TRANSPOSE_CONV (the output_shape input) and MediaPipe's
// Convolution2DTransposeBias (sized by graph/conv_geometry.h).
#include <string>
#include <vector>

#include "graph/conv_geometry.h"
#include "graph/shape_inference.h"
#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status TransposeConv(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 4));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(2, 4));
  const Shape& w = ctx.InShape(1);
  const Shape& in = ctx.InShape(2);
  GLD_RETURN_IF_ERROR(ctx.Check(CheckConvSteps(*a)));
  if (w[3] != in[3]) {
    return ctx.Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (ctx.Has(3) && ctx.In(3).num_elements() != w[0]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(3)) + " does not match " + std::to_string(w[0]) +
                   " output channels");
  }
  std::vector<int64_t> os;
  if (!ctx.Values(0, &os)) return ctx.KeepStored(0, ctx.In(2).type, "output_shape (input 0)");
  if (os.size() != 4 || os[0] != in[0] || os[3] != w[0] || os[1] <= 0 || os[2] <= 0 || os[1] > kMaxDim ||
      os[2] > kMaxDim) {
    return ctx.Err("output_shape " + Join(os) + " must be [" + std::to_string(in[0]) + ", H, W, " +
                   std::to_string(w[0]) + "]");
  }
  ctx.Set(0,
          {static_cast<int32_t>(os[0]), static_cast<int32_t>(os[1]), static_cast<int32_t>(os[2]),
           static_cast<int32_t>(os[3])},
          ctx.In(2).type);
  return OkStatus();
}

Status TransposeConvBias(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const TransposeConvAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  GLD_RETURN_IF_ERROR(ctx.Rank(1, 4));
  const Shape& in = ctx.InShape(0);
  const Shape& w = ctx.InShape(1);
  GLD_RETURN_IF_ERROR(ctx.Check(CheckConvSteps(*a)));
  if (w[3] != in[3]) {
    return ctx.Err("weights " + ShapeToString(w) + " do not match input channels " + std::to_string(in[3]));
  }
  if (ctx.Has(2) && ctx.In(2).num_elements() != w[0]) {
    return ctx.Err("bias " + ShapeToString(ctx.InShape(2)) + " does not match " + std::to_string(w[0]) +
                   " output channels");
  }
  ConvGeometry g;
  GLD_RETURN_IF_ERROR(ctx.Check(MakeTransposeConvBiasGeometry(*a, in, w, &g)));
  ctx.Set(0, {in[0], g.h().in, g.w().in, w[0]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
