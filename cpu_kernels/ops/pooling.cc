// AVERAGE_POOL_2D, MAX_POOL_2D (NHWC, float32). Windows are clipped to the
// input; the average divides by the number of in-bounds elements, as TFLite.
#include <algorithm>
#include <cstring>
#include <limits>

#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/micro/simd.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"

namespace gld::cpu {

namespace {

enum class PoolKind { kMax, kAverage };

// Checks a pooling node and makes its window geometry.
Status CheckPool(const KernelContext& ctx, const Pool2dAttributes** attrs, ConvGeometry* geometry) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 1, 1, 1));
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, attrs));
  const TensorData& in = *ctx.inputs[0];
  const TensorData& out = *ctx.outputs[0];
  GLD_RETURN_IF_ERROR(CheckType(ctx, in, DataType::kFloat32, "input"));
  GLD_RETURN_IF_ERROR(CheckType(ctx, out, DataType::kFloat32, "output"));
  if (in.shape.size() != 4 || out.shape.size() != 4 || out.shape[0] != in.shape[0] ||
      out.shape[3] != in.shape[3]) {
    return KernelError(ctx, "input and output must be 4-D with matching batch and channels, got " +
                                ShapeToString(in.shape) + " and " + ShapeToString(out.shape));
  }
  return CheckKernelGeometry(ctx, MakePoolGeometry(**attrs, in.shape, geometry), *geometry, out.shape);
}

// One image's geometry.
struct PoolGeometry {
  int64_t ih, iw, ch, oh, ow, fh, fw, sh, sw, pad_t, pad_l;
  Activation activation;
};

// Output row `oy` of one image (x: its input, o: the row's output). A NaN
// never wins the maximum, as in TFLite (the running maximum starts at the
// lowest float and takes a value only when it is larger).
GLD_MULTIVERSION void PoolRow(const PoolGeometry& g, PoolKind kind, const float* __restrict__ x, int64_t oy,
                              float* __restrict__ o) {
  const int64_t ch = g.ch;
  const int64_t y0 = std::max<int64_t>(0, oy * g.sh - g.pad_t);
  const int64_t y1 = std::min<int64_t>(g.ih, oy * g.sh - g.pad_t + g.fh);
  for (int64_t ox = 0; ox < g.ow; ++ox, o += ch) {
    const int64_t x0 = std::max<int64_t>(0, ox * g.sw - g.pad_l);
    const int64_t x1 = std::min<int64_t>(g.iw, ox * g.sw - g.pad_l + g.fw);
    const float init = kind == PoolKind::kMax ? std::numeric_limits<float>::lowest() : 0.f;
    if (kind == PoolKind::kMax && ch % 8 == 0 && ox + 1 < g.ow && x0 == ox * g.sw - g.pad_l &&
        (ox + 1) * g.sw - g.pad_l + g.fw <= g.iw) {
      // This output and the next, both windows wholly inside the row (the
      // next one sw columns on): two chains of maxima side by side, where
      // one chain waits on each comparison (mnist.tflite's [1, 26, 26, 8]
      // 2x2 pool: the model 8.3 -> 8.2 us median); each output's
      // comparisons in the same order.
      const int64_t next = g.sw * ch;
      for (int64_t c0 = 0; c0 < ch; c0 += 8) {
        Float8 ma = {init, init, init, init, init, init, init, init};
        Float8 mb = ma;
        for (int64_t iy = y0; iy < y1; ++iy) {
          for (int64_t ix = x0; ix < x1; ++ix) {
            const float* p = x + (iy * g.iw + ix) * ch + c0;
            Float8 va, vb;
            GLD_LOAD8(va, p);
            GLD_LOAD8(vb, p + next);
            ma = ma < va ? va : ma;  // std::max(ma, va)
            mb = mb < vb ? vb : mb;
          }
        }
        GLD_STORE8(o + c0, ma);
        GLD_STORE8(o + ch + c0, mb);
      }
      ApplyActivationInPlace(g.activation, o, 2 * ch);
      ++ox;
      o += ch;
      continue;
    }
    int64_t c0 = 0;  // channels below c0 are done
    if (kind == PoolKind::kMax) {
      // Eight channels at a time in a vector of their own (a loop of fixed
      // length, where the runtime-length loop below spent more on its setup
      // than on the maxima: mnist.tflite, whose [1, 26, 26, 8] 2x2 pool took
      // twice its REDUCE_MAX, 9.2 -> 8.5 us with the float maxima of
      // reduce.cc); the same comparisons in the same order.
      for (; c0 + 8 <= ch; c0 += 8) {
        Float8 m = {init, init, init, init, init, init, init, init};
        for (int64_t iy = y0; iy < y1; ++iy) {
          for (int64_t ix = x0; ix < x1; ++ix) {
            Float8 v;
            GLD_LOAD8(v, x + (iy * g.iw + ix) * ch + c0);
            m = m < v ? v : m;  // std::max(m, v)
          }
        }
        GLD_STORE8(o + c0, m);
      }
    }
    for (int64_t c = c0; c < ch; ++c) o[c] = init;
    for (int64_t iy = y0; iy < y1 && c0 < ch; ++iy) {
      for (int64_t ix = x0; ix < x1; ++ix) {
        const float* __restrict__ ip = x + (iy * g.iw + ix) * ch;
        if (kind == PoolKind::kMax) {
          for (int64_t c = c0; c < ch; ++c) o[c] = std::max(o[c], ip[c]);
        } else {
          for (int64_t c = 0; c < ch; ++c) o[c] += ip[c];
        }
      }
    }
    if (kind == PoolKind::kAverage) {
      const int64_t count = std::max<int64_t>(0, y1 - y0) * std::max<int64_t>(0, x1 - x0);
      for (int64_t c = 0; c < ch; ++c) o[c] = count > 0 ? o[c] / static_cast<float>(count) : 0.f;
    }
    ApplyActivationInPlace(g.activation, o, ch);
  }
}

