#include "gl/egl/gl_objects.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <utility>
#include <vector>

namespace gld::gl {

const char* GlErrorName(GLenum error) {
  switch (error) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
  }
}

namespace {

// The error `first` (already taken from the queue), draining the rest.
Status GlErrorStatus(GLenum first, const std::string& where) {
  // Drain the queue so that later checks report their own errors; bounded
  // because a lost context may report errors forever.
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  std::ostringstream s;
  s << where << ": GL error " << GlErrorName(first) << " (0x" << std::hex << first << ")";
  return InternalError(s.str());
}

}  // namespace

Status CheckGlError(const char* where) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return OkStatus();
  return GlErrorStatus(first, where);
}

Status CheckGlError(const char* action, const std::string& what) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return OkStatus();
  return GlErrorStatus(first, std::string(action) + " " + what);
}

// ---- GlBuffer ----

StatusOr<GlBuffer> GlBuffer::Create(size_t bytes, const void* data) {
  GlBuffer b;
  size_t alloc = std::max<size_t>(bytes, 4);
  if (alloc > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgumentError("GL buffer of " + std::to_string(bytes) + " bytes is too large");
  }
  glGenBuffers(1, &b.id_);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, b.id_);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(alloc),
               bytes == alloc ? data : nullptr, GL_DYNAMIC_COPY);
  if (data != nullptr && bytes != alloc && bytes > 0) {
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), data);
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  b.bytes_ = bytes;
  GLD_RETURN_IF_ERROR(CheckGlError(("cannot allocate " + std::to_string(bytes) + " bytes for a GL buffer").c_str()));
  return b;
}

GlBuffer& GlBuffer::operator=(GlBuffer&& o) noexcept {
  if (this != &o) {
    Reset();
    std::swap(id_, o.id_);
    std::swap(bytes_, o.bytes_);
  }
  return *this;
}

void GlBuffer::Reset() {
  if (id_ != 0) glDeleteBuffers(1, &id_);
  id_ = 0;
  bytes_ = 0;
}

Status GlBuffer::Write(size_t offset, const void* data, size_t bytes) {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    return InvalidArgumentError("GL buffer write of " + std::to_string(bytes) + " bytes at " +
                                std::to_string(offset) + " exceeds its " +
                                std::to_string(bytes_) + " bytes");
  }
  return WriteBufferObject(id_, offset, data, bytes);
}

Status GlBuffer::Read(size_t offset, void* data, size_t bytes) const {
  if (offset > bytes_ || bytes > bytes_ - offset) {
    return InvalidArgumentError("GL buffer read of " + std::to_string(bytes) + " bytes at " +
                                std::to_string(offset) + " exceeds its " +
                                std::to_string(bytes_) + " bytes");
  }
  return ReadBufferObject(id_, offset, data, bytes);
}

Status WriteBufferObject(GLuint id, size_t offset, const void* data, size_t bytes) {
  if (bytes == 0) return OkStatus();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  glBufferSubData(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset),
                  static_cast<GLsizeiptr>(bytes), data);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  return CheckGlError("writing a GL buffer");
}

Status ReadBufferObject(GLuint id, size_t offset, void* data, size_t bytes) {
  if (bytes == 0) return OkStatus();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  const void* p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, static_cast<GLintptr>(offset),
                                   static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
  if (p == nullptr) {
    Status s = CheckGlError("mapping a GL buffer for reading");
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    return s.ok() ? InternalError("mapping a GL buffer for reading failed") : s;
  }
  std::memcpy(data, p, bytes);
  GLboolean intact = glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  if (intact == GL_FALSE) {
    return DataLossError("GL buffer contents were lost while mapped (context lost?)");
  }
  return CheckGlError("reading a GL buffer");
}

namespace {

// OK when `is` (glIsBuffer / glIsTexture of `id`) says `id` names a `kind`;
// then clears errors left by earlier calls, so that the next glGetError
// speaks of the queries that follow, and returns the binding of `binding`
// (the caller puts it back).
StatusOr<GLint> NamedObject(GLuint id, GLboolean is, const char* kind, GLenum binding) {
  if (id == 0 || is == GL_FALSE) {
    return InvalidArgumentError("GL name " + std::to_string(id) + " is not " + kind +
                                " in the library's context (is the context shared with the one that made it?)");
  }
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; ++i) {
  }
  GLint previous = 0;
  glGetIntegerv(binding, &previous);
  return previous;
}

}  // namespace

StatusOr<int64_t> BufferObjectBytes(GLuint id) {
  GLD_ASSIGN_OR_RETURN(GLint previous, NamedObject(id, id == 0 ? GL_FALSE : glIsBuffer(id), "a buffer object",
                                                   GL_SHADER_STORAGE_BUFFER_BINDING));
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, id);
  GLint64 bytes = 0;
  glGetBufferParameteri64v(GL_SHADER_STORAGE_BUFFER, GL_BUFFER_SIZE, &bytes);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(previous));
  GLD_RETURN_IF_ERROR(CheckGlError("querying the size of GL buffer", std::to_string(id)));
  return static_cast<int64_t>(bytes);
}

StatusOr<Texture2DFacts> Texture2DObjectFacts(GLuint id) {
  GLD_ASSIGN_OR_RETURN(GLint previous, NamedObject(id, id == 0 ? GL_FALSE : glIsTexture(id), "a texture",
                                                   GL_TEXTURE_BINDING_2D));
  glBindTexture(GL_TEXTURE_2D, id);
  if (glGetError() != GL_NO_ERROR) {
    glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
    return InvalidArgumentError("GL texture " + std::to_string(id) + " is not a 2D texture (GL_TEXTURE_2D)");
  }
  Texture2DFacts facts;
  GLint format = 0;
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &facts.width);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &facts.height);
  glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
  facts.internal_format = static_cast<GLenum>(format);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous));
  GLD_RETURN_IF_ERROR(CheckGlError("querying GL texture", std::to_string(id)));
  return facts;
}

