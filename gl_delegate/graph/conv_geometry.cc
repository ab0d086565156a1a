// The window geometry of the convolutions and pools (conv_geometry.h).
#include "graph/conv_geometry.h"

#include <algorithm>
#include <string>

#include "graph/shapes/shape_rules.h"

namespace gld {

int32_t ConvOutputSize(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation) {
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  if (padding == Padding::kSame) return static_cast<int32_t>((static_cast<int64_t>(in) + stride - 1) / stride);
  const int64_t span = static_cast<int64_t>(in) - eff;
  if (span < 0) return -1;
  return static_cast<int32_t>(span / stride + 1);
}

PaddingValues ComputePadding(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                             int32_t out) {
  PaddingValues p;
  if (padding != Padding::kSame) return p;
  const int64_t eff = (static_cast<int64_t>(filter) - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>(0, (static_cast<int64_t>(out) - 1) * stride + eff - in);
  p.before = static_cast<int32_t>(total / 2);
  p.after = static_cast<int32_t>(total - total / 2);
  return p;
}

WindowAxis MakeWindowAxis(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                          int32_t extra_before, int32_t extra_after) {
  WindowAxis x;
  x.in = in;
  x.filter = filter;
  x.stride = stride;
  x.dilation = dilation;
  const int32_t widened = in + extra_before + extra_after;
  x.out = ConvOutputSize(padding, widened, filter, stride, dilation);
  const PaddingValues p = ComputePadding(padding, widened, filter, stride, dilation, x.out);
  x.pad_before = extra_before + p.before;
  x.pad_after = extra_after + p.after;
  return x;
}

bool ConvGeometry::Gives(const Shape& out) const {
  if (out.size() != static_cast<size_t>(num_axes) + 2) return false;
  for (size_t d = 0; d < static_cast<size_t>(num_axes); ++d) {
    if (out[1 + d] != axes[d].out) return false;
  }
  return true;
}

namespace {

std::string Pair(int32_t a, int32_t b) { return "(" + std::to_string(a) + ", " + std::to_string(b) + ")"; }

const char* AxisName(const ConvGeometry& g, int d) {
  static const char* const kNames[3] = {"depth", "height", "width"};
  return kNames[3 - g.num_axes + d];
}

// Kernels index a window's input as out * stride + tap * dilation in int32;
// bounding the farthest position keeps that exact.
Status CheckReach(const ConvGeometry& g, int d) {
  const WindowAxis& x = g.axes[static_cast<size_t>(d)];
  if (x.Reach() <= shapes::kMaxDim) return OkStatus();
  return InvalidArgumentError(std::string(AxisName(g, d)) + " window (filter " + std::to_string(x.filter) +
                              ", stride " + std::to_string(x.stride) + ", dilation " + std::to_string(x.dilation) +
                              ") reaches " + std::to_string(x.Reach()) + " input positions, more than 2^30");
}

// Refuses an axis VALID leaves without output (`too_large()`, naming the
// axis for CONV_3D), then a window reaching past 2^30: for 2-D both sizes
// before the reaches, for 3-D axis by axis, as the rules always did. The
// message is made only for a refusal: kernels check their geometry at every
// run.
template <typename TooLarge>
Status CheckAxes(const ConvGeometry& g, const TooLarge& too_large) {
  const bool by_axis = g.num_axes == 3;
  for (int d = 0; d < g.num_axes; ++d) {
    if (g.axes[static_cast<size_t>(d)].out < 0) {
      return InvalidArgumentError(too_large() + (by_axis ? std::string(" along ") + AxisName(g, d) : std::string()));
    }
    if (by_axis) GLD_RETURN_IF_ERROR(CheckReach(g, d));
  }
  if (!by_axis) {
    for (int d = 0; d < g.num_axes; ++d) GLD_RETURN_IF_ERROR(CheckReach(g, d));
  }
  return OkStatus();
}

// CONV_2D and DEPTHWISE_CONV_2D: filter sizes at filter[1], filter[2].
template <typename A>
void Fill2d(const A& a, const Shape& in, const Shape& filter, ConvGeometry* g) {
  const ExplicitPadding& e = a.explicit_padding;
  g->num_axes = 2;
  g->axes[0] = MakeWindowAxis(a.padding, in[1], filter[1], a.stride_h, a.dilation_h, e.top, e.bottom);
  g->axes[1] = MakeWindowAxis(a.padding, in[2], filter[2], a.stride_w, a.dilation_w, e.left, e.right);
}

template <typename A>
Status CheckConv2dSteps(const A& a) {
  if (a.stride_h <= 0 || a.stride_w <= 0 || a.dilation_h <= 0 || a.dilation_w <= 0) {
    return InvalidArgumentError("strides " + Pair(a.stride_h, a.stride_w) + " and dilations " +
                                Pair(a.dilation_h, a.dilation_w) + " must be positive");
  }
  return OkStatus();
}

}  // namespace

Status CheckConvSteps(const Conv2dAttributes& a) { return CheckConv2dSteps(a); }
Status CheckConvSteps(const DepthwiseConv2dAttributes& a) { return CheckConv2dSteps(a); }

Status CheckConvSteps(const Conv3dAttributes& a) {
  const int32_t steps[6] = {a.stride_d, a.stride_h, a.stride_w, a.dilation_d, a.dilation_h, a.dilation_w};
  for (int32_t s : steps) {
    if (s <= 0) return InvalidArgumentError("strides and dilations must be positive");
  }
  return OkStatus();
}

Status CheckConvSteps(const Pool2dAttributes& a) {
  if (a.stride_h <= 0 || a.stride_w <= 0 || a.filter_h <= 0 || a.filter_w <= 0) {
    return InvalidArgumentError("filter " + Pair(a.filter_h, a.filter_w) + " and strides " +
                                Pair(a.stride_h, a.stride_w) + " must be positive");
  }
  return OkStatus();
}

Status CheckConvSteps(const TransposeConvAttributes& a) {
  if (a.stride_h <= 0 || a.stride_w <= 0) return InvalidArgumentError("strides must be positive");
  return OkStatus();
}

Status MakeConvGeometry(const Conv2dAttributes& a, const Shape& in, const Shape& filter, ConvGeometry* g) {
  GLD_RETURN_IF_ERROR(CheckConvSteps(a));
  Fill2d(a, in, filter, g);
  return CheckAxes(*g, [&] {
    return "VALID filter " + ShapeToString(filter) + " with dilation " + Pair(a.dilation_h, a.dilation_w) +
           " is larger than input " + ShapeToString(in);
  });
}

Status MakeConvGeometry(const DepthwiseConv2dAttributes& a, const Shape& in, const Shape& filter,
                                   ConvGeometry* g) {
  GLD_RETURN_IF_ERROR(CheckConvSteps(a));
  Fill2d(a, in, filter, g);
  return CheckAxes(*g, [&] {
    return "VALID filter " + ShapeToString(filter) + " is larger than input " + ShapeToString(in);
  });
}

Status MakeConvGeometry(const Conv3dAttributes& a, const Shape& in, const Shape& filter, ConvGeometry* g) {
  GLD_RETURN_IF_ERROR(CheckConvSteps(a));
  const int32_t strides[3] = {a.stride_d, a.stride_h, a.stride_w};
  const int32_t dilations[3] = {a.dilation_d, a.dilation_h, a.dilation_w};
  g->num_axes = 3;
  for (size_t d = 0; d < 3; ++d) {
    g->axes[d] = MakeWindowAxis(a.padding, in[1 + d], filter[d], strides[d], dilations[d]);
  }
  return CheckAxes(*g, [&] {
    return "VALID filter " + ShapeToString(filter) + " is larger than input " + ShapeToString(in);
  });
}

Status MakePoolGeometry(const Pool2dAttributes& a, const Shape& in, ConvGeometry* g) {
  GLD_RETURN_IF_ERROR(CheckConvSteps(a));
  g->num_axes = 2;
  g->axes[0] = MakeWindowAxis(a.padding, in[1], a.filter_h, a.stride_h, 1);
  g->axes[1] = MakeWindowAxis(a.padding, in[2], a.filter_w, a.stride_w, 1);
  return CheckAxes(*g, [&] {
    return "VALID filter " + Pair(a.filter_h, a.filter_w) + " is larger than input " + ShapeToString(in);
  });
}

ConvGeometry TransposeConvGeometry(const TransposeConvAttributes& a, const Shape& in, const Shape& weights,
                                   const Shape& out) {
  ConvGeometry g;
  g.axes[0] = MakeWindowAxis(a.padding, out[1], weights[1], a.stride_h, 1);
  g.axes[1] = MakeWindowAxis(a.padding, out[2], weights[2], a.stride_w, 1);
  g.axes[0].out = in[1];
  g.axes[1].out = in[2];
  return g;
}

ConvGeometry MaxUnpoolingGeometry(const Pool2dAttributes& a, const Shape& in, const Shape& out) {
  const int32_t filters[2] = {a.filter_h, a.filter_w}, strides[2] = {a.stride_h, a.stride_w};
  ConvGeometry g;
  for (size_t d = 0; d < 2; ++d) {
    WindowAxis& x = g.axes[d];
    x.in = out[1 + d];
    x.filter = filters[d];
    x.stride = strides[d];
    x.out = in[1 + d];
    const PaddingValues p = ComputePadding(Padding::kSame, x.in, x.filter, x.stride, 1, x.out);
    x.pad_before = p.before;
    x.pad_after = p.after;
  }
  return g;
}

namespace {

// One axis of a Convolution2DTransposeBias (conv_geometry.h).
WindowAxis TransposeConvBiasAxis(Padding padding, int32_t in, int32_t filter, int32_t stride) {
  int64_t total = 0;
  if (padding == Padding::kSame && stride > 0 && in > 0) {
    total = std::max<int64_t>(0, static_cast<int64_t>(filter) - (static_cast<int64_t>(in) - 1) % stride - 1);
  }
  WindowAxis x;
  x.in = static_cast<int32_t>(static_cast<int64_t>(stride) * (static_cast<int64_t>(in) - 1) + filter - total);
  x.filter = filter;
  x.stride = stride;
  x.pad_before = static_cast<int32_t>(total / 2);
  x.pad_after = static_cast<int32_t>(total - total / 2);
  x.out = in;
  return x;
}

}  // namespace

Status MakeTransposeConvBiasGeometry(const TransposeConvAttributes& a, const Shape& in, const Shape& weights,
                                     ConvGeometry* g) {
  GLD_RETURN_IF_ERROR(CheckConvSteps(a));
  if (in[1] <= 0 || in[2] <= 0) return InvalidArgumentError("empty input " + ShapeToString(in));
  g->num_axes = 2;
  g->axes[0] = TransposeConvBiasAxis(a.padding, in[1], weights[1], a.stride_h);
  g->axes[1] = TransposeConvBiasAxis(a.padding, in[2], weights[2], a.stride_w);
  if (g->h().in <= 0 || g->w().in <= 0) {
    return InvalidArgumentError("empty output for input " + ShapeToString(in) + " and weights " +
                                ShapeToString(weights));
  }
  return OkStatus();
}

}  // namespace gld
