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

namespace gld {

namespace {
Status NoZeroCopy(const std::string& backend) {
  return UnimplementedError("the " + backend + " backend cannot use an app's GL objects");
}
}  // namespace

Status GpuBackend::CheckBuffer(uint32_t, uint64_t, const std::string&) { return NoZeroCopy(name()); }
Status GpuBackend::CheckTexture(uint32_t, int, int, const std::string&) { return NoZeroCopy(name()); }
Status GpuBackend::ReadBuffer(uint32_t, void*, size_t) { return NoZeroCopy(name()); }
Status GpuBackend::WriteBuffer(uint32_t, const void*, size_t) { return NoZeroCopy(name()); }
StatusOr<void*> GpuBackend::InsertFence() { return NoZeroCopy(name()); }
Status GpuBackend::CheckSharesAppObjects(const std::string&) const { return NoZeroCopy(name()); }

}  // namespace gld
