// The GPU tensor layout, PHWC4.
//
// Every GPU tensor is viewed as 4-D BHWC and stored as vec4s: channels are cut
// into S = ceil(C / 4) slices of four, the last one zero-padded, and element
// (b, h, w, c) is lane c % 4 of vec4 number
//     ((b * S + c / 4) * H + h) * W + w.
// Shader invariant: padded lanes always hold 0 (every shader masks them on
// store), so readers may sum whole slices.
//
// Tensors of rank < 4 map to BHWC by a fixed rule, the TFLite GPU delegate's:
//     []            -> [1, 1, 1, 1]
//     [N]           -> [1, 1, 1, N]
//     [A, B]        -> [A, 1, 1, B]
//     [A, B, C]     -> [A, 1, B, C]
//     [A, B, C, D]  -> [A, B, C, D]
// The last dimension is always the channel dimension and the first (for rank
// >= 2) always the batch. Rank 5 and up has no GPU layout. Ops that name axes
// (concat, mean, slices, transpose, ...) translate them with BhwcAxis; the
// row-major order of elements is the same in both views, which is what
// RESHAPE relies on.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "graph/types.h"

namespace gld::gl {

struct Bhwc {
  int32_t b = 1, h = 1, w = 1, c = 1;

  int32_t slices() const { return (c + 3) / 4; }
  int64_t elements() const { return int64_t{b} * h * w * c; }
  // vec4s of the PHWC4 storage.
  int64_t vec4s() const { return int64_t{b} * slices() * h * w; }
  int32_t dim(int axis) const { return axis == 0 ? b : axis == 1 ? h : axis == 2 ? w : c; }
  void set_dim(int axis, int32_t v) { (axis == 0 ? b : axis == 1 ? h : axis == 2 ? w : c) = v; }
  bool operator==(const Bhwc& o) const { return b == o.b && h == o.h && w == o.w && c == o.c; }
  bool operator!=(const Bhwc& o) const { return !(*this == o); }
  std::string ToString() const;
};

// The BHWC view of a shape; InvalidArgument for rank > 4 or a negative
// dimension.
StatusOr<Bhwc> ToBhwc(const Shape& shape);

// The BHWC axis (0 = B, 1 = H, 2 = W, 3 = C) that dimension `dim` (already
// normalised to [0, rank)) of a rank-`rank` tensor maps to.
int BhwcAxis(int rank, int dim);

// For every BHWC axis, the dimension of a rank-`rank` shape it comes from, or
// -1 for an axis the rule inserts (always of size 1).
std::array<int, 4> DimOfBhwcAxis(int rank);

// Bytes of one stored vec4: 16 (fp32) or 8 (fp16, packHalf2x16 pairs).
inline size_t Vec4Bytes(Precision p) { return p == Precision::kFp32 ? 16 : 8; }
inline size_t Phwc4Bytes(const Bhwc& s, Precision p) {
  return static_cast<size_t>(s.vec4s()) * Vec4Bytes(p);
}

// Host-side layout conversion, for constants uploaded at segment creation.
// `dst` must hold s.vec4s() * 4 floats; padded lanes are written as 0.
void BhwcToPhwc4(const float* src, const Bhwc& s, float* dst);
void Phwc4ToBhwc(const float* src, const Bhwc& s, float* dst);

// Packs vec4 floats into the storage of `precision`: fp32 copies, fp16 packs
// each vec4 into two uint32 (lanes 0,1 in the first, low half first), as
// GLSL's packHalf2x16 does. Returns the bytes to upload.
std::vector<uint8_t> PackVec4s(const std::vector<float>& vec4_floats, Precision precision);

}  // namespace gld::gl
