// Compiled compute programs of one GL environment, keyed by their full
// source text: nodes whose shaders differ only in uniforms (shapes, strides,
// paddings) share one program, which matters where every compile is costly
// (about 30 ms a program on llvmpipe).
//
// With a BinaryCacheFile attached (Options::cache_dir), a program missing
// here is first looked up there and restored with glProgramBinary; only what
// it lacks, or what the driver refuses, is compiled, and each compiled
// program's binary is put back into the file.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gl/cache/binary_cache.h"
#include "gl/egl/gl_objects.h"
#include "gldelegate/status.hpp"

namespace gld {
class TraceRecorder;
}  // namespace gld

namespace gld::gl {

struct ProgramSource {
  std::string label;  // for messages: "conv2d.comp for node 3 (CONV_2D)"
  std::string code;   // the complete GLSL text
  std::array<uint32_t, 3> workgroup = {0, 0, 0};  // its local size, stored with the binary
};

class ProgramCache {
 public:
  ProgramCache();
  ~ProgramCache();

  // The programs of `sources`, in order; those not cached yet are restored
  // from the attached file or compiled together, so that a driver with
  // GL_KHR_parallel_shader_compile builds them concurrently. The pointers
  // stay valid as long as the cache. Needs the environment's context current.
  // `trace` (Options::enable_trace), when set, gets an event per program
  // restored from the file or compiled.
  StatusOr<std::vector<const GlProgram*>> GetOrCompile(const std::vector<ProgramSource>& sources,
                                                       TraceRecorder* trace = nullptr);

  // The on-disk entry consulted and filled by GetOrCompile; null: none.
  void AttachFile(std::unique_ptr<BinaryCacheFile> file);
  BinaryCacheFile* file() const { return file_.get(); }

  size_t size() const { return programs_.size(); }
  int compiled() const { return compiled_; }  // programs built since creation
  // Programs restored from / compiled because of the attached file.
  int file_hits() const { return file_hits_; }
  int file_misses() const { return file_misses_; }
  void Clear() { programs_.clear(); }
  // Forgets every program without GL calls (the context is unreachable).
  void Abandon() {
    for (auto& p : programs_) p.second->Abandon();
    programs_.clear();
  }

 private:
  std::unordered_map<std::string, std::unique_ptr<GlProgram>> programs_;
  std::unique_ptr<BinaryCacheFile> file_;
  int compiled_ = 0;
  int file_hits_ = 0, file_misses_ = 0;
  int parallel_ = -1;  // GL_KHR_parallel_shader_compile; -1: not asked yet
};

// A program restored from `binary` with glProgramBinary; an error saying why
// when the driver refuses it or it does not link.
StatusOr<GlProgram> LoadProgramBinary(const CachedBinary& binary);

// The binary of a linked program (glGetProgramBinary).
StatusOr<CachedBinary> GetProgramBinary(const GlProgram& program);

}  // namespace gld::gl
