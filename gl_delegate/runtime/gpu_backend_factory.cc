// The GPU backend factory: the GL backend (runtime/gl_backend.h).
#include "runtime/gpu_backend.h"

#include <algorithm>
#include <cctype>

#include "runtime/gl_backend.h"
#include "gl/codegen/support.h"

namespace gld {

StatusOr<std::unique_ptr<GpuBackend>> CreateGpuBackend(const Options& options) {
  return gl::CreateGlBackend(options);
}

bool IsSoftwareRendererName(const std::string& gl_renderer) {
  std::string lower = gl_renderer;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* name : {"llvmpipe", "softpipe", "swiftshader"}) {
    if (lower.find(name) != std::string::npos) return true;
  }
  return false;
}

std::vector<OpType> GpuBackend::SupportedOps() const { return GpuBackendOps(); }

std::vector<OpType> GpuBackendOps() { return gl::GlSupportedOps(); }

}  // namespace gld
