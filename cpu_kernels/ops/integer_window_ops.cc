// The int8 windowed kernels of integer_ops.h: AVERAGE_POOL_2D as TFLite's
// builtin int8 kernel computes it (LiteRT's default: XNNPACK's delegate does
// not take it), TRANSPOSE_CONV as XNNPACK's QC8 deconvolution does (its
// delegate takes it: int32 sums of (input - zero point) x weight plus the
// bias, times input scale x weight scale / output scale in float, rounded
// half to even) and RESIZE_BILINEAR as XNNPACK's int8 bilinear resize.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cpu_kernels/micro/fixed_point.h"
#include "cpu_kernels/ops/integer_kernels.h"
#include "cpu_kernels/ops/integer_ops.h"
#include "cpu_kernels/kernel_helpers.h"
#include "cpu_kernels/ops/quantized.h"
#include "graph/quantized_ops.h"

namespace gld::cpu {

namespace {

const Tensor* TensorAt(const Graph& graph, int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph.tensors.size()) return nullptr;
  return &graph.tensors[static_cast<size_t>(index)];
}

bool IsInt8Activation(const Tensor* t) {
  return t != nullptr && !t->is_constant && t->type == DataType::kInt8 && QuantOf(*t).valid;
}

// A constant the reader decoded from `storage` integers with zero points 0
// and one scale, or one per slice of dimension 0 (`channels` of them).
bool IsStoredPerChannel(const Tensor* t, DataType storage, int64_t channels) {
  if (t == nullptr || !t->is_constant || t->type != DataType::kFloat32 || t->quant.storage_type != storage) {
    return false;
  }
  const QuantizationParams& q = t->quant;
  if (q.scale.size() != 1 && (static_cast<int64_t>(q.scale.size()) != channels || q.quantized_dimension != 0)) {
    return false;
  }
  for (int64_t zp : q.zero_point) {
    if (zp != 0) return false;
  }
  for (float s : q.scale) {
    if (!(s > 0.f) || !std::isfinite(s)) return false;
  }
  std::vector<int32_t> values;
  return StoredIntegers(*t, &values);
}

// --- AVERAGE_POOL_2D -----------------------------------------------------------

// The attributes and the NHWC input 0 and output of a windowed node with
// `inputs` inputs: one batch and channel count, a non-empty input.
template <typename Attrs>
Status GetNhwcNode(const KernelContext& ctx, size_t inputs, const Attrs** attrs) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, inputs, inputs, 1));
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, attrs));
  const Shape& in = ctx.inputs[0]->shape;
  const Shape& out = ctx.outputs[0]->shape;
  if (in.size() != 4 || out.size() != 4 || in[0] != out[0] || in[3] != out[3] || in[1] <= 0 || in[2] <= 0) {
    return KernelError(ctx, "NHWC input and output of one batch and channel count expected, got " +
                                ShapeToString(in) + " and " + ShapeToString(out));
  }
  return OkStatus();
}

Status RunAveragePool(KernelContext& ctx) {
  const Pool2dAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetNhwcNode(ctx, 1, &attrs));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  int32_t lo = -128, hi = 127;
  if (!QuantizedActivationRange(attrs->activation, *OutputTensor(ctx, 0), &lo, &hi)) {
    return KernelUnimplemented(ctx, "the fused activation is not a clamp of the output's range");
  }
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(CheckKernelGeometry(ctx, MakePoolGeometry(*attrs, in.shape, &geometry), geometry, out.shape));
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const int8_t* x = in.as<int8_t>();
  int8_t* y = out.as<int8_t>();
  bool empty_window = false;
  ParallelForGrain(ctx, batch * oh, 1, [&](int64_t rb, int64_t re) {
    std::vector<int32_t> acc(static_cast<size_t>(ch));
    for (int64_t row = rb; row < re; ++row) {
      const int64_t b = row / oh, oy = row % oh;
      const int64_t y0 = std::max<int64_t>(0, oy * attrs->stride_h - pad_t);
      const int64_t y1 = std::min<int64_t>(ih, oy * attrs->stride_h - pad_t + attrs->filter_h);
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = std::max<int64_t>(0, ox * attrs->stride_w - pad_l);
        const int64_t x1 = std::min<int64_t>(iw, ox * attrs->stride_w - pad_l + attrs->filter_w);
        const int32_t count = static_cast<int32_t>(std::max<int64_t>(0, y1 - y0) * std::max<int64_t>(0, x1 - x0));
        int8_t* o = y + ((b * oh + oy) * ow + ox) * ch;
        if (count == 0) {
          empty_window = true;
          continue;
        }
        std::fill(acc.begin(), acc.end(), 0);
        for (int64_t iy = y0; iy < y1; ++iy) {
          for (int64_t ix = x0; ix < x1; ++ix) {
            const int8_t* p = x + ((b * ih + iy) * iw + ix) * ch;
            for (int64_t c = 0; c < ch; ++c) acc[static_cast<size_t>(c)] += p[c];
          }
        }
        // TFLite's average of the stored integers, rounded half away from
        // zero; no rescaling to the output's quantization.
        for (int64_t c = 0; c < ch; ++c) {
          const int32_t s = acc[static_cast<size_t>(c)];
          const int32_t avg = s > 0 ? (s + count / 2) / count : (s - count / 2) / count;
          o[c] = static_cast<int8_t>(std::min(std::max(avg, lo), hi));
        }
      }
    }
  });
  if (empty_window) return KernelError(ctx, "a pooling window covers no input element");
  return OkStatus();
}

