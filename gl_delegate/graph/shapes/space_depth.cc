// Shape rules of DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND and
// BATCH_TO_SPACE_ND.
#include <string>
#include <vector>

#include "graph/shapes/shape_rules.h"

namespace gld::shapes {

namespace {

Status SpaceDepth(RuleContext& ctx, bool to_space) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(1, 1));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  const BlockSizeAttributes* a = nullptr;
  GLD_RETURN_IF_ERROR(ctx.Attrs(&a));
  GLD_RETURN_IF_ERROR(ctx.Rank(0, 4));
  const Shape& s = ctx.InShape(0);
  const int64_t b = a->block_size;
  if (b < 1 || b > 65536) return ctx.Err("block_size " + std::to_string(b) + " must be positive");
  if (to_space) {
    if (s[3] % (b * b) != 0) {
      return ctx.Err("channels " + std::to_string(s[3]) + " not divisible by block_size^2 = " + std::to_string(b * b));
    }
    if (s[1] * b > kMaxDim || s[2] * b > kMaxDim) return ctx.Err("output too large");
    ctx.Set(
        0, {s[0], static_cast<int32_t>(s[1] * b), static_cast<int32_t>(s[2] * b), static_cast<int32_t>(s[3] / (b * b))},
        ctx.In(0).type);
  } else {
    if (s[1] % b != 0 || s[2] % b != 0) {
      return ctx.Err("height and width of " + ShapeToString(s) + " not divisible by block_size " + std::to_string(b));
    }
    if (s[3] * b * b > kMaxDim) return ctx.Err("output too large");
    ctx.Set(0,
            {s[0], static_cast<int32_t>(s[1] / b), static_cast<int32_t>(s[2] / b), static_cast<int32_t>(s[3] * b * b)},
            ctx.In(0).type);
  }
  return OkStatus();
}

}  // namespace

Status DepthToSpace(RuleContext& ctx) { return SpaceDepth(ctx, true); }

Status SpaceToDepth(RuleContext& ctx) { return SpaceDepth(ctx, false); }

Status SpaceToBatch(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> block, pads;
  if (!ctx.Values(1, &block) || !ctx.Values(2, &pads)) return ctx.KeepStored(0, ctx.In(0).type, "block_shape/paddings");
  const Shape& s = ctx.InShape(0);
  const size_t m = block.size();
  if (m < 1 || s.size() < m + 1 || pads.size() != 2 * m) {
    return ctx.Err("block_shape " + Join(block) + " / paddings " + Join(pads) + " do not fit input " +
                   ShapeToString(s));
  }
  Shape out = s;
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1 || pads[2 * i] < 0 || pads[2 * i + 1] < 0) return ctx.Err("invalid block_shape or paddings");
    const int64_t padded = s[i + 1] + pads[2 * i] + pads[2 * i + 1];
    if (padded % block[i] != 0) {
      return ctx.Err("padded dimension " + std::to_string(padded) + " not divisible by block " +
                     std::to_string(block[i]));
    }
    out[i + 1] = static_cast<int32_t>(padded / block[i]);
    prod *= block[i];
    if (prod > kMaxDim) return ctx.Err("block_shape too large");
  }
  if (s[0] * prod > kMaxDim) return ctx.Err("output batch too large");
  out[0] = static_cast<int32_t>(s[0] * prod);
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

Status BatchToSpace(RuleContext& ctx) {
  GLD_RETURN_IF_ERROR(ctx.Inputs(3, 3));
  GLD_RETURN_IF_ERROR(ctx.Outputs(1));
  std::vector<int64_t> block, crops;
  if (!ctx.Values(1, &block) || !ctx.Values(2, &crops)) return ctx.KeepStored(0, ctx.In(0).type, "block_shape/crops");
  const Shape& s = ctx.InShape(0);
  const size_t m = block.size();
  if (m < 1 || s.size() < m + 1 || crops.size() != 2 * m) {
    return ctx.Err("block_shape " + Join(block) + " / crops " + Join(crops) + " do not fit input " + ShapeToString(s));
  }
  Shape out = s;
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1 || crops[2 * i] < 0 || crops[2 * i + 1] < 0) return ctx.Err("invalid block_shape or crops");
    prod *= block[i];
    if (prod > kMaxDim) return ctx.Err("block_shape too large");
    const int64_t n = s[i + 1] * block[i] - crops[2 * i] - crops[2 * i + 1];
    if (n < 0 || n > kMaxDim) return ctx.Err("crops " + Join(crops) + " exceed the dimension");
    out[i + 1] = static_cast<int32_t>(n);
  }
  if (s[0] % prod != 0) {
    return ctx.Err("batch " + std::to_string(s[0]) + " not divisible by block product " + std::to_string(prod));
  }
  out[0] = static_cast<int32_t>(s[0] / prod);
  ctx.Set(0, out, ctx.In(0).type);
  return OkStatus();
}

}  // namespace gld::shapes
