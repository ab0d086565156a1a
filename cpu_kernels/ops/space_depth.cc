// DEPTH_TO_SPACE and SPACE_TO_DEPTH (NHWC, any element type), in TFLite's
// (DCR) channel order: depth index = ((y % b) * b + (x % b)) * C_small + c.
#include <cstring>

#include "cpu_kernels/ops/op_kernels.h"

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

// SPACE_TO_BATCH_ND (to_batch) and BATCH_TO_SPACE_ND. The "space" tensor is
// [B, S_1..S_m, rest...] (S padded / cropped), the "batch" tensor
// [B * prod(block), S_i / block_i, rest...]; batch index = offset * B + b,
// where offset enumerates positions inside a block, first spatial dim major.
Status SpaceBatch(KernelContext& ctx, bool to_batch) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 3, 1));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  if (in.type != out.type) return KernelError(ctx, "input and output types differ");
  std::vector<int64_t> block, pads;
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[1], "block_shape", &block));
  GLD_RETURN_IF_ERROR(ReadInts(ctx, *ctx.inputs[2], to_batch ? "paddings" : "crops", &pads));
  const size_t m = block.size();
  const TensorData& space = to_batch ? in : out;
  const TensorData& batch = to_batch ? out : in;
  if (m == 0 || pads.size() != 2 * m || space.shape.size() < m + 1 || batch.shape.size() != space.shape.size()) {
    return KernelError(ctx, "block_shape / paddings do not fit input " + ShapeToString(in.shape));
  }
  int64_t prod = 1;
  for (size_t i = 0; i < m; ++i) {
    if (block[i] < 1 || pads[2 * i] < 0 || pads[2 * i + 1] < 0) return KernelError(ctx, "invalid block_shape or paddings");
    prod *= block[i];
    if (space.shape[i + 1] + pads[2 * i] + pads[2 * i + 1] != batch.shape[i + 1] * block[i]) {
      return KernelError(ctx, "shapes " + ShapeToString(in.shape) + " -> " + ShapeToString(out.shape) +
                                  " do not match block_shape and paddings");
    }
  }
  const int64_t nb = space.shape[0];
  if (batch.shape[0] != nb * prod) return KernelError(ctx, "batch size does not match block_shape");
  for (size_t d = m + 1; d < space.shape.size(); ++d) {
    if (space.shape[d] != batch.shape[d]) return KernelError(ctx, "trailing dimensions differ");
  }
  int64_t rest = 1;
  for (size_t d = m + 1; d < space.shape.size(); ++d) rest *= space.shape[d];
  const size_t es = DataTypeSize(in.type);
  const size_t chunk = static_cast<size_t>(rest) * es;
  if (to_batch) std::memset(out.data, 0, static_cast<size_t>(out.num_elements()) * es);
  const std::vector<int64_t> ss = Strides(space.shape);
  uint8_t* sp = static_cast<uint8_t*>(to_batch ? const_cast<void*>(in.data) : out.data);
  uint8_t* bp = static_cast<uint8_t*>(to_batch ? out.data : const_cast<void*>(in.data));
  // Walk every element (excluding `rest`) of the batch tensor.
  const int64_t cells = batch.num_elements() / std::max<int64_t>(rest, 1);
  std::vector<int64_t> pos(m);
  for (int64_t c = 0; c < (rest > 0 ? cells : 0); ++c) {
    int64_t rem = c;
    for (size_t i = m; i-- > 0;) {
      pos[i] = rem % batch.shape[i + 1];
      rem /= batch.shape[i + 1];
    }
    const int64_t bb = rem;  // batch-tensor batch index
    const int64_t b = bb % nb;
    int64_t offset = bb / nb;
    bool inside = true;
    int64_t soff = b * ss[0];
    for (size_t i = m; i-- > 0;) {
      const int64_t o = offset % block[i];
      offset /= block[i];
      const int64_t s = pos[i] * block[i] + o - pads[2 * i];
      if (s < 0 || s >= space.shape[i + 1]) {
        inside = false;
        break;
      }
      soff += s * ss[i + 1];
    }
    if (!inside) continue;
    uint8_t* bptr = bp + c * static_cast<int64_t>(chunk);
    uint8_t* sptr = sp + soff * static_cast<int64_t>(es);
    if (to_batch) {
      std::memcpy(bptr, sptr, chunk);
    } else {
      std::memcpy(sptr, bptr, chunk);
    }
  }
  return OkStatus();
}

}  // namespace

Status RunSpaceToBatchNd(KernelContext& ctx) { return SpaceBatch(ctx, true); }
Status RunBatchToSpaceNd(KernelContext& ctx) { return SpaceBatch(ctx, false); }

Status RunDepthToSpace(KernelContext& ctx) { return SpaceDepth(ctx, true); }
Status RunSpaceToDepth(KernelContext& ctx) { return SpaceDepth(ctx, false); }

}  // namespace gld::cpu
