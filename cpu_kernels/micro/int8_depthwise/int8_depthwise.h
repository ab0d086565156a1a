// The int8 depthwise convolution (weights per channel) where
// the CPU has AVX-512 VNNI (HasInt8Depthwise): 16 channels at a time, each
// 32-bit lane one channel holding four horizontal taps, so one VPDPBUSD
// (unsigned x signed bytes, four products a lane) takes four taps of 16
// channels. Each input row is packed once (per thread, in a ring of the
// window's rows): at every output column the four inputs (x[ix], x[ix + dw],
// x[ix + 2 dw], x[ix + 3 dw]) of each channel side by side, biased to
// unsigned (x + 128), the columns outside the input and the rows outside it
// holding the input's zero point; a window row of kw taps is ceil(kw / 4)
// dot products (the taps past kw weigh 0). The bias holds - (zero point +
// 128) x the window's weight sum, so the int32 sum is exactly that of
// sum (x - zero point) x w + bias; requantized as XNNPACK's QC8 depthwise
// operator does: nearbyint(float(acc) x scale_c) + output zero point,
// clamped. A depth multiplier m > 1 (output channel c x m + j reads input
// channel c) runs as multiplier 1 over c x m channels on an input whose
// bytes are each repeated m times (Int8RepeatBytes, one pass before the
// rows): the same sums, channel for channel. Internal to cpu_kernels/.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu_kernels/kernel_interface.h"

namespace gld::cpu {

struct Int8DepthwiseState final : KernelState {
  int64_t channels = 0, padded = 0;  // output channels; padded to 16
  int64_t multiplier = 1;            // output channels per input channel
  int64_t batch = 0, ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, pad_t = 0, pad_l = 0;
  int64_t groups = 0;           // ceil(kw / 4): dot products per window row
  std::vector<int8_t> weights;  // [padded / 16][kh * groups][16 channels][4 taps]
  std::vector<int32_t> bias;    // [padded]: bias - (input zero point + 128) x sum of the channel's weights
  std::vector<float> scale;     // [padded]
  int32_t input_zero_point = 0, output_zero_point = 0;
  float lo = 0, hi = 0;  // the output range less the zero point
};

// The most dot products a window may take (kh x ceil(kw / 4)).
inline constexpr int64_t kInt8DepthwiseMaxDots = 64;

// Where the own depthwise kernel runs: the CPU has AVX-512 VNNI and BW and
// the OS saves their state (elsewhere XNNPACK's QC8 operator).
bool HasInt8Depthwise();

// Fills the state's groups, weights and bias from weights [kh * kw][channels]
// and an optional bias (the window and zero points set); false where the
// window takes more than kInt8DepthwiseMaxDots dot products.
bool PackInt8Depthwise(const int8_t* weights, const int32_t* bias, Int8DepthwiseState* s);

// y[i x m + j] = x[i] for i < n, j < m: the input of a multiplier-m layer
// as the multiplier-1 kernel reads it.
void Int8RepeatBytes(const int8_t* x, int64_t n, int64_t m, int8_t* y);

// A fresh id for one run of a layer over its input (Int8DepthwiseRows).
uint64_t NewInt8DepthwiseLoop();

// Output rows [r0, r1) (over batch x oh) of the convolution; x is the
// input, with its bytes repeated when the multiplier is above 1. Calls with
// the same `loop` (one run of the layer split in chunks across threads)
// reuse the input rows an earlier chunk packed on the same thread: a chunk
// of one output row of a 5x5 layer would otherwise pack five input rows.
void Int8DepthwiseRows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y,
                       uint64_t loop);

}  // namespace gld::cpu
