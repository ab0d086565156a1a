// The int8 kernels of integer_ops.cc: ops that LiteRT's default kernels run
// either on XNNPACK operators the Debian XNNPACK lacks in that form, or on
// TFLite's own builtin int8 kernels (those XNNPACK's delegate does not take),
// reproduced here with the same arithmetic so the CPU backend's integers
// are LiteRT's:
//   ADD / SUB / MUL / SQUARED_DIFFERENCE in TFLite's fixed point (its
//     builtin kernels: ADD and SUB with 20 bits of headroom, SQUARED_
//     DIFFERENCE with 7, MUL on one multiplier), where XNNPACK's delegate
//     refuses the scales; with a constant operand where it takes them,
//     as XNNPACK's QS8 operators: MUL with float requantization (rounded
//     half to even), ADD / SUB with integer multipliers (20 bits below the
//     larger ratio's leading bit) and a rounding arithmetic shift; constant
//     operands as their stored integers;
//   RSQRT (TFLite's fixed-point Newton iteration), HARD_SWISH (TFLite's
//     16-bit fixed point) and GELU (TFLite's table: the float function of
//     each of the 256 inputs, rounded half away from zero), each as a
//     256-entry table;
//   SOFTMAX over the last axis (TFLite's optimized int8 kernel: a float table
//     of exp(-scale x beta x d) for the 256 distances to the row's maximum,
//     summed in float, each probability rounded half away from zero);
//   BATCH_MATMUL (int32 sums; XNNPACK's delegate takes the node when the
//     second operand's zero point is 0: float requantization, half to even;
//     else TFLite's kernel: its multiplier in fixed point);
//   MEAN over any axes (XNNPACK's QS8 mean: the int32 sum times input
//     scale / (output scale x count) in float, plus one float bias for the
//     zero points, rounded half to even).
// And in integer_window_ops.cc:
//   AVERAGE_POOL_2D (TFLite's builtin: the average of the stored integers
//     over the window's valid elements, rounded half away from zero, with no
//     rescaling to the output's quantization, clamped by the activation);
//   TRANSPOSE_CONV with int8 weights per tensor or per output channel
//     (XNNPACK's QC8 deconvolution: float requantization per channel);
//   RESIZE_BILINEAR with one quantization in and out (XNNPACK's: weights
//     of the two neighbours in Q11 per axis, the Q22 blend rounded half up).
// All take int8 activations with one scale and zero point per tensor.
#pragma once

#include "cpu_kernels/kernel_interface.h"

namespace gld::cpu {

bool TakesInt8Binary(const Graph& graph, const Node& node);
bool TakesInt8Table(const Graph& graph, const Node& node);
bool TakesInt8Softmax(const Graph& graph, const Node& node);
bool TakesInt8BatchMatMul(const Graph& graph, const Node& node);
bool TakesInt8Mean(const Graph& graph, const Node& node);
bool TakesInt8AveragePool(const Graph& graph, const Node& node);
bool TakesInt8TransposeConv(const Graph& graph, const Node& node);
bool TakesInt8ResizeBilinear(const Graph& graph, const Node& node);

// One prepare and run for all of them (by the node's op): prepare keeps the
// tables, multipliers and constant integers in the node's state slot; run
// computes them itself when there is no slot.
Status PrepareInt8Op(KernelContext& ctx);
Status RunInt8Op(KernelContext& ctx);
Status RunInt8AveragePool(KernelContext& ctx);
Status PrepareInt8TransposeConv(KernelContext& ctx);
Status RunInt8TransposeConv(KernelContext& ctx);
Status RunInt8ResizeBilinear(KernelContext& ctx);

}  // namespace gld::cpu
