// Helpers shared by the op generators: axis bookkeeping between a tensor's
// logical dimensions and its BHWC view (gl/phwc4.h), paddings, weights.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "gl/gl_op.h"
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

// Conv / pool weights OHWI -> the layout conv2d.comp and transpose_conv.comp
// read: for each output slice so, kernel row ky, column kx, input slice si,
// four vec4s, vec4 j holding the weights of output channel 4*so+j over input
// channels 4*si..4*si+3 (zero-padded).
std::vector<float> RepackOhwiWeights(const std::vector<float>& w, int32_t out_c, int32_t kh,
                                     int32_t kw, int32_t in_c);

// A per-channel vector (bias) as vec4 slices, zero-padded; an empty `v`
// gives zeros.
std::vector<float> RepackVector(const std::vector<float>& v, int32_t channels);

}  // namespace gld::gl
