// The int8 GEMM of the integer convolutions (one group) and fully connected
// layers where the CPU has AVX-512 VNNI (VPDPBUSD: four unsigned x signed
// byte products summed into int32) or is AArch64 (SDOT: four signed x
// signed; SMULL + SADALP where it lacks dot product): rows of int8 activations (one pixel's
// window or one row's K values) times int8 weights symmetric per output
// channel, requantized as XNNPACK's QC8 operators do (and so LiteRT's
// default kernels): y = clamp(nearbyint(float(acc) * scale_c) + zero point),
// scale_c = input scale * weight scale_c / output scale in float.
//
// VPDPBUSD takes one operand unsigned: on x86 the activations enter as
// x + 128 (a flip of the sign bit, done once on a copy of the rows a call
// reads), and the bias absorbs the difference, bias_c - (128 + input zero
// point) * sum_k w_ck (variants.h: kInputBias, 0 on ARM). Internal to
// cpu_kernels/.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu_kernels/kernel_interface.h"

namespace gld::cpu {

// Where the int8 GEMM runs: the CPU has AVX-512 VNNI and BW and the OS saves
// their state, or is AArch64 (NEON) and the ARM tiles are turned on.
bool HasInt8Gemm();

// Turns the own GEMM on or off for the prepares that follow, in the whole
// process; returns the previous setting. On by default where its x86 form
// is compiled; off where its ARM form is: under qemu (Cortex-A76, one
// thread) the int8 networks ran at 1.08-1.22x LiteRT's median with the ARM
// tiles and at 1.00-1.05x with XNNPACK's QC8 operators (docs/ARM.md), so
// XNNPACK takes those layers on ARM. The tests turn it on there.
bool SetOwnInt8GemmEnabled(bool enabled);
class ScopedOwnInt8Gemm {
 public:
  explicit ScopedOwnInt8Gemm(bool enabled) : previous_(SetOwnInt8GemmEnabled(enabled)) {}
  ~ScopedOwnInt8Gemm() { SetOwnInt8GemmEnabled(previous_); }
  ScopedOwnInt8Gemm(const ScopedOwnInt8Gemm&) = delete;
  ScopedOwnInt8Gemm& operator=(const ScopedOwnInt8Gemm&) = delete;

 private:
  bool previous_;
};

// The form of the tiles this build compiled (the packing's layout follows
// it: variants.h's PanelLane and kInputBias), whichever the CPU runs.
enum class Int8GemmForm { kNone, kX86Vnni, kArmNeon };
Int8GemmForm CompiledInt8GemmForm();

// The window of a convolution whose rows the GEMM gathers (im2col): each
// output pixel's kh x kw x ic input values, the input's zero point where the
// window leaves the input.
struct Int8Window {
  int64_t batch = 0, ih = 0, iw = 0, ic = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, pad_t = 0, pad_l = 0;
  int8_t pad_value = 0;
};

// A row of the GEMM is `groups` runs of `group_len` values each, every run
// padded with zero weights to a multiple of 4 (`steps` four-byte steps): a
// 1x1 layer's row is one run of k values; a convolution's window one run per
// window row (kw * ic values where the window's taps touch, dw == 1) or per
// tap (ic values). A window inside the input is read in place from a copy
// of its kh input rows (flipped, below), each run at its offset from the
// window's first value (`offset`); rows gathered into scratch (windows that
// leave the input) lie run after run (`packed`).
// A 1x1 layer of up to 8 channels fuses rows in pairs (`fuse`): one row of
// 2k values times 2n channels, the weights block-diagonal.
struct Int8GemmWeights final : KernelState {
  int64_t n = 0, k = 0;  // the layer's: k = groups * group_len / fuse
  int64_t fuse = 1, tile_n = 0;  // rows per GEMM row, channels per GEMM row (fuse * n)
  int64_t groups = 1, group_len = 0, steps = 0;
  int64_t k4 = 0;      // a gathered row's length: groups * steps * 4
  int64_t panels = 0;  // of 32 output channels
  std::vector<int8_t> w;         // [panel][k4 / 4][32 lanes][4] (lanes: see PackRuns), from a 64-byte boundary
  std::vector<int32_t> bias;     // corrected (see above), panels * 32, in the weights' lane order
  std::vector<float> scale;      // panels * 32, likewise
  float lo = 0, hi = 0;          // the output range less the zero point
  int32_t zero_point = 0;
  // Some channel's sum times its scale could leave int32: clamp in float
  // before rounding (else the clamp follows the rounding, in bytes).
  bool clamp_in_float = false;
  bool gathers = false;  // a convolution through `window`, else rows read in place
  Int8Window window;
  std::vector<int64_t> offset;   // per run: in the window's kh input rows, one after another (1x1: {0})
  std::vector<int64_t> packed;   // per run: in a gathered row (run r at r * steps * 4)
};

// Packs weights [n, k] (stored integers), the bias (int32 per channel or
// empty) and the requantization for rows of one run of k values; false for
// k above 2^16 (int32 sums could overflow).
bool PackInt8Gemm(const int8_t* weights, int64_t n, int64_t k, const int32_t* bias, int32_t input_zero_point,
                  const float* requant_scale, int32_t output_zero_point, int32_t lo, int32_t hi,
                  Int8GemmWeights* packed);

// The same for a convolution over `window` (weights [n, kh, kw, ic]).
bool PackInt8Conv(const int8_t* weights, int64_t n, const Int8Window& window, const int32_t* bias,
                  int32_t input_zero_point, const float* requant_scale, int32_t output_zero_point, int32_t lo,
                  int32_t hi, Int8GemmWeights* packed);

// y[r, c] for rows [0, rows) of x (k values each, one after another) into
// y (n values a row). Only where HasInt8Gemm().
void Int8GemmRows(const int8_t* x, int64_t rows, const Int8GemmWeights& p, int8_t* y);

// The work items of an in-place GEMM over `rows` rows, for a parallel loop:
// blocks of up to kInt8GemmBlockRows rows times single panels, row block by
// row block (so that a run of items covers whole row blocks where it can,
// and few rows still split across threads by output channels).
// Int8GemmItems runs items [begin, end).
constexpr int64_t kInt8GemmBlockRows = 8;
int64_t Int8GemmItemCount(int64_t rows, const Int8GemmWeights& p);
// The multiply-adds of a whole item.
int64_t Int8GemmItemWork(const Int8GemmWeights& p);
void Int8GemmItems(const int8_t* x, int64_t rows, const Int8GemmWeights& p, int64_t begin, int64_t end, int8_t* y);

// Output pixels [p0, p1) of a convolution packed by PackInt8Conv: the
// windows inside the input read in place from the output row's kh input
// rows copied (as x + kInputBias) into `scratch` (up to 3 bytes past each run read,
// times zero weights), the others gathered into `scratch` a block at a time
// with the input's zero point as padding.
void Int8ConvPixels(const int8_t* x, int64_t p0, int64_t p1, const Int8GemmWeights& p, int8_t* y,
                    std::vector<int8_t>* scratch);

}  // namespace gld::cpu
