// An app's OpenGL ES 3.1 context for tests of zero-copy I/O: made on the
// surfaceless platform and current on this thread while it lives, with the
// buffers it made (deleted with it).
#pragma once

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace gld::testing {

class AppContext {
 public:
  AppContext() {
    display_ = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display_ == EGL_NO_DISPLAY || !eglInitialize(display_, nullptr, nullptr)) return;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
    context_ = eglCreateContext(display_, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    ready_ = context_ != EGL_NO_CONTEXT && eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_);
  }
  ~AppContext() {
    if (context_ == EGL_NO_CONTEXT) return;
    if (!buffers_.empty()) glDeleteBuffers(static_cast<GLsizei>(buffers_.size()), buffers_.data());
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
  }
  bool ready() const { return ready_; }
  EGLDisplay display() const { return display_; }
  EGLContext context() const { return context_; }
  // A buffer of `bytes` holding `data` (zeros when null).
  GLuint Buffer(size_t bytes, const void* data = nullptr) {
    const std::vector<uint8_t> zeros(data == nullptr ? bytes : 0, 0);
    GLuint b = 0;
    glGenBuffers(1, &b);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
    glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), data != nullptr ? data : zeros.data(),
                 GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    buffers_.push_back(b);
    return b;
  }
  // The first `floats` values of `buffer`.
  std::vector<float> Read(GLuint buffer, size_t floats) {
    std::vector<float> v(floats);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
    const void* p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(floats * 4), GL_MAP_READ_BIT);
    if (p != nullptr) std::memcpy(v.data(), p, floats * 4);
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
    return v;
  }

 private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  bool ready_ = false;
  std::vector<GLuint> buffers_;
};

}  // namespace gld::testing
