// Compiled compute programs of one GL environment, keyed by their full
// source text: nodes whose shaders differ only in uniforms (shapes, strides,
// paddings) share one program, which matters where every compile is costly
// (about 30 ms a program on llvmpipe).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gl/gl_objects.h"
#include "gldelegate/status.hpp"

namespace gld::gl {

struct ProgramSource {
  std::string label;  // for messages: "conv2d.comp for node 3 (CONV_2D)"
  std::string code;   // the complete GLSL text
};

class ProgramCache {
 public:
  // The programs of `sources`, in order; those not cached yet are compiled
  // together, so that a driver with GL_KHR_parallel_shader_compile builds
  // them concurrently. The pointers stay valid as long as the cache.
  // Needs the environment's context current.
  StatusOr<std::vector<const GlProgram*>> GetOrCompile(const std::vector<ProgramSource>& sources);

  size_t size() const { return programs_.size(); }
  int compiled() const { return compiled_; }  // programs built since creation
  void Clear() { programs_.clear(); }
  // Forgets every program without GL calls (the context is unreachable).
  void Abandon() {
    for (auto& p : programs_) p.second->Abandon();
    programs_.clear();
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<GlProgram>> programs_;
  int compiled_ = 0;
};

}  // namespace gld::gl
