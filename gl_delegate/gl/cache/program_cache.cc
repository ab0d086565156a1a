#include "gl/cache/program_cache.h"

#include <epoxy/gl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "util/logging.h"

namespace gld::gl {

namespace {

std::string InfoLog(GLuint object, bool is_shader) {
  GLint len = 0;
  if (is_shader) glGetShaderiv(object, GL_INFO_LOG_LENGTH, &len);
  else glGetProgramiv(object, GL_INFO_LOG_LENGTH, &len);
  if (len <= 1) return {};
  std::string log(static_cast<size_t>(len), '\0');
  if (is_shader) glGetShaderInfoLog(object, len, nullptr, log.data());
  else glGetProgramInfoLog(object, len, nullptr, log.data());
  log.resize(std::strlen(log.c_str()));
  return log;
}

// Binaries larger than this are not stored (no compute program comes close).
constexpr GLint kMaxBinaryBytes = 64 << 20;

}  // namespace

StatusOr<GlProgram> LoadProgramBinary(const CachedBinary& binary) {
  if (binary.bytes.empty() || binary.bytes.size() > static_cast<size_t>(kMaxBinaryBytes)) {
    return DataLossError("binary of " + std::to_string(binary.bytes.size()) + " bytes");
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  GlProgram program(glCreateProgram());
  glProgramBinary(program.id(), binary.format, binary.bytes.data(), static_cast<GLsizei>(binary.bytes.size()));
  const GLenum error = glGetError();
  GLint linked = GL_FALSE;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &linked);
  if (error != GL_NO_ERROR || linked != GL_TRUE) {
    std::string why = error != GL_NO_ERROR ? "glProgramBinary raised GL error " + std::to_string(error)
                                           : "does not link: " + InfoLog(program.id(), false);
    char format[16];
    std::snprintf(format, sizeof(format), "0x%x", binary.format);
    return FailedPreconditionError(std::string("binary (format ") + format + ", " +
                                   std::to_string(binary.bytes.size()) + " bytes) refused: " + why);
  }
  return program;
}

StatusOr<CachedBinary> GetProgramBinary(const GlProgram& program) {
  GLint length = 0;
  glGetProgramiv(program.id(), GL_PROGRAM_BINARY_LENGTH, &length);
  if (length <= 0 || length > kMaxBinaryBytes) {
    return UnavailableError("driver reports a program binary of " + std::to_string(length) + " bytes");
  }
  CachedBinary b;
  b.bytes.resize(static_cast<size_t>(length));
  GLsizei written = 0;
  GLenum format = 0;
  glGetProgramBinary(program.id(), length, &written, &format, b.bytes.data());
  if (written <= 0 || glGetError() != GL_NO_ERROR) return UnavailableError("glGetProgramBinary failed");
  b.bytes.resize(static_cast<size_t>(written));
  b.format = format;
  return b;
}

ProgramCache::ProgramCache() = default;
ProgramCache::~ProgramCache() = default;

void ProgramCache::AttachFile(std::unique_ptr<BinaryCacheFile> file) { file_ = std::move(file); }

StatusOr<std::vector<const GlProgram*>> ProgramCache::GetOrCompile(const std::vector<ProgramSource>& sources) {
  if (parallel_ < 0) parallel_ = epoxy_has_gl_extension("GL_KHR_parallel_shader_compile") ? 1 : 0;
  struct Pending {
    const ProgramSource* source;
    GLuint shader;
    GLuint program;
  };
  std::vector<Pending> pending;
  std::unordered_map<std::string, size_t> pending_index;
  // Phase 1: restore what the file has; submit every other compile and link
  // without asking for a status, which would make the driver finish each one
  // before the next starts.
  for (const ProgramSource& s : sources) {
    if (programs_.count(s.code) || pending_index.count(s.code)) continue;
    if (file_ != nullptr) {
      const SourceHash hash = HashSource(s.code);
      const CachedBinary* cached = file_->Find(hash);
      // The record's fingerprint binds its workgroup to its binary; this
      // binds it to the program asked for.
      if (cached != nullptr && cached->workgroup != s.workgroup) {
        Log().warn("program cache: {} in '{}' has another workgroup; recompiling", s.label, file_->path());
        file_->Drop(hash);
        cached = nullptr;
      }
      if (cached != nullptr) {
        auto restored = LoadProgramBinary(*cached);
        if (restored.ok()) {
          programs_.emplace(s.code, std::make_unique<GlProgram>(std::move(*restored)));
          ++file_hits_;
          continue;
        }
        Log().warn("program cache: {} in '{}': {}; recompiling", s.label, file_->path(), restored.status().message());
        file_->Drop(hash);
      }
      ++file_misses_;
    }
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    const char* text = s.code.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLuint program = glCreateProgram();
    if (file_ != nullptr) glProgramParameteri(program, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
    glAttachShader(program, shader);
    glLinkProgram(program);
    pending_index.emplace(s.code, pending.size());
    pending.push_back({&s, shader, program});
  }
  // With parallel compilation, wait until the driver reports every link
  // complete (the compiles run on its threads meanwhile).
  if (parallel_ == 1 && !pending.empty()) {
    std::vector<bool> done(pending.size(), false);
    size_t remaining = pending.size();
    // A driver that never reports completion falls through to the blocking
    // status queries below after this long.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (remaining > 0 && std::chrono::steady_clock::now() < give_up) {
      size_t before = remaining;
      for (size_t i = 0; i < pending.size(); ++i) {
        if (done[i]) continue;
        GLint complete = GL_FALSE;
        glGetProgramiv(pending[i].program, GL_COMPLETION_STATUS_KHR, &complete);
        if (complete == GL_TRUE) {
          done[i] = true;
          --remaining;
        }
      }
      if (remaining == before) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  // Phase 2: collect results; keep going after a failure so that nothing
  // leaks, and report the first one.
  Status first_error;
  for (Pending& p : pending) {
    GLint compiled = GL_FALSE, linked = GL_FALSE;
    glGetShaderiv(p.shader, GL_COMPILE_STATUS, &compiled);
    glGetProgramiv(p.program, GL_LINK_STATUS, &linked);
    if (compiled == GL_TRUE && linked == GL_TRUE) {
      glDetachShader(p.program, p.shader);
      glDeleteShader(p.shader);
      auto program = std::make_unique<GlProgram>(p.program);
      if (file_ != nullptr) {
        auto binary = GetProgramBinary(*program);
        if (binary.ok()) {
          binary->label = p.source->label;
          binary->workgroup = p.source->workgroup;
          file_->Put(HashSource(p.source->code), std::move(*binary));
        } else {
          Log().debug("program cache: {}: {}", p.source->label, binary.status().message());
        }
      }
      programs_.emplace(p.source->code, std::move(program));
      ++compiled_;
      continue;
    }
    if (first_error.ok()) {
      std::string log = compiled == GL_TRUE ? InfoLog(p.program, false) : InfoLog(p.shader, true);
      // Recompiling through the single-program path yields the numbered
      // source excerpt; it costs one more compile, on a failure only.
      auto detailed = CompileComputeProgram(p.source->label, p.source->code);
      first_error = detailed.ok()
                        ? InternalError((compiled == GL_TRUE ? "linking " : "compiling ") +
                                        p.source->label + " failed: " + log)
                        : detailed.status();
      if (detailed.ok()) {
        programs_.emplace(p.source->code, std::make_unique<GlProgram>(std::move(*detailed)));
        first_error = OkStatus();
      }
    }
    glDeleteShader(p.shader);
    glDeleteProgram(p.program);
  }
  if (!first_error.ok()) return first_error;
  GLD_RETURN_IF_ERROR(CheckGlError("building compute programs"));
  std::vector<const GlProgram*> out;
  out.reserve(sources.size());
  for (const ProgramSource& s : sources) out.push_back(programs_.at(s.code).get());
  return out;
}

}  // namespace gld::gl
