// Options of MediaPipe's flexbuffer-configured custom ops
// (TransformTensorBilinear, TransformLandmarks, Landmarks2TransformMatrix):
// the operator's custom_options bytes and op code version -> typed
// attributes. The bytes are verified before they are read. Messages name the
// op, not the node; the caller adds that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gldelegate/status.hpp"
#include "graph/attributes.h"

namespace gld::tflite_ops {

Status ParseTransformTensorBilinearOptions(const uint8_t* data, size_t size, int version,
                                           TransformTensorBilinearAttributes* out);
Status ParseTransformLandmarksOptions(const uint8_t* data, size_t size, int version,
                                      TransformLandmarksAttributes* out);
Status ParseLandmarks2TransformMatrixOptions(const uint8_t* data, size_t size, int version,
                                             Landmarks2TransformMatrixAttributes* out);

// The op code version a MediaPipe op's options were written for, where the
// options tell it apart, else `version`. LiteRT hands a delegate a stand-in
// registration of version 1 for a custom op it has no kernel for, whatever the
// model's op code says; versions 1 and 2 of these ops have different keys:
//   Landmarks2TransformMatrix  1: input_hw ...        2: output_height ...
//   TransformTensorBilinear    1: output_size ...     2: output_height ...
//   TransformLandmarks         1: dimensions, scale   2: no options
// `name` is the custom op's name; any other name keeps `version`.
int MediaPipeOptionsVersion(const std::string& name, const uint8_t* data, size_t size, int version);

}  // namespace gld::tflite_ops
