// A GL environment and the programs compiled in it, shared by every segment
// made on it. The cache sits above the environment (gl/egl knows nothing of
// programs) and goes first: its programs are deleted while the context still
// exists.
#pragma once

#include <memory>

#include "gl/cache/program_cache.h"
#include "gl/egl/egl_environment.h"
#include "gldelegate/status.hpp"

namespace gld::gl {

class GlDevice {
 public:
  static StatusOr<std::unique_ptr<GlDevice>> Create(const EglOptions& options = {});
  ~GlDevice();
  GlDevice(const GlDevice&) = delete;
  GlDevice& operator=(const GlDevice&) = delete;

  GlEnvironment& env() { return *env_; }
  const GlInfo& info() const { return env_->info(); }
  ProgramCache& programs() { return programs_; }
  const ProgramCache& programs() const { return programs_; }

 private:
  explicit GlDevice(std::unique_ptr<GlEnvironment> env) : env_(std::move(env)) {}

  std::unique_ptr<GlEnvironment> env_;
  ProgramCache programs_;
};

}  // namespace gld::gl
