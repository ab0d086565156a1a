// The window geometry of the convolutions and pools: per spatial axis the
// input and output sizes, the filter, stride and dilation, and the zeros
// before and after the input (TFLite's SAME padding plus a merged PAD). One
// definition, made from a node's attributes and shapes: the shape rules
// (graph/shapes/) make it, validate it and size the output from it; the GL
// generators (gl/codegen/ops/conv.cc, pooling.cc) and the CPU kernels
// (cpu_kernels/) make it again from the same shapes and read it instead of
// computing sizes or padding themselves. It is not stored on the node: the
// shapes change (ResizeInputs, dynamic tensors, passes), and a function of
// them cannot go stale.
#pragma once

#include <array>
#include <cstdint>

#include "gldelegate/status.hpp"
#include "graph/attributes.h"
#include "graph/types.h"

namespace gld {

// ---- One axis at a time (TFLite's arithmetic) ------------------------------

// TFLite's windowed output size: SAME: ceil(in / stride); VALID:
// ceil((in - effective_filter + 1) / stride), where effective_filter =
// (filter - 1) * dilation + 1. Returns a negative value when VALID leaves no
// output (callers report it). Arguments must be positive.
int32_t ConvOutputSize(Padding padding, int32_t in, int32_t filter, int32_t stride,
                       int32_t dilation = 1);

// Padding before/after one spatial dimension. TFLite pads
// total = max(0, (out - 1) * stride + effective_filter - in) and puts the
// smaller half before (top/left): before = total / 2, after = total - before.
struct PaddingValues {
  int32_t before = 0;
  int32_t after = 0;
};
PaddingValues ComputePadding(Padding padding, int32_t in, int32_t filter, int32_t stride,
                             int32_t dilation, int32_t out);

// ---- The geometry ----------------------------------------------------------

// One spatial axis of a window op. Output position o, tap k reads input
// position o * stride - pad_before + k * dilation; positions outside
// [0, in) are padding.
struct WindowAxis {
  int32_t in = 1;          // the input's size (a merged PAD not included)
  int32_t filter = 1;
  int32_t stride = 1;
  int32_t dilation = 1;
  int32_t pad_before = 0;  // a merged PAD's zeros plus `padding`'s share before
  int32_t pad_after = 0;   // and after
  int32_t out = 1;         // negative: VALID leaves no output (refused by the Make functions)

  int64_t Extent() const { return (static_cast<int64_t>(filter) - 1) * dilation + 1; }
  // 1 + the farthest input position a window reaches, counted from the
  // first padding zero.
  int64_t Reach() const { return (static_cast<int64_t>(out) - 1) * stride + Extent(); }
};

// One axis: its output size and padding from `padding` over the input widened
// by `extra_before` / `extra_after` zeros (a merged PAD, ExplicitPadding).
WindowAxis MakeWindowAxis(Padding padding, int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                          int32_t extra_before = 0, int32_t extra_after = 0);

// The spatial axes, outermost first: (height, width), or (depth, height,
// width) for CONV_3D. For the transposed convolutions it is the geometry of
// the convolution they transpose: `in` is their output, `out` their input.
struct ConvGeometry {
  int num_axes = 2;
  std::array<WindowAxis, 3> axes{};

  const WindowAxis& h() const { return axes[static_cast<size_t>(num_axes - 2)]; }
  const WindowAxis& w() const { return axes[static_cast<size_t>(num_axes - 1)]; }
  // True when `out` (batch, the spatial axes, channels) has the axes' output
  // sizes.
  bool Gives(const Shape& out) const;
};

// The first checks of each op's rule: strides, dilations (a pool's filter)
// positive. InvalidArgument with the message the shape rule reports (the rule
// adds the node's name).
Status CheckConvSteps(const Conv2dAttributes& a);
Status CheckConvSteps(const DepthwiseConv2dAttributes& a);
Status CheckConvSteps(const Conv3dAttributes& a);
Status CheckConvSteps(const Pool2dAttributes& a);
Status CheckConvSteps(const TransposeConvAttributes& a);

// The geometry of a node from its attributes and shapes (NHWC input; filter
// OHWI for CONV_2D, [1, KH, KW, C * M] for DEPTHWISE_CONV_2D, DHWIO for
// CONV_3D). Each checks CheckConvSteps, then that every output size is
// positive and that no window reaches past 2^30 input positions (kernels
// index out * stride + tap * dilation in int32), and fails with the shape
// rule's messages. Shapes must have the op's rank.
Status MakeConvGeometry(const Conv2dAttributes& a, const Shape& in, const Shape& filter, ConvGeometry* g);
Status MakeConvGeometry(const DepthwiseConv2dAttributes& a, const Shape& in, const Shape& filter,
                                   ConvGeometry* g);
Status MakeConvGeometry(const Conv3dAttributes& a, const Shape& in, const Shape& filter, ConvGeometry* g);
Status MakePoolGeometry(const Pool2dAttributes& a, const Shape& in, ConvGeometry* g);

// TRANSPOSE_CONV (its output sized by the output_shape input): TFLite pads as
// if the output `out` were the input of a CONV_2D (dilation 1) of output
// ceil(out / stride); the axes' `out` are the input's sizes. `weights` OHWI.
ConvGeometry TransposeConvGeometry(const TransposeConvAttributes& a, const Shape& in, const Shape& weights,
                                   const Shape& out);
// MediaPipe's MaxUnpooling2D: the values of `in` placed back in `out`, padded
// as if `out` were pooled back to `in` with SAME padding, whatever the
// padding option says (MediaPipe's kernel); the axes' `out` are `in`'s sizes.
ConvGeometry MaxUnpoolingGeometry(const Pool2dAttributes& a, const Shape& in, const Shape& out);
// MediaPipe's Convolution2DTransposeBias, whose output size follows from the
// input: SAME: total = max(0, filter - (in - 1) % stride - 1), output =
// stride * (in - 1) + filter - total, before = total / 2; VALID: total = 0.
// Fails (the rule's messages) on bad strides, an empty input or output.
Status MakeTransposeConvBiasGeometry(const TransposeConvAttributes& a, const Shape& in, const Shape& weights,
                                     ConvGeometry* g);

}  // namespace gld
