// Options of MediaPipe's flexbuffer-configured custom ops
// (TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix):
// the operator's custom_options bytes and op code version -> typed
// attributes. The bytes are verified before they are read. Messages name the
// op, not the node; the caller adds that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gldelegate/status.hpp"
#include "graph/attributes.h"

namespace gld::tflite_ops {

Status ParseTransformTensorBilinearOptions(const uint8_t* data, size_t size, int version,
                                           TransformTensorBilinearAttributes* out);
Status ParseTransformLandmarksOptions(const uint8_t* data, size_t size, int version,
                                      TransformLandmarksAttributes* out);
Status ParseLandmarks2TransformMatrixOptions(const uint8_t* data, size_t size, int version,
                                             Landmarks2TransformMatrixAttributes* out);

}  // namespace gld::tflite_ops