Status RunPool(KernelContext& ctx, PoolKind kind) {
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  const Pool2dAttributes* attrs = nullptr;
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckPool(ctx, &attrs, &geometry));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const PoolGeometry g{ih, iw, ch, oh, ow, attrs->filter_h, attrs->filter_w, attrs->stride_h, attrs->stride_w,
                       geometry.h().pad_before, geometry.w().pad_before, attrs->activation};
  const float* x = in.as<float>();
  float* y = out.as<float>();
  ParallelForGrain(ctx, batch * oh, 1, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t n = row / oh;
      PoolRow(g, kind, x + n * ih * iw * ch, row % oh, y + row * ow * ch);
    }
  });
  return OkStatus();
}

xnn_status SetupAveragePool(const KernelContext& ctx, xnn_operator_t op, pthreadpool_t pool) {
  const TensorData& in = *ctx.inputs[0];
  const size_t n = static_cast<size_t>(in.shape[0]), h = static_cast<size_t>(in.shape[1]),
               w = static_cast<size_t>(in.shape[2]);
  return xnn_setup_average_pooling2d_nhwc_f32(op, n, h, w, in.as<float>(), ctx.outputs[0]->as<float>(), pool);
}

Status PreparePool(KernelContext& ctx, PoolKind kind) {
  const Pool2dAttributes* attrs = nullptr;
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckPool(ctx, &attrs, &geometry));
  const Shape& in = ctx.inputs[0]->shape;
  const Shape& out = ctx.outputs[0]->shape;
  XnnWindow w = XnnWindowOf(geometry);
  // A window wholly in the padding has no element: XNNPACK and TFLite may
  // differ there, so such pools stay on the kernel's own code. So does max
  // pooling: XNNPACK's maximum of a window holding NaN is neither TFLite's
  // (a NaN never wins) nor a NaN, and nothing in its output tells.
  if (kind == PoolKind::kMax || !XnnMayTake(ctx) || !CompleteXnnWindow(in, out, &w) || w.pad_t >= w.kh ||
      w.pad_b >= w.kh || w.pad_l >= w.kw || w.pad_r >= w.kw || ctx.outputs[0]->num_elements() == 0) {
    return OkStatus();
  }
  const ActivationRange range = XnnOutputRange();
  const size_t ch = static_cast<size_t>(in[3]);
  const auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
  xnn_operator_t op = nullptr;
  const xnn_status s = xnn_create_average_pooling2d_nhwc_f32(u(w.pad_t), u(w.pad_r), u(w.pad_b), u(w.pad_l), u(w.kh),
                                                              u(w.kw), u(w.sh), u(w.sw), ch, ch, ch, range.lo,
                                                              range.hi, 0, &op);
  KeepXnnOperator(ctx, s, op, attrs->activation, SetupAveragePool);
  return OkStatus();
}

}  // namespace

Status RunMaxPool2d(KernelContext& ctx) { return RunPool(ctx, PoolKind::kMax); }
Status RunAveragePool2d(KernelContext& ctx) { return RunPool(ctx, PoolKind::kAverage); }
Status PrepareMaxPool2d(KernelContext& ctx) { return PreparePool(ctx, PoolKind::kMax); }
Status PrepareAveragePool2d(KernelContext& ctx) { return PreparePool(ctx, PoolKind::kAverage); }

}  // namespace gld::cpu