// --- TRANSPOSE_CONV --------------------------------------------------------------

struct TransposeConvState final : KernelState {
  std::vector<int32_t> weights;  // [oc][kh][kw][ic], stored integers
  std::vector<int32_t> bias;     // [oc]
  std::vector<float> scale;      // [oc]: input scale x weight scale / output scale
  int32_t in_zero_point = 0, out_zero_point = 0, lo = -128, hi = 127;
};

Status MakeTransposeConvState(const KernelContext& ctx, TransposeConvState* s) {
  GLD_RETURN_IF_ERROR(CheckIo(ctx, 3, 4, 1));
  const TransposeConvAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const Tensor* w = InputTensor(ctx, 1);
  const TensorQuant in = QuantOf(*InputTensor(ctx, 2)), out = QuantOf(*OutputTensor(ctx, 0));
  if (!in.valid || !out.valid || w == nullptr || !StoredIntegers(*w, &s->weights)) {
    return KernelUnimplemented(ctx, "int8 input and output and stored int8 weights expected");
  }
  if (!QuantizedActivationRange(attrs->activation, *OutputTensor(ctx, 0), &s->lo, &s->hi)) {
    return KernelUnimplemented(ctx, "the fused activation is not a clamp of the output's range");
  }
  const int64_t oc = w->shape.empty() ? 0 : w->shape[0];
  s->bias.assign(static_cast<size_t>(oc), 0);
  const Tensor* bias = ctx.node->inputs.size() > 3 && ctx.node->inputs[3] != kNoTensor ? InputTensor(ctx, 3) : nullptr;
  if (bias != nullptr && (!StoredIntegers(*bias, &s->bias) || static_cast<int64_t>(s->bias.size()) != oc)) {
    return KernelUnimplemented(ctx, "the bias's stored int32 integers cannot be recovered");
  }
  s->scale.resize(static_cast<size_t>(oc));
  for (int64_t c = 0; c < oc; ++c) {
    const float ws = w->quant.scale.size() == 1 ? w->quant.scale[0] : w->quant.scale[static_cast<size_t>(c)];
    s->scale[static_cast<size_t>(c)] = in.scale * ws / out.scale;
  }
  s->in_zero_point = in.zero_point;
  s->out_zero_point = out.zero_point;
  return OkStatus();
}