std::string TextureFormatName(GLenum internal_format) {
  switch (internal_format) {
    case GL_RGBA8: return "GL_RGBA8";
    case GL_RGBA16F: return "GL_RGBA16F";
    case GL_RGBA32F: return "GL_RGBA32F";
    case GL_RGB8: return "GL_RGB8";
    case GL_R8: return "GL_R8";
    case GL_RGBA8UI: return "GL_RGBA8UI";
    case GL_SRGB8_ALPHA8: return "GL_SRGB8_ALPHA8";
    default: break;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04X", internal_format);
  return hex;
}

void GlBuffer::BindStorage(GLuint binding) const {
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, binding, id_);
}

// ---- GlProgram ----

GlProgram& GlProgram::operator=(GlProgram&& o) noexcept {
  if (this != &o) {
    Reset();
    std::swap(id_, o.id_);
    std::swap(locations_, o.locations_);
  }
  return *this;
}

void GlProgram::Reset() {
  if (id_ != 0) glDeleteProgram(id_);
  id_ = 0;
  locations_.clear();
}

GLint GlProgram::UniformLocation(const std::string& name) const {
  auto it = locations_.find(name);
  if (it != locations_.end()) return it->second;
  GLint loc = glGetUniformLocation(id_, name.c_str());
  locations_.emplace(name, loc);
  return loc;
}

namespace {

std::string ShaderInfoLog(GLuint shader) {
  GLint len = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
  if (len <= 1) return {};
  std::string log(static_cast<size_t>(len), '\0');
  glGetShaderInfoLog(shader, len, nullptr, log.data());
  log.resize(std::strlen(log.c_str()));
  return log;
}

std::string ProgramInfoLog(GLuint program) {
  GLint len = 0;
  glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
  if (len <= 1) return {};
  std::string log(static_cast<size_t>(len), '\0');
  glGetProgramInfoLog(program, len, nullptr, log.data());
  log.resize(std::strlen(log.c_str()));
  return log;
}

// Source lines near the first "0:<line>" the log mentions (Mesa's format;
// the generator emits no #line, so lines count from the top of the program),
// numbered, so that an error message is useful without the source at hand.
std::string SourceExcerpt(const std::string& log, const std::string& source) {
  size_t p = log.find("0:");
  int line = 0;
  if (p != std::string::npos) line = std::atoi(log.c_str() + p + 2);
  std::vector<std::string> lines;
  std::istringstream in(source);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  int first = 1, last = static_cast<int>(lines.size());
  if (line > 0) {
    first = std::max(1, line - 3);
    last = std::min(last, line + 3);
  } else {
    last = std::min(last, 12);
  }
  std::ostringstream out;
  for (int i = first; i <= last; ++i) out << "\n  " << i << ": " << lines[static_cast<size_t>(i - 1)];
  return out.str();
}

}  // namespace

StatusOr<GlProgram> CompileComputeProgram(const std::string& label, const std::string& source) {
  GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  if (shader == 0) return InternalError(label + ": glCreateShader(GL_COMPUTE_SHADER) failed");
  const char* src = source.c_str();
  glShaderSource(shader, 1, &src, nullptr);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    std::string log = ShaderInfoLog(shader);
    glDeleteShader(shader);
    return InternalError("compiling " + label + " failed: " + log + SourceExcerpt(log, source));
  }
  GlProgram program(glCreateProgram());
  glAttachShader(program.id(), shader);
  glLinkProgram(program.id());
  glDetachShader(program.id(), shader);
  glDeleteShader(shader);
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (ok != GL_TRUE) {
    return InternalError("linking " + label + " failed: " + ProgramInfoLog(program.id()));
  }
  GLD_RETURN_IF_ERROR(CheckGlError(("building " + label).c_str()));
  return program;
}

// ---- GlTimerQuery ----

StatusOr<GlTimerQuery> GlTimerQuery::Create() {
  if (!epoxy_has_gl_extension("GL_EXT_disjoint_timer_query")) {
    return UnavailableError("GL_EXT_disjoint_timer_query is not supported by this GL driver");
  }
  GlTimerQuery q;
  glGenQueriesEXT(1, &q.id_);
  GLD_RETURN_IF_ERROR(CheckGlError("creating a timer query"));
  return q;
}

GlTimerQuery& GlTimerQuery::operator=(GlTimerQuery&& o) noexcept {
  if (this != &o) {
    Reset();
    std::swap(id_, o.id_);
  }
  return *this;
}

void GlTimerQuery::Reset() {
  if (id_ != 0) glDeleteQueriesEXT(1, &id_);
  id_ = 0;
}

void GlTimerQuery::Begin() {
  GLint disjoint = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);  // clears the flag
  glBeginQueryEXT(GL_TIME_ELAPSED_EXT, id_);
}

void GlTimerQuery::End() { glEndQueryEXT(GL_TIME_ELAPSED_EXT); }

StatusOr<uint64_t> GlTimerQuery::ElapsedNs() {
  GLuint64 ns = 0;
  glGetQueryObjectui64vEXT(id_, GL_QUERY_RESULT_EXT, &ns);  // waits
  GLint disjoint = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &disjoint);
  GLD_RETURN_IF_ERROR(CheckGlError("reading a timer query"));
  if (disjoint) return DataLossError("GPU timer disjoint event: the measurement is void");
  return static_cast<uint64_t>(ns);
}

}  // namespace gld::gl
