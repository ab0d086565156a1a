// The GPU backend factory: the GL backend (runtime/gl_backend.h).
#include "runtime/gpu_backend.h"

#include "runtime/gl_backend.h"
#include "gl/codegen/support.h"

namespace gld {

StatusOr<std::unique_ptr<GpuBackend>> CreateGpuBackend(const Options& options) {
  return gl::CreateGlBackend(options);
}

std::vector<OpType> GpuBackend::SupportedOps() const { return GpuBackendOps(); }

std::vector<OpType> GpuBackendOps() { return gl::GlSupportedOps(); }

}  // namespace gld
