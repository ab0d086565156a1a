// Helpers shared by the op generators: axis bookkeeping between a tensor's
// logical dimensions and its BHWC view (gl/phwc4.h), paddings, weights, and
// the pieces of the one-input and dense templates' dispatches.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gl/codegen/gl_op.h"
#include "graph/types.h"

namespace gld::gl {

// For an operand broadcast numpy-style to `out` (dimensions aligned at the
// innermost one): for each of the operand's stored B, H, W axes, the output
// BHWC axis (0..2) that indexes it, or -1 where the operand has size 1.
// False (with why) when the shapes do not broadcast, or the operand's channel
// count is neither the output's nor 1.
bool MakeBroadcastMap(const Shape& operand, const Shape& out, std::array<int, 3>* map,
                      std::string* why);

// A tensor's dimension `dim` (may be negative) as a BHWC axis; false when out
// of range.
bool BhwcAxisOf(const Shape& shape, int64_t dim, int* axis);

// Conv weights OHWI -> the layout conv2d.comp, transpose_conv.comp and
// fully_connected.comp read. Output slices are taken `block` at a time (one
// invocation computes `block` output slices); for each group g of output
// slices, kernel row ky, column kx and input slice si come block * 4 vec4s:
// vec4 (k * 4 + j) holds the weights of output channel 4 * (g * block + k) + j
// over input channels 4*si..4*si+3. Channels past out_c / in_c (including
// the slices that round the last group up to `block`) are zero.
std::vector<float> RepackOhwiWeights(const std::vector<float>& w, int32_t out_c, int32_t kh,
                                     int32_t kw, int32_t in_c, int32_t block = 1);

// A per-channel vector (bias) as vec4 slices, zero-padded to `slices` slices
// (0: just enough for `channels`); an empty `v` gives zeros.
std::vector<float> RepackVector(const std::vector<float>& v, int32_t channels, int32_t slices = 0);

// Output slices one invocation of the dense templates computes: 4 when there
// are at least 4, else what there is (1 or 2, 3 -> 2).
int32_t OutputSliceBlock(int32_t out_slices);

// ---- The one-input templates (ops/data_movement.cc, ops/pad.cc).

// Invalid unless the node has at least `inputs` inputs and `outputs` outputs.
Status NeedIo(OpBuildContext& ctx, size_t inputs, size_t outputs);

// A dispatch of `template_name` over the output: output 0 at binding 0,
// input 0 at binding 1, uniforms u_out and u_in.
Dispatch SimpleDispatch(OpBuildContext& ctx, const char* template_name, const Bhwc& in, const Bhwc& o);

// The logical shape of tensor `tensor` of the graph.
const Shape& ShapeOf(OpBuildContext& ctx, int tensor);

// ---- The dense templates (conv2d.comp, transpose_conv.comp,
// fully_connected.comp), shared by ops/conv.cc and ops/fully_connected.cc.

// Output slices per invocation, and the slice count rounded up to it.
struct Blocking {
  int32_t block;
  int32_t padded_slices;
};
Blocking BlockingFor(int32_t out_channels);

// The dense templates' grid: (W, H, B * groups of BLOCK slices).
void GridOverGroups(Dispatch& d, const Bhwc& o, const Blocking& k);

// The bias buffer of input `input` (zeros when the optional input is absent),
// `channels` values as RepackVector lays them out in `slices` slices.
StatusOr<DispatchBufferRef> BiasBuffer(OpBuildContext& ctx, size_t input, int32_t channels, int32_t slices = 0);

// fully_connected.comp over the rows of tensor `input` into tensor `output`
// (ops/fully_connected.cc; LSTM's basic kernel uses it for its gates).
Dispatch FullyConnectedDispatch(int output, int input, DispatchBufferRef weights, DispatchBufferRef bias,
                                const Bhwc& o, const Bhwc& in, const Blocking& k, const std::string& act);

// Invalid unless the output's `axis` ("height", "channels", ...) is what the
// op gives.
Status CheckOutputSize(OpBuildContext& ctx, const char* axis, int32_t got, int32_t expected);

}  // namespace gld::gl
