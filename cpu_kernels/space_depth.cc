// DEPTH_TO_SPACE and SPACE_TO_DEPTH (NHWC, any element type), in TFLite's
// (DCR) channel order: depth index = ((y % b) * b + (x % b)) * C_small + c.
#include <cstring>

#include "cpu_kernels/kernels.h"

namespace gld::cpu {

namespace {

// The "small" tensor has shape [N, H*b, W*b, C], the "deep" one
// [N, H, W, C*b*b]; `to_space` copies deep -> small.
Status SpaceDepth(KernelContext& ctx, bool to_space) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  const BlockSizeAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const int64_t bs = attrs->block_size;
  const TensorData& deep = to_space ? in : out;
  const TensorData& wide = to_space ? out : in;
  if (bs < 1 || in.shape.size() != 4 || out.shape.size() != 4 || in.type != out.type ||
      deep.shape[0] != wide.shape[0] || deep.shape[1] * bs != wide.shape[1] || deep.shape[2] * bs != wide.shape[2] ||
      deep.shape[3] != wide.shape[3] * bs * bs) {
    return KernelError(ctx, "block size " + std::to_string(bs) + " does not map input " + ShapeToString(in.shape) +
                                " to output " + ShapeToString(out.shape));
  }
  const int64_t batch = deep.shape[0], dh = deep.shape[1], dw = deep.shape[2];
  const int64_t wc = wide.shape[3];
  const size_t es = DataTypeSize(in.type);
  const size_t chunk = static_cast<size_t>(wc) * es;
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  const int64_t wh = dh * bs, ww = dw * bs;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t y = 0; y < wh; ++y) {
      for (int64_t x = 0; x < ww; ++x) {
        const int64_t wide_off = ((n * wh + y) * ww + x) * wc;
        const int64_t deep_off = ((n * dh + y / bs) * dw + x / bs) * wc * bs * bs + ((y % bs) * bs + x % bs) * wc;
        if (to_space) {
          std::memcpy(dst + static_cast<size_t>(wide_off) * es, src + static_cast<size_t>(deep_off) * es, chunk);
        } else {
          std::memcpy(dst + static_cast<size_t>(deep_off) * es, src + static_cast<size_t>(wide_off) * es, chunk);
        }
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status RunDepthToSpace(KernelContext& ctx) { return SpaceDepth(ctx, true); }
Status RunSpaceToDepth(KernelContext& ctx) { return SpaceDepth(ctx, false); }

}  // namespace gld::cpu
