// Options of MediaPipe's flexbuffer-configured custom ops
// (TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix),
// parsed from CustomAttributes (raw custom_options + op version). The bytes
// are verified before they are read. Shared by the kernels and shape
// inference.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "gldelegate/status.hpp"
#include "graph/attributes.h"

namespace gld::cpu {

struct TransformTensorBilinearOptions {
  int32_t output_height = 0, output_width = 0;
  bool align_corners = false;  // version 2
};
Status ParseTransformTensorBilinearOptions(const CustomAttributes& attrs, TransformTensorBilinearOptions* out);

struct TransformLandmarksOptions {
  int32_t version = 1;
  int32_t dimensions = 0;  // version 1: from options; version 2: last input dim
  float scale = 1.f;
};
Status ParseTransformLandmarksOptions(const CustomAttributes& attrs, TransformLandmarksOptions* out);

struct Landmarks2TransformMatrixOptions {
  int32_t version = 1;
  // version 1
  int32_t input_h = 0, input_w = 0, output_h = 0, output_w = 0;
  int32_t dimensions = 0, landmarks_range = 0;
  float bbox_size_multiplier = 0.f;
  // version 2
  float target_rotation_radians = 0.f;
  int32_t output_height = 0, output_width = 0;
  float scale_x = 0.f, scale_y = 0.f;
  // both
  int32_t left_rotation_idx = 0, right_rotation_idx = 0;
  std::vector<std::pair<int32_t, int32_t>> subset;  // pairs of landmark indices
};
Status ParseLandmarks2TransformMatrixOptions(const CustomAttributes& attrs, Landmarks2TransformMatrixOptions* out);

}  // namespace gld::cpu
