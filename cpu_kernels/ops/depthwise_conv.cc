// DEPTHWISE_CONV_2D: input [N, H, W, IC], filter [1, KH, KW, IC * M], optional
// bias [IC * M]; output channel ic * M + m reads input channel ic. The inner
// loops run over contiguous channels; rows are split across threads.
#include <algorithm>

#include "cpu_kernels/micro/vector_math/activation.h"
#include "cpu_kernels/ops/op_kernels.h"
#include "cpu_kernels/xnnpack/xnnpack_op.h"
#include "cpu_kernels/micro/simd.h"

namespace gld::cpu {

namespace {

struct DepthwiseGeometry {
  int64_t ih, iw, ch, kh, kw, ow, sh, sw, dh, dw, pad_t, pad_l;
  // Every weight is finite (DepthwiseFixedState): a padding tap may then be
  // multiplied by a zero instead of skipped, with the same sum.
  bool finite_weights = false;
};

// Four neighbouring output pixels [ox, ox + 4) of row oy of a multiplier-1
// K x K depthwise convolution with stride S and no dilation, over filter
// rows [fy0, fy1) (those inside the input). The input vectors the four
// windows share are loaded once per filter row and each weight vector serves
// all four. kEdge: some window reaches past the left or right edge; the
// taps there are skipped (as TFLite does: an infinite weight never meets a
// padding zero); kZeroTaps, for finite weights only: they multiply the
// zeros instead, which gives the same sums without a branch per tap (7x7
// maps, where every block meets an edge: 30 -> 24.5 us for 1152 channels,
// 5x5). Channels go one vector V (L lanes) at a time; when the
// channel count is not a multiple of L the last block overlaps the one
// before it (the same values are written twice), so there is no scalar
// tail. With `clamp`, the fused activation's range is applied as the values
// are stored (NaN stays, as in ClampRow).
template <typename V, int L, int K, int S, bool kEdge, bool kZeroTaps>
__attribute__((always_inline)) inline void DepthwiseBlock(const DepthwiseGeometry& g, const float* x, const float* w,
                                                          const float* bias, int64_t oy, int64_t fy0, int64_t fy1,
                                                          int64_t ox, bool clamp, float lo, float hi, float* out) {
  constexpr int kPixels = 4;
  constexpr int kInputs = (kPixels - 1) * S + K;
  const int64_t ch = g.ch;
  const int64_t ix0 = ox * S - g.pad_l;
  const V vlo = V{} + lo, vhi = V{} + hi;
  for (int64_t c0 = 0; c0 < ch; c0 += L) {
    const int64_t c = c0 + L <= ch ? c0 : ch - L;
    V acc[kPixels];
    V b = V{};
    if (bias) std::memcpy(&b, bias + c, sizeof b);
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) acc[p] = b;
    for (int64_t fy = fy0; fy < fy1; ++fy) {
      const int64_t iy = oy * S - g.pad_t + fy;
      const float* xr = x + (iy * g.iw + ix0) * ch + c;
      const float* wr = w + fy * K * ch + c;
      V in[kInputs];
      bool inside[kInputs];
#pragma GCC unroll 16
      for (int j = 0; j < kInputs; ++j) {
        inside[j] = !kEdge || (ix0 + j >= 0 && ix0 + j < g.iw);
        if (inside[j]) {
          std::memcpy(&in[j], xr + j * ch, sizeof in[j]);
        } else {
          in[j] = V{};
        }
      }
#pragma GCC unroll 8
      for (int fx = 0; fx < K; ++fx) {
        V wv;
        std::memcpy(&wv, wr + fx * ch, sizeof wv);
#pragma GCC unroll 8
        for (int p = 0; p < kPixels; ++p) {
          if (kZeroTaps || inside[p * S + fx]) acc[p] += in[p * S + fx] * wv;
        }
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < kPixels; ++p) {
      if (clamp) GLD_CLAMP8(acc[p], vlo, vhi);
      std::memcpy(out + (ox + p) * ch + c, &acc[p], sizeof acc[p]);
    }
  }
}

// Row oy in blocks of four pixels; the last block overlaps the one before
// it when the width is not a multiple of 4. Needs ow >= 4 and ch >= L.
template <typename V, int L, int K, int S>
__attribute__((always_inline)) inline void DepthwiseRowKxK(const DepthwiseGeometry& g, const float* x, const float* w,
                                                           const float* bias, int64_t oy, bool clamp, float lo,
                                                           float hi, float* out) {
  int64_t fy0 = 0, fy1 = K;
  while (fy0 < fy1 && oy * S - g.pad_t + fy0 < 0) ++fy0;
  while (fy1 > fy0 && oy * S - g.pad_t + fy1 - 1 >= g.ih) --fy1;
  for (int64_t next = 0; next < g.ow; next += 4) {
    const int64_t ox = std::min(next, g.ow - 4);
    const bool inside = ox * S - g.pad_l >= 0 && (ox + 3) * S - g.pad_l + K <= g.iw;
    if (inside) {
      DepthwiseBlock<V, L, K, S, false, false>(g, x, w, bias, oy, fy0, fy1, ox, clamp, lo, hi, out);
    } else if (g.finite_weights) {
      DepthwiseBlock<V, L, K, S, true, true>(g, x, w, bias, oy, fy0, fy1, ox, clamp, lo, hi, out);
    } else {
      DepthwiseBlock<V, L, K, S, true, false>(g, x, w, bias, oy, fy0, fy1, ox, clamp, lo, hi, out);
    }
  }
}

// The row on the fixed kernel of its K and S with vectors V of L lanes;
// false when there is none (FixedKernelFits).
template <typename V, int L>
__attribute__((always_inline)) inline bool DepthwiseRowFixedOf(const DepthwiseGeometry& g, const float* x,
                                                               const float* w, const float* bias, int64_t oy,
                                                               bool clamp, float lo, float hi, float* out) {
  if (g.kw == 3 && g.sw == 1) {
    DepthwiseRowKxK<V, L, 3, 1>(g, x, w, bias, oy, clamp, lo, hi, out);
  } else if (g.kw == 3 && g.sw == 2) {
    DepthwiseRowKxK<V, L, 3, 2>(g, x, w, bias, oy, clamp, lo, hi, out);
  } else if (g.kw == 5 && g.sw == 1) {
    DepthwiseRowKxK<V, L, 5, 1>(g, x, w, bias, oy, clamp, lo, hi, out);
  } else if (g.kw == 5 && g.sw == 2) {
    DepthwiseRowKxK<V, L, 5, 2>(g, x, w, bias, oy, clamp, lo, hi, out);
  } else {
    return false;
  }
  return true;
}

// Whether DepthwiseRowFixed has a kernel for the geometry: 3x3 or 5x5,
// stride 1 or 2 (the same both ways), no dilation, multiplier 1, at least 8
// channels and 4 output columns.
bool FixedKernelFits(int64_t ch, int64_t ow, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  return ch >= 8 && ow >= 4 && dh == 1 && dw == 1 && kh == kw && (kw == 3 || kw == 5) && sh == sw &&
         (sw == 1 || sw == 2);
}

// One output row on the fixed K x K kernels; false when none fits
// (DepthwiseRow then computes it). Where the CPU has AVX-512F, 16 channels
// at a time (once there are 16): twice the channels per instruction.
GLD_MULTIVERSION
bool DepthwiseRowFixed8(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias, int64_t oy,
                        bool clamp, float lo, float hi, float* out) {
  return DepthwiseRowFixedOf<Float8, 8>(g, x, w, bias, oy, clamp, lo, hi, out);
}

#ifdef GLD_AVX512
GLD_AVX512 bool DepthwiseRowFixed16(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias,
                                    int64_t oy, bool clamp, float lo, float hi, float* out) {
  return DepthwiseRowFixedOf<Float16, 16>(g, x, w, bias, oy, clamp, lo, hi, out);
}
#endif

bool DepthwiseRowFixed(const DepthwiseGeometry& g, const float* x, const float* w, const float* bias, int64_t oy,
                       bool clamp, float lo, float hi, float* out) {
  if (!FixedKernelFits(g.ch, g.ow, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw)) return false;
#ifdef GLD_AVX512
  if (g.ch >= 16 && HasAvx512f()) return DepthwiseRowFixed16(g, x, w, bias, oy, clamp, lo, hi, out);
#endif
  return DepthwiseRowFixed8(g, x, w, bias, oy, clamp, lo, hi, out);
}

// One output row of a multiplier-1 depthwise convolution: for each output
// pixel, 8 channels at a time stay in a register across all filter taps.
// Where four neighbouring pixels' windows lie inside the input, the four are
// computed together, so each weight vector loaded serves four pixels.
GLD_MULTIVERSION
void DepthwiseRow(const DepthwiseGeometry& g, const float* x /* batch image */, const float* w, const float* bias,
                  int64_t oy, float* out /* output row */) {
  const int64_t ch = g.ch;
  int64_t fy0 = 0, fy1 = g.kh;
  while (fy0 < fy1 && oy * g.sh - g.pad_t + fy0 * g.dh < 0) ++fy0;
  while (fy1 > fy0 && oy * g.sh - g.pad_t + (fy1 - 1) * g.dh >= g.ih) --fy1;
  // Output columns whose whole window lies inside the input: [x_lo, x_hi).
  int64_t x_lo = 0;
  while (x_lo < g.ow && x_lo * g.sw - g.pad_l < 0) ++x_lo;
  int64_t x_hi = x_lo;
  while (x_hi < g.ow && x_hi * g.sw - g.pad_l + (g.kw - 1) * g.dw < g.iw) ++x_hi;
  // Channels [c0, ch) of pixel ox, one at a time.
  auto scalar_channels = [&](int64_t ox, int64_t fx0, int64_t fx1, int64_t c0) {
    float* o = out + ox * ch;
    for (int64_t c = c0; c < ch; ++c) {
      float acc = bias ? bias[c] : 0.f;
      for (int64_t fy = fy0; fy < fy1; ++fy) {
        const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
        for (int64_t fx = fx0; fx < fx1; ++fx) {
          const int64_t ix = ox * g.sw - g.pad_l + fx * g.dw;
          acc += x[(iy * g.iw + ix) * ch + c] * w[(fy * g.kw + fx) * ch + c];
        }
      }
      o[c] = acc;
    }
  };
  const int64_t vec_ch = ch / 8 * 8;
  int64_t ox = 0;
  while (ox < g.ow) {
    if (ox >= x_lo && ox + 4 <= x_hi) {
      const int64_t step = g.sw * ch;  // input distance between neighbouring pixels' windows
      for (int64_t c = 0; c < vec_ch; c += 8) {
        Float8 a0 = {0, 0, 0, 0, 0, 0, 0, 0};
        if (bias) GLD_LOAD8(a0, bias + c);
        Float8 a1 = a0, a2 = a0, a3 = a0;
        for (int64_t fy = fy0; fy < fy1; ++fy) {
          const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
          const float* xr = x + (iy * g.iw + ox * g.sw - g.pad_l) * ch + c;
          const float* wr = w + fy * g.kw * ch + c;
          for (int64_t fx = 0; fx < g.kw; ++fx) {
            const float* xp = xr + fx * g.dw * ch;
            Float8 wv, x0, x1, x2, x3;
            GLD_LOAD8(wv, wr + fx * ch);
            GLD_LOAD8(x0, xp);
            GLD_LOAD8(x1, xp + step);
            GLD_LOAD8(x2, xp + 2 * step);
            GLD_LOAD8(x3, xp + 3 * step);
            a0 += x0 * wv;
            a1 += x1 * wv;
            a2 += x2 * wv;
            a3 += x3 * wv;
          }
        }
        GLD_STORE8(out + ox * ch + c, a0);
        GLD_STORE8(out + (ox + 1) * ch + c, a1);
        GLD_STORE8(out + (ox + 2) * ch + c, a2);
        GLD_STORE8(out + (ox + 3) * ch + c, a3);
      }
      if (vec_ch < ch) {
        for (int64_t k = 0; k < 4; ++k) scalar_channels(ox + k, 0, g.kw, vec_ch);
      }
      ox += 4;
      continue;
    }
    int64_t fx0 = 0, fx1 = g.kw;
    while (fx0 < fx1 && ox * g.sw - g.pad_l + fx0 * g.dw < 0) ++fx0;
    while (fx1 > fx0 && ox * g.sw - g.pad_l + (fx1 - 1) * g.dw >= g.iw) --fx1;
    float* o = out + ox * ch;
    for (int64_t c = 0; c < vec_ch; c += 8) {
      Float8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
      if (bias) GLD_LOAD8(acc, bias + c);
      for (int64_t fy = fy0; fy < fy1; ++fy) {
        const int64_t iy = oy * g.sh - g.pad_t + fy * g.dh;
        for (int64_t fx = fx0; fx < fx1; ++fx) {
          const int64_t ix = ox * g.sw - g.pad_l + fx * g.dw;
          Float8 xv, wv;
          GLD_LOAD8(xv, x + (iy * g.iw + ix) * ch + c);
          GLD_LOAD8(wv, w + (fy * g.kw + fx) * ch + c);
          acc += xv * wv;
        }
      }
      GLD_STORE8(o + c, acc);
    }
    scalar_channels(ox, fx0, fx1, vec_ch);
    ++ox;
  }
}

GLD_MULTIVERSION
void ClampRow(float* p, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = p[i] < lo ? lo : p[i];
    p[i] = v > hi ? hi : v;
  }
}

}  // namespace

