// CONV_2D: input [N, H, W, IC], filter [OC, KH, KW, IC / groups], optional
// bias [OC]. im2col over blocks of output pixels + the packed GEMM, split
// across threads by pixel blocks; a few pixels take dot products instead.
#include <algorithm>

#include "cpu_kernels/micro/gemm/gemm.h"
#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {
constexpr int64_t kPixelsPerBlock = 6 * 12;  // a multiple of the GEMM row tile
}  // namespace

Status RunConv2d(KernelContext& ctx) {
  if (RunConvGemm(ctx)) return OkStatus();
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  ConvIo io;
  GLD_RETURN_IF_ERROR(GetConvIo(ctx, &io));
  const Conv2dAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *io.in;
  const TensorData& filter = *io.filter;
  const TensorData* bias = io.bias;
  TensorData& out = *io.out;
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ic = in.shape[3];
  const int64_t oc = filter.shape[0], kh = filter.shape[1], kw = filter.shape[2], fic = filter.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  if (fic <= 0 || ic % fic != 0 || oc <= 0 || oc % (ic / fic) != 0 || out.shape[0] != batch ||
      out.shape[3] != oc || (bias && bias->num_elements() != oc)) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", filter " +
                                ShapeToString(filter.shape) + ", output " + ShapeToString(out.shape) +
                                (bias ? ", bias " + ShapeToString(bias->shape) : std::string()));
  }
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(
      CheckKernelGeometry(ctx, MakeConvGeometry(*attrs, in.shape, filter.shape, &geometry), geometry, out.shape));
  const int64_t groups = ic / fic;
  const int64_t ocg = oc / groups;
  const int64_t sh = attrs->stride_h, sw = attrs->stride_w;
  const int64_t dh = attrs->dilation_h, dw = attrs->dilation_w;
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const int64_t k = kh * kw * fic;
  const float* w = filter.as<float>();
  const float* b = bias ? bias->as<float>() : nullptr;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  if (out.num_elements() == 0) return OkStatus();

  const int64_t pixels = batch * oh * ow;
  // Rows of the im2col matrix for output pixels [p0, p0 + rows) of group g.
  auto im2col = [&](int64_t p0, int64_t rows, int64_t g, float* cols) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t p = p0 + r;
      const int64_t n = p / (oh * ow);
      const int64_t oy = (p / ow) % oh;
      const int64_t ox = p % ow;
      float* dst = cols + r * k;
      for (int64_t fy = 0; fy < kh; ++fy) {
        const int64_t iy = oy * sh - pad_t + fy * dh;
        for (int64_t fx = 0; fx < kw; ++fx) {
          const int64_t ix = ox * sw - pad_l + fx * dw;
          float* d = dst + (fy * kw + fx) * fic;
          if (iy < 0 || iy >= ih || ix < 0 || ix >= iw) {
            std::fill(d, d + fic, 0.f);
          } else {
            const float* s = x + ((n * ih + iy) * iw + ix) * ic + g * fic;
            std::copy(s, s + fic, d);
          }
        }
      }
    }
  };
  // Fewer output pixels than the GEMM's row tile (a head over a small
  // feature map): dot products over the filter as it is, which is [OC, K]
  // row-major, instead of packing all of it at every run.
  if (groups == 1 && pixels < kGemmMr) {
    std::vector<float> cols(static_cast<size_t>(pixels * k));
    im2col(0, pixels, 0, cols.data());
    ParallelForGrain(ctx, oc, std::max<int64_t>(1, 8192 / k), [&](int64_t o0, int64_t o1) {
      DotRows(cols.data(), pixels, w, k, o0, o1, b, y, oc, attrs->activation);
    });
    return OkStatus();
  }

  // B_g(k, j) = filter[(g * ocg + j) * K + k].
  PackedWeights scratch;
  const std::vector<PackedB>& packed = PackWeightsOnce(ctx, 1, &scratch, [&](std::vector<PackedB>* p) {
    p->resize(static_cast<size_t>(groups));
    for (int64_t g = 0; g < groups; ++g) PackGemmB(w + g * ocg * k, k, ocg, 1, k, &(*p)[static_cast<size_t>(g)]);
  });
  const bool clamp = IsClampActivation(attrs->activation);
  const ActivationRange range = clamp ? GetActivationRange(attrs->activation) : ActivationRange{};
  const bool direct = groups == 1 && kh == 1 && kw == 1 && sh == 1 && sw == 1 && pad_t == 0 &&
                      pad_l == 0 && oh == ih && ow == iw;
  const int64_t blocks = (pixels + kPixelsPerBlock - 1) / kPixelsPerBlock;

  ctx.ParallelFor(blocks, [&](int64_t block_begin, int64_t block_end) {
    std::vector<float> cols;
    if (!direct) cols.resize(static_cast<size_t>(kPixelsPerBlock * k));
    for (int64_t blk = block_begin; blk < block_end; ++blk) {
      const int64_t p0 = blk * kPixelsPerBlock;
      const int64_t rows = std::min(kPixelsPerBlock, pixels - p0);
      float* yb = y + p0 * oc;
      if (direct) {
        GemmRows(x + p0 * ic, ic, rows, packed[0], b, yb, oc, range);
      } else {
        for (int64_t g = 0; g < groups; ++g) {
          im2col(p0, rows, g, cols.data());
          GemmRows(cols.data(), k, rows, packed[static_cast<size_t>(g)], b ? b + g * ocg : nullptr,
                   yb + g * ocg, oc, range);
        }
      }
      if (!clamp) ApplyActivationInPlace(attrs->activation, yb, rows * oc);
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