Status RunTransposeConvWith(KernelContext& ctx, const TransposeConvState& s) {
  const TransposeConvAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *ctx.inputs[2];
  const TensorData& wt = *ctx.inputs[1];
  TensorData& out = *ctx.outputs[0];
  if (in.shape.size() != 4 || wt.shape.size() != 4 || out.shape.size() != 4 || wt.shape[3] != in.shape[3] ||
      out.shape[0] != in.shape[0] || out.shape[3] != wt.shape[0] ||
      static_cast<int64_t>(s.weights.size()) != wt.num_elements() || attrs->stride_h <= 0 || attrs->stride_w <= 0) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", weights " +
                                ShapeToString(wt.shape) + ", output " + ShapeToString(out.shape));
  }
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ic = in.shape[3];
  const int64_t oc = wt.shape[0], kh = wt.shape[1], kw = wt.shape[2];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const ConvGeometry geometry = TransposeConvGeometry(*attrs, in.shape, wt.shape, out.shape);
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const int8_t* x = in.as<int8_t>();
  int8_t* y = out.as<int8_t>();
  ParallelForGrain(ctx, batch, 1, [&](int64_t bb, int64_t be) {
    std::vector<int32_t> acc(static_cast<size_t>(oh * ow * oc));
    for (int64_t b = bb; b < be; ++b) {
      for (int64_t p = 0; p < oh * ow; ++p) std::copy(s.bias.begin(), s.bias.end(), acc.begin() + p * oc);
      for (int64_t iy = 0; iy < ih; ++iy) {
        for (int64_t ix = 0; ix < iw; ++ix) {
          const int8_t* px = x + ((b * ih + iy) * iw + ix) * ic;
          for (int64_t ky = 0; ky < kh; ++ky) {
            const int64_t oy = iy * attrs->stride_h - pad_t + ky;
            if (oy < 0 || oy >= oh) continue;
            for (int64_t kx = 0; kx < kw; ++kx) {
              const int64_t ox = ix * attrs->stride_w - pad_l + kx;
              if (ox < 0 || ox >= ow) continue;
              int32_t* a = acc.data() + (oy * ow + ox) * oc;
              for (int64_t c = 0; c < oc; ++c) {
                const int32_t* w = s.weights.data() + ((c * kh + ky) * kw + kx) * ic;
                int32_t sum = 0;
                for (int64_t k = 0; k < ic; ++k) sum += (px[k] - s.in_zero_point) * w[k];
                a[c] += sum;
              }
            }
          }
        }
      }
      int8_t* o = y + b * oh * ow * oc;
      for (int64_t p = 0; p < oh * ow; ++p) {
        for (int64_t c = 0; c < oc; ++c) {
          const float f = static_cast<float>(acc[static_cast<size_t>(p * oc + c)]) * s.scale[static_cast<size_t>(c)];
          const float clamped = std::min(std::max(f, static_cast<float>(s.lo - s.out_zero_point)),
                                         static_cast<float>(s.hi - s.out_zero_point));
          o[p * oc + c] = static_cast<int8_t>(fixed_point::RoundHalfEvenSmall(clamped) + s.out_zero_point);
        }
      }
    }
  });
  return OkStatus();
}

// --- RESIZE_BILINEAR ---------------------------------------------------------------

// One output coordinate of XNNPACK's bilinear resize: the two input
// coordinates and the weight of the second in Q11 (its indirection setup).
struct BilinearTap {
  int64_t lo = 0, hi = 0;
  int32_t alpha = 0;
};

// TFLite's legacy mode (neither flag) and align_corners sample at o x scale;
// half-pixel centers at (o + 0.5) x scale - 0.5 clamped to the input.
std::vector<BilinearTap> BilinearTaps(int64_t in, int64_t out, bool align_corners, bool half_pixel) {
  const int64_t adjust = align_corners && out != 1 ? 1 : 0;
  const float scale = static_cast<float>(in - adjust) / static_cast<float>(out - adjust);
  const float offset = 0.5f * scale - 0.5f;
  std::vector<BilinearTap> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    float v = static_cast<float>(o) * scale;
    if (half_pixel && !align_corners) {
      v = std::min(std::max(v + offset, 0.f), static_cast<float>(in - 1));
    }
    BilinearTap& t = taps[static_cast<size_t>(o)];
    t.lo = static_cast<int64_t>(v);
    t.hi = std::min<int64_t>(t.lo + 1, in - 1);
    t.alpha = static_cast<int32_t>(std::lrint((v - static_cast<float>(t.lo)) * 2048.f));
  }
  return taps;
}