bool DepthwiseRunsFixedKernel(const Shape& in, const Shape& filter, const Shape& out,
                              const DepthwiseConv2dAttributes& a) {
  return in.size() == 4 && filter.size() == 4 && out.size() == 4 && filter[3] == in[3] &&
         FixedKernelFits(in[3], out[2], filter[1], filter[2], a.stride_h, a.stride_w, a.dilation_h, a.dilation_w);
}

Status RunDepthwiseConv2d(KernelContext& ctx) {
  GLD_ASSIGN_OR_RETURN(const bool ran_on_xnnpack, RunXnnOperator(ctx));
  if (ran_on_xnnpack) return OkStatus();
  ConvIo io;
  GLD_RETURN_IF_ERROR(GetConvIo(ctx, &io));
  const DepthwiseConv2dAttributes* attrs = nullptr;
  GLD_RETURN_IF_ERROR(GetAttrs(ctx, &attrs));
  const TensorData& in = *io.in;
  const TensorData& filter = *io.filter;
  const TensorData* bias = io.bias;
  TensorData& out = *io.out;
  const int64_t batch = in.shape[0], ih = in.shape[1], iw = in.shape[2], ic = in.shape[3];
  const int64_t kh = filter.shape[1], kw = filter.shape[2], oc = filter.shape[3];
  const int64_t oh = out.shape[1], ow = out.shape[2];
  if (filter.shape[0] != 1 || ic <= 0 || oc % ic != 0 || out.shape[0] != batch || out.shape[3] != oc ||
      (bias && bias->num_elements() != oc)) {
    return KernelError(ctx, "inconsistent shapes: input " + ShapeToString(in.shape) + ", filter " +
                                ShapeToString(filter.shape) + ", output " + ShapeToString(out.shape) +
                                (bias ? ", bias " + ShapeToString(bias->shape) : std::string()));
  }
  ConvGeometry geometry;
  GLD_RETURN_IF_ERROR(
      CheckKernelGeometry(ctx, MakeConvGeometry(*attrs, in.shape, filter.shape, &geometry), geometry, out.shape));
  const int64_t mult = oc / ic;
  const int64_t sh = attrs->stride_h, sw = attrs->stride_w;
  const int64_t dh = attrs->dilation_h, dw = attrs->dilation_w;
  const int64_t pad_t = geometry.h().pad_before, pad_l = geometry.w().pad_before;
  const float* w = filter.as<float>();
  const float* b = bias ? bias->as<float>() : nullptr;
  const float* x = in.as<float>();
  float* y = out.as<float>();
  const Activation act = attrs->activation;

  if (mult == 1) {
    const auto* fixed = StateAs<const DepthwiseFixedState>(ctx);
    const DepthwiseGeometry g{ih, iw, ic, kh, kw, ow, sh, sw, dh, dw, pad_t, pad_l,
                              fixed != nullptr && fixed->finite_weights};
    const bool clamp = IsClampActivation(act);
    const ActivationRange range = GetActivationRange(act);
    ParallelForGrain(ctx, batch * oh, 1, [&](int64_t row_begin, int64_t row_end) {
      for (int64_t row = row_begin; row < row_end; ++row) {
        const int64_t n = row / oh;
        const int64_t oy = row % oh;
        float* out_row = y + (n * oh + oy) * ow * oc;
        const float* image = x + n * ih * iw * ic;
        if (DepthwiseRowFixed(g, image, w, b, oy, clamp && act != Activation::kNone, range.lo, range.hi,
                              out_row)) {
          if (!clamp) ApplyActivationInPlace(act, out_row, ow * oc);
          continue;
        }
        DepthwiseRow(g, image, w, b, oy, out_row);
        if (act == Activation::kNone) continue;
        if (clamp) {
          ClampRow(out_row, ow * oc, range.lo, range.hi);
        } else {
          ApplyActivationInPlace(act, out_row, ow * oc);
        }
      }
    });
    return OkStatus();
  }
  ParallelForGrain(ctx, batch * oh, 1, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t row = row_begin; row < row_end; ++row) {
      const int64_t n = row / oh;
      const int64_t oy = row % oh;
      for (int64_t ox = 0; ox < ow; ++ox) {
        float* __restrict__ o = y + ((n * oh + oy) * ow + ox) * oc;
        if (b) {
          std::copy(b, b + oc, o);
        } else {
          std::fill(o, o + oc, 0.f);
        }
        for (int64_t fy = 0; fy < kh; ++fy) {
          const int64_t iy = oy * sh - pad_t + fy * dh;
          if (iy < 0 || iy >= ih) continue;
          for (int64_t fx = 0; fx < kw; ++fx) {
            const int64_t ix = ox * sw - pad_l + fx * dw;
            if (ix < 0 || ix >= iw) continue;
            const float* __restrict__ ip = x + ((n * ih + iy) * iw + ix) * ic;
            const float* __restrict__ wp = w + (fy * kw + fx) * oc;
            for (int64_t c = 0; c < ic; ++c) {
              const float v = ip[c];
              for (int64_t m = 0; m < mult; ++m) o[c * mult + m] += v * wp[c * mult + m];
            }
          }
        }
        ApplyActivationInPlace(act, o, oc);
      }
    }
  });
  return OkStatus();
}

}  // namespace gld::cpu
