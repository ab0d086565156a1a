#include "gl/program_cache.h"

#include <cstring>
#include <utility>

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

}  // namespace

StatusOr<std::vector<const GlProgram*>> ProgramCache::GetOrCompile(
    const std::vector<ProgramSource>& sources) {
  struct Pending {
    const ProgramSource* source;
    GLuint shader;
    GLuint program;
  };
  std::vector<Pending> pending;
  std::unordered_map<std::string, size_t> pending_index;
  // Phase 1: submit every compile and link without asking for a status, which
  // would make the driver finish each one before the next starts.
  for (const ProgramSource& s : sources) {
    if (programs_.count(s.code) || pending_index.count(s.code)) continue;
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    const char* text = s.code.c_str();
    glShaderSource(shader, 1, &text, nullptr);
    glCompileShader(shader);
    GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glLinkProgram(program);
    pending_index.emplace(s.code, pending.size());
    pending.push_back({&s, shader, program});
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
      programs_.emplace(p.source->code, std::make_unique<GlProgram>(p.program));
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
