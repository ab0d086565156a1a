// The GL backend behind the runtime's GpuBackend seam (runtime/
// gpu_backend.h): one GlDevice (EGL environment and program cache), the
// support query of gl/codegen/support.h, and per GPU segment a SegmentPlan
// made into a GlSegment, hosted as a runtime Step.
#pragma once

#include <memory>

#include "gldelegate/types.hpp"
#include "gldelegate/status.hpp"
#include "runtime/gpu_backend.h"

namespace gld::gl {

// Unavailable (saying why: which EGL platform failed how) when no GLES 3.1
// context can be made. Uses options.precision and options.egl_device.
StatusOr<std::unique_ptr<GpuBackend>> CreateGlBackend(const Options& options);

}  // namespace gld::gl
