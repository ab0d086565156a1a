// RAII wrappers of the GL objects this backend uses: shader storage buffers,
// compute programs and timer queries. Every call (constructors, destructors,
// methods) needs the owning environment's context current on the calling
// thread (GlEnvironment::ScopedCurrent).
#pragma once

#include <epoxy/gl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "gldelegate/status.hpp"

namespace gld::gl {

// Returns Internal("<where>: GL error GL_INVALID_VALUE") when glGetError
// reports one (and drains the error queue); OK otherwise.
Status CheckGlError(const char* where);
// The same, naming "<action> <what>" (made only on an error).
Status CheckGlError(const char* action, const std::string& what);
const char* GlErrorName(GLenum error);

// A shader storage buffer of a fixed size in bytes.
class GlBuffer {
 public:
  GlBuffer() = default;
  // data may be null (contents undefined). Zero bytes allocate one word, so
  // that an empty tensor still has a bindable buffer.
  static StatusOr<GlBuffer> Create(size_t bytes, const void* data = nullptr);
  ~GlBuffer() { Reset(); }
  GlBuffer(GlBuffer&& o) noexcept { *this = std::move(o); }
  GlBuffer& operator=(GlBuffer&& o) noexcept;
  GlBuffer(const GlBuffer&) = delete;
  GlBuffer& operator=(const GlBuffer&) = delete;

  GLuint id() const { return id_; }
  size_t bytes() const { return bytes_; }
  bool valid() const { return id_ != 0; }

  Status Write(size_t offset, const void* data, size_t bytes);
  // Maps the range for reading (GLES has no glGetBufferSubData). Callers put
  // a glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT) between the shader that
  // wrote it and this call.
  Status Read(size_t offset, void* data, size_t bytes) const;
  void BindStorage(GLuint binding) const;
  void Reset();
  // Forgets the name without a GL call (its context is unreachable).
  void Abandon() { id_ = 0; bytes_ = 0; }

 private:
  GLuint id_ = 0;
  size_t bytes_ = 0;
};

// Buffer and texture objects of the app's (zero-copy I/O), named in the
// current context: the app's own, or one sharing objects with it.
//
// Writes / reads `bytes` at `offset` of buffer object `id` (what
// GlBuffer::Write / Read do for the library's own buffers).
Status WriteBufferObject(GLuint id, size_t offset, const void* data, size_t bytes);
Status ReadBufferObject(GLuint id, size_t offset, void* data, size_t bytes);
// The size in bytes of buffer object `id`; InvalidArgument when `id` names
// no buffer object in the current context.
StatusOr<int64_t> BufferObjectBytes(GLuint id);
// Level 0 of 2D texture `id`; InvalidArgument when `id` names no texture in
// the current context or one of another target.
struct Texture2DFacts {
  int width = 0, height = 0;
  GLenum internal_format = 0;
};
StatusOr<Texture2DFacts> Texture2DObjectFacts(GLuint id);
// "GL_RGBA8", or the number in hex for others.
std::string TextureFormatName(GLenum internal_format);

// A linked compute program. Uniform locations are looked up once and cached.
class GlProgram {
 public:
  GlProgram() = default;
  explicit GlProgram(GLuint id) : id_(id) {}
  ~GlProgram() { Reset(); }
  GlProgram(GlProgram&& o) noexcept { *this = std::move(o); }
  GlProgram& operator=(GlProgram&& o) noexcept;
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;

  GLuint id() const { return id_; }
  // -1 when the program has no such active uniform (unused uniforms are
  // removed by the compiler, which is legitimate).
  GLint UniformLocation(const std::string& name) const;
  // Who set the uniform values the program holds now: a token of the
  // dispatch that last set them (0: none). Uniforms persist in the program,
  // so a dispatch sets them again only when another one set its own since.
  uint64_t uniform_owner() const { return uniform_owner_; }
  void set_uniform_owner(uint64_t token) const { uniform_owner_ = token; }
  void Reset();
  void Abandon() { id_ = 0; locations_.clear(); }

 private:
  GLuint id_ = 0;
  mutable std::unordered_map<std::string, GLint> locations_;
  mutable uint64_t uniform_owner_ = 0;
};

// Compiles and links one compute shader; the error carries the label, the
// compiler's info log and the numbered source lines around the error.
StatusOr<GlProgram> CompileComputeProgram(const std::string& label, const std::string& source);

// GL_TIME_ELAPSED_EXT query (GL_EXT_disjoint_timer_query). Only one may be
// active at a time, as GL requires.
class GlTimerQuery {
 public:
  static StatusOr<GlTimerQuery> Create();
  GlTimerQuery() = default;
  ~GlTimerQuery() { Reset(); }
  GlTimerQuery(GlTimerQuery&& o) noexcept { *this = std::move(o); }
  GlTimerQuery& operator=(GlTimerQuery&& o) noexcept;
  GlTimerQuery(const GlTimerQuery&) = delete;
  GlTimerQuery& operator=(const GlTimerQuery&) = delete;

  void Begin();
  void End();
  // Waits for the result. DataLoss when the GPU reported a disjoint event
  // (the measurement is meaningless).
  StatusOr<uint64_t> ElapsedNs();
  bool valid() const { return id_ != 0; }
  void Reset();
  void Abandon() { id_ = 0; }

 private:
  GLuint id_ = 0;
};

}  // namespace gld::gl