Status RunResizeBilinear(KernelContext& ctx) {
  const ResizeAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetNhwcNode(ctx, 2, &attrs));
  const TensorData& in = *ctx.inputs[0];
  TensorData& out = *ctx.outputs[0];
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ch = in.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  const auto ty = BilinearTaps(ih, oh, attrs->align_corners, attrs->half_pixel_centers);
  const auto tx = BilinearTaps(iw, ow, attrs->align_corners, attrs->half_pixel_centers);
  const int8_t* x = in.as<int8_t>();
  int8_t* y = out.as<int8_t>();
  ParallelForGrain(ctx, batch * oh, 1, [&](int64_t rb, int64_t re) {
    for (int64_t row = rb; row < re; ++row) {
      const int64_t b = row / oh;
      const BilinearTap& v = ty[static_cast<size_t>(row % oh)];
      const int8_t* top = x + (b * ih + v.lo) * iw * ch;
      const int8_t* bottom = x + (b * ih + v.hi) * iw * ch;
      int8_t* o = y + row * ow * ch;
      for (int64_t ox = 0; ox < ow; ++ox) {
        const BilinearTap& h = tx[static_cast<size_t>(ox)];
        for (int64_t c = 0; c < ch; ++c) {
          const int32_t tl = top[h.lo * ch + c], tr = top[h.hi * ch + c];
          const int32_t bl = bottom[h.lo * ch + c], br = bottom[h.hi * ch + c];
          // Q11 along x, then Q22 along y, rounded half up (XNNPACK's).
          const int32_t t = tl * 2048 + (tr - tl) * h.alpha;
          const int32_t bm = bl * 2048 + (br - bl) * h.alpha;
          const int32_t acc = t * 2048 + (bm - t) * v.alpha;
          o[ox * ch + c] = static_cast<int8_t>((acc + (1 << 21)) >> 22);
        }
      }
    }
  });
  return OkStatus();
}

}  // namespace

bool TakesInt8AveragePool(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  const auto* attrs = std::get_if<Pool2dAttributes>(&node.attributes);
  int32_t lo = 0, hi = 0;
  return IsInt8Activation(in) && IsInt8Activation(out) && in->shape.size() == 4 && attrs != nullptr &&
         QuantizedActivationRange(attrs->activation, *out, &lo, &hi);
}

bool TakesInt8TransposeConv(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 3 || node.inputs.size() > 4 || node.outputs.size() != 1) return false;
  const Tensor* w = TensorAt(graph, node.inputs[1]);
  const Tensor* in = TensorAt(graph, node.inputs[2]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  const auto* attrs = std::get_if<TransposeConvAttributes>(&node.attributes);
  if (w == nullptr || w->shape.size() != 4 || !IsInt8Activation(in) || !IsInt8Activation(out) || attrs == nullptr) {
    return false;
  }
  const int64_t oc = w->shape[0];
  if (!IsStoredPerChannel(w, DataType::kInt8, oc)) return false;
  if (node.inputs.size() == 4 && node.inputs[3] != kNoTensor &&
      !IsStoredPerChannel(TensorAt(graph, node.inputs[3]), DataType::kInt32, oc)) {
    return false;
  }
  int32_t lo = 0, hi = 0;
  return QuantizedActivationRange(attrs->activation, *out, &lo, &hi);
}

Status PrepareInt8TransposeConv(KernelContext& ctx) {
  if (ctx.state == nullptr) return OkStatus();
  auto s = std::make_unique<TransposeConvState>();
  GLD_RETURN_IF_ERROR(MakeTransposeConvState(ctx, s.get()));
  *ctx.state = std::move(s);
  return OkStatus();
}

Status RunInt8TransposeConv(KernelContext& ctx) {
  if (const auto* s = StateAs<const TransposeConvState>(ctx)) {
    return RunTransposeConvWith(ctx, *s);
  }
  TransposeConvState local;
  GLD_RETURN_IF_ERROR(MakeTransposeConvState(ctx, &local));
  return RunTransposeConvWith(ctx, local);
}

Status RunInt8AveragePool(KernelContext& ctx) { return RunAveragePool(ctx); }

bool TakesInt8ResizeBilinear(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  const Tensor* in = TensorAt(graph, node.inputs[0]);
  const Tensor* out = TensorAt(graph, node.outputs[0]);
  return IsInt8Activation(in) && IsInt8Activation(out) && in->shape.size() == 4 &&
         SameQuantization(in->quant, out->quant) && std::holds_alternative<ResizeAttributes>(node.attributes);
}

Status RunInt8ResizeBilinear(KernelContext& ctx) { return RunResizeBilinear(ctx); }

}  // namespace gld::cpu
