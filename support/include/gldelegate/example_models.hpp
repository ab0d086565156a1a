// Small models the tools and tests share, built with ModelBuilder.
#pragma once

#include <flatbuffers/flexbuffers.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "gldelegate/status.hpp"

namespace gld {

// Custom options as MediaPipe writes them: a flexbuffer map that `fill`
// fills (fbb.Int("output_height", 8), ...).
std::vector<uint8_t> FlexbufferMap(const std::function<void(flexbuffers::Builder&)>& fill);

// MediaPipe's three transform ops between convolutions (custom options as
// MediaPipe writes them, flexbuffer maps), on an image x [1, S, S, 3]
// (S = `image`, at least 12):
//
//   x - CONV 3x3 - Landmarks2TransformMatrix (v2) - M [1, 4, 4]
//   x - CONV 3x3 - TransformTensorBilinear (v2, M, to C x C) - CONV 3x3 - crop_out [1, C, C, 4]
//   x - CONV 1x1 - TransformLandmarks (v1, 3-D points, M) - CONV 1x1 - landmarks_out [1, S, S, 6]
//
// (C = `crop`.) The landmarks are the first convolution's 2 S^2 (x, y, z)
// triples, around the image centre; weights are deterministic.
StatusOr<std::vector<uint8_t>> MediaPipeTransformModel(int image, int crop);

}  // namespace gld
