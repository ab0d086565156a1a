#include "gl/gl_device.h"

#include "util/logging.h"

namespace gld::gl {

StatusOr<std::unique_ptr<GlDevice>> GlDevice::Create(const EglOptions& options) {
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<GlEnvironment> env, GlEnvironment::Create(options));
  return std::unique_ptr<GlDevice>(new GlDevice(std::move(env)));
}

GlDevice::~GlDevice() {
  GlEnvironment::ScopedCurrent current(*env_);
  if (current.status().ok()) {
    programs_.Clear();
  } else {
    // The GL names leak, with the context they belong to.
    programs_.Abandon();
    Log().warn("GL: cannot make the context current to free programs: {}", current.status().message());
  }
}

}  // namespace gld::gl
