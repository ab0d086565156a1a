// Integer execution on the CPU: the kernels that run int8/uint8 nodes with
// TFLite's integer semantics (requantization, rounding, fused activations
// clamped in the quantized domain), and the facts the CPU backend's integer
// form of a graph is planned from (transforms/integer_view.cc).
//
// A node runs on integers when its quantized activation tensors stay
// int8/uint8 and the CPU has a kernel for it that way: an integer kernel of
// the table in integer_kernels.cc (convolutions, fully connected, ADD / SUB /
// MUL, MEAN over the spatial axes, MAX_POOL_2D, LOGISTIC, TANH: XNNPACK's
// QS8 / QC8 / QU8 operators and the VNNI kernels; and the int8 kernels of
// integer_ops.h, which reproduce LiteRT's builtin int8 kernels or XNNPACK's
// arithmetic where the operators here do not), or
// an op whose own kernel takes integers as they are (QUANTIZE, DEQUANTIZE,
// CAST, and the ops that only move values when every quantized tensor they
// touch has one quantization). Every other node keeps the float view.
//
// Quantized constants reach the kernels decoded to float32 (the reader's
// rule, which the GL backend and the float kernels need) with their
// quantization kept; an integer kernel's prepare takes the stored integers
// back (StoredIntegers), which is exact for 8-bit weights and for biases up
// to 2^24 in magnitude.
#pragma once

#include <vector>

#include "cpu_kernels/kernel_interface.h"

namespace gld::cpu {

// Nodes with an integer kernel go on the pool from this much estimated work
// (about 1.5 us), half the bar of the others (kParallelMinWork). An integer
// step is one loop over rows or GEMM items with nothing around it, and such
// a split costs about 0.4 us on 2 cores: MobileNetV2's 24x24 48 -> 8 1x1
// layer ran in 2.3 us instead of 3.3, and the int8 MobileNetV2 with float
// I/O at 2 threads in 125 us instead of 130 (6 paired rounds, with the
// GEMM and depthwise kernels before their VPDPBUSD rework); float steps of
// this size lost (bert_tiny's 3.1 us batch matmul took 3.3 us split, the
// model 68 -> 70 us).
constexpr int64_t kIntegerParallelMinWork = kParallelMinWork / 2;

// The integer kernel of `node` when its inputs and outputs are (or, before
// the integer view, would stay) int8/uint8 with the quantization the kernel
// takes; nullptr otherwise.
const CpuKernel* FindIntegerKernel(const Graph& graph, const Node& node);

// Whether the node may keep its quantized tensors integer: an integer
// kernel, or an own kernel that takes integers as they are (see above).
bool RunsOnIntegers(const Graph& graph, const Node& node);

// The kernel the CPU runs `node` with: its integer kernel when it has one,
// else its op's (FindCpuKernel).
const CpuKernel* FindNodeKernel(const Graph& graph, const Node& node);

// A constant the reader decoded to float32 from int8/uint8 integers, one
// scale and zero point per tensor, whose stored integers can be recovered.
// An op whose own kernel moves values takes one (RunsOnIntegers) once the
// integer view has given the node an 8-bit copy of it (IntegerCopyOf).
bool IsDecodedByteConstant(const Tensor& t);

// That 8-bit copy: the tensor's metadata with its storage type and its
// stored integers as data.
Tensor IntegerCopyOf(const Tensor& t);

// The integers a quantized constant was stored as, from its decoded float32
// values and its quantization: round(v / scale) + zero_point per element,
// checked by decoding them again (DequantizeAffine must give v back bit for
// bit). False for a tensor without quantization or that check failing.
// The 8-bit forms keep each integer cast to the type (for weights stored
// as such), without an int32 copy of the tensor.
bool StoredIntegers(const Tensor& t, std::vector<int32_t>* out);
bool StoredIntegers(const Tensor& t, std::vector<int8_t>* out);
bool StoredIntegers(const Tensor& t, std::vector<uint8_t>* out);

}  // namespace gld::cpu
