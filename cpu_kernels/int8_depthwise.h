// The int8 depthwise convolution (multiplier 1, weights per channel) where
// the CPU has AVX-512 VNNI (HasInt8Gemm): 16 channels at a time, each tap one
// VPDPWSSD (the int16 dot product; the input sign-extended into 32-bit
// lanes, the weight in the low half of its lane, so each lane adds x * w),
// taps outside the input reading the input's zero point, the bias holding
// - zero point x the window's weight sum; requantized as XNNPACK's QC8
// depthwise operator does: nearbyint(float(acc) x scale_c) + output zero
// point, clamped. Internal to cpu_kernels/.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu_kernels/cpu_kernel.h"

namespace gld::cpu {

struct Int8DepthwiseState : KernelState {
  int64_t channels = 0, padded = 0;  // padded to 16
  int64_t batch = 0, ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, sh = 1, sw = 1, dh = 1, dw = 1, pad_t = 0, pad_l = 0;
  std::vector<int32_t> weights;  // [kh * kw][padded], each weight in its lane's low 16 bits
  std::vector<int32_t> bias;     // [padded]: bias - input zero point x sum of the channel's weights
  std::vector<float> scale;      // [padded]
  int32_t input_zero_point = 0, output_zero_point = 0;
  float lo = 0, hi = 0;  // the output range less the zero point
};

// Fills the state's weights and bias from weights [kh * kw][channels] and
// an optional bias.
void PackInt8Depthwise(const int8_t* weights, const int32_t* bias, Int8DepthwiseState* s);

// Output rows [r0, r1) (over batch x oh) of the convolution.
void Int8DepthwiseRows(const int8_t* x, const Int8DepthwiseState& s, int64_t r0, int64_t r1, int8_t* y);

}  // namespace gld::cpu
