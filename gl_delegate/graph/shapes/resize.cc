// Shape rule of RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR: the size input.
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

Status Resize(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(2, 2));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const ResizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  if (a->align_corners && a->half_pixel_centers) {
    return ctx.Err("align_corners and half_pixel_centers cannot both be set");
  }
  std::vector<int64_t> size;
  if (!ctx.Values(1, &size)) return ctx.KeepStored(0, ctx.In(0).type, "size (input 1)");
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0 || size[0] > kMaxDim || size[1] > kMaxDim) {
    return ctx.Err("size must be two positive values, got " + Join(size));
  }
  const Shape& s = ctx.InShape(0);
  if (s[1] == 0 || s[2] == 0) return ctx.Err("empty input " + ShapeToString(s));
  ctx.Set(0, {s[0], static_cast<int32_t>(size[0]), static_cast<int32_t>(size[1]), s[3]}, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
