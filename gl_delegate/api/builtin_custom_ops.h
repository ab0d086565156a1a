// The library's own custom ops, registered through the door an app's use
// (gldelegate/custom_op.hpp): MediaPipe's TransformTensorBilinear,
// TransformLandmarks and Landmarks2TransformMatrix. Their callbacks parse the
// flexbuffer options into the op's typed attributes (model/mediapipe_options)
// and run the op table's shape rule and CPU kernel on a one-node graph.
#pragma once

#include <memory>
#include <vector>

#include "gldelegate/custom_op.hpp"

namespace gld {

// Every version of each op.
const std::vector<std::shared_ptr<const CustomOp>>& BuiltinCustomOps();

// `options` with the library's custom ops after the app's, so that an app's
// registration of a name wins (FindCustomOp takes the first match).
Options WithLibraryCustomOps(const Options& options);

}  // namespace gld
