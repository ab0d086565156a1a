#include "gl/cache/program_cache.h"

#include <epoxy/gl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "util/logging.h"
#include "util/trace_recorder.h"

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

namespace {

struct Pending {
  const ProgramSource* source;
  GLuint shader;
  GLuint program;
  double submit_us;  // trace: when its compile was submitted
};

// Submits the compile and link of `s` without asking for a status, which
// would make the driver finish each one before the next starts.
Pending Submit(const ProgramSource& s, bool retrievable) {
  GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  const char* text = s.code.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLuint program = glCreateProgram();
  if (retrievable) glProgramParameteri(program, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
  glAttachShader(program, shader);
  glLinkProgram(program);
  return {&s, shader, program, 0};
}

// With GL_KHR_parallel_shader_compile: waits until the driver reports every
// link complete (the compiles run on its threads meanwhile).
void WaitForParallelLinks(const std::vector<Pending>& pending) {
  std::vector<bool> done(pending.size(), false);
  size_t remaining = pending.size();
  // A driver that never reports completion falls through to the blocking
  // status queries after this long.
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

// The linked program of `p` (its binary put into `file` when there is
// one), or the failure. With `detail`, a failure is compiled again through
// the single-program path, which yields the numbered source excerpt (one
// more compile, on a failure only); should that one build, it is returned.
// `*built` counts the programs built.
StatusOr<std::unique_ptr<GlProgram>> Finish(const Pending& p, BinaryCacheFile* file, bool detail, int* built) {
  GLint compiled = GL_FALSE, linked = GL_FALSE;
  glGetShaderiv(p.shader, GL_COMPILE_STATUS, &compiled);
  glGetProgramiv(p.program, GL_LINK_STATUS, &linked);
  if (compiled == GL_TRUE && linked == GL_TRUE) {
    glDetachShader(p.program, p.shader);
    glDeleteShader(p.shader);
    auto program = std::make_unique<GlProgram>(p.program);
    if (file != nullptr) {
      auto binary = GetProgramBinary(*program);
      if (binary.ok()) {
        binary->label = p.source->label;
        binary->workgroup = p.source->workgroup;
        file->Put(HashSource(p.source->code), std::move(*binary));
      } else {
        Log().debug("program cache: {}: {}", p.source->label, binary.status().message());
      }
    }
    ++*built;
    return program;
  }
  Status error = InternalError("building " + p.source->label + " failed");
  if (detail) {
    std::string log = compiled == GL_TRUE ? InfoLog(p.program, false) : InfoLog(p.shader, true);
    auto detailed = CompileComputeProgram(p.source->label, p.source->code);
    error = detailed.ok() ? InternalError((compiled == GL_TRUE ? "linking " : "compiling ") + p.source->label +
                                          " failed: " + log)
                          : detailed.status();
    glDeleteShader(p.shader);
    glDeleteProgram(p.program);
    if (detailed.ok()) return std::make_unique<GlProgram>(std::move(*detailed));
    return error;
  }
  glDeleteShader(p.shader);
  glDeleteProgram(p.program);
  return error;
}

}  // namespace

StatusOr<std::vector<const GlProgram*>> ProgramCache::GetOrCompile(const std::vector<ProgramSource>& sources,
                                                                   TraceRecorder* trace) {
  if (parallel_ < 0) parallel_ = epoxy_has_gl_extension("GL_KHR_parallel_shader_compile") ? 1 : 0;
  const int track = trace != nullptr ? trace->ThreadTrack() : 0;
  TraceScope whole(trace, "startup", "build " + std::to_string(sources.size()) + " programs");
  // Restores `s` from the file; false (counted as a miss) when it has none
  // the driver takes.
  auto restore = [&](const ProgramSource& s) {
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
        return true;
      }
      Log().warn("program cache: {} in '{}': {}; recompiling", s.label, file_->path(), restored.status().message());
      file_->Drop(hash);
    }
    ++file_misses_;
    return false;
  };
  std::vector<Pending> pending;
  std::unordered_map<std::string, size_t> pending_index;
  int shared = 0;
  // Phase 1: restore what the file has; submit every other compile and link.
  for (const ProgramSource& s : sources) {
    if (programs_.count(s.code) || pending_index.count(s.code)) {
      ++shared;
      continue;
    }
    if (file_ != nullptr) {
      const double restore_us = trace != nullptr ? trace->NowMicros() : 0;
      if (restore(s)) {
        if (trace != nullptr) {
          trace->Complete("restore " + s.label, "startup", restore_us, trace->NowMicros() - restore_us, track,
                          {TraceRecorder::Text("program", "cache hit: restored from " + file_->path())});
        }
        continue;
      }
    }
    const double submit_us = trace != nullptr ? trace->NowMicros() : 0;
    pending_index.emplace(s.code, pending.size());
    pending.push_back(Submit(s, file_ != nullptr));
    pending.back().submit_us = submit_us;
    if (trace != nullptr) {
      trace->Complete("compile " + s.label, "startup", submit_us, trace->NowMicros() - submit_us, track,
                      {TraceRecorder::Text("program", "compiled: glCompileShader and glLinkProgram submitted")});
    }
  }
  if (parallel_ == 1 && !pending.empty()) {
    TraceScope wait(trace, "startup", "wait for parallel compiles");
    WaitForParallelLinks(pending);
  }
  // Phase 2: collect results; keep going after a failure so that nothing
  // leaks, and report the first one.
  Status first_error;
  for (Pending& p : pending) {
    const double finish_us = trace != nullptr ? trace->NowMicros() : 0;
    auto program = Finish(p, file_.get(), first_error.ok(), &compiled_);
    if (trace != nullptr) {
      trace->Complete("finish " + p.source->label, "startup", finish_us, trace->NowMicros() - finish_us, track,
                      {TraceRecorder::Text("program", program.ok() ? "compiled: compile and link status read"
                                                                   : "failed: " + program.status().message()),
                       TraceRecorder::Number("since_submit_us", trace->NowMicros() - p.submit_us)});
    }
    if (program.ok()) {
      programs_.emplace(p.source->code, std::move(*program));
    } else if (first_error.ok()) {
      first_error = program.status();
    }
  }
  whole.AddArg(TraceRecorder::Number("compiled", static_cast<double>(pending.size())));
  whole.AddArg(TraceRecorder::Number("shared_with_an_earlier_dispatch", shared));
  if (!first_error.ok()) return first_error;
  GLD_RETURN_IF_ERROR(CheckGlError("building compute programs"));
  std::vector<const GlProgram*> out;
  out.reserve(sources.size());
  for (const ProgramSource& s : sources) out.push_back(programs_.at(s.code).get());
  return out;
}

}  // namespace gld::gl
