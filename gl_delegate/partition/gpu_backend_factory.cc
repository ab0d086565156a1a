// The GPU backend factory. This build has no GPU backend yet; the GL backend
// replaces CreateGpuBackend and GpuBackendOps below.
#include "partition/gpu_backend.h"

namespace gld {

StatusOr<std::unique_ptr<GpuBackend>> CreateGpuBackend(const Options& /*options*/) {
  return UnavailableError("GL backend not available in this build");
}

std::vector<OpType> GpuBackendOps() { return {}; }

}  // namespace gld
