#include "common/gl_stack_probe.h"

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"

extern char** environ;

namespace gld::testing {
namespace {

// A context of the probe's own on the surfaceless platform, current while it
// lives; whatever was current before is current again after it.
class ProbeContext {
 public:
  ProbeContext()
      : prev_display_(eglGetCurrentDisplay()),
        prev_draw_(eglGetCurrentSurface(EGL_DRAW)),
        prev_read_(eglGetCurrentSurface(EGL_READ)),
        prev_context_(eglGetCurrentContext()),
        prev_api_(eglQueryAPI()) {
    if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) return;
    display_ = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display_ == EGL_NO_DISPLAY || !eglInitialize(display_, nullptr, nullptr)) return;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
    context_ = eglCreateContext(display_, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    ready_ = context_ != EGL_NO_CONTEXT && eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_) &&
             epoxy_gl_version() >= 31;
  }
  ~ProbeContext() {
    if (context_ != EGL_NO_CONTEXT) {
      eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display_, context_);
    }
    if (prev_context_ != EGL_NO_CONTEXT) {
      eglBindAPI(prev_api_);
      eglMakeCurrent(prev_display_, prev_draw_, prev_read_, prev_context_);
    } else if (prev_api_ != EGL_NONE) {
      eglBindAPI(prev_api_);
    }
  }
  ProbeContext(const ProbeContext&) = delete;
  ProbeContext& operator=(const ProbeContext&) = delete;
  bool ready() const { return ready_; }

 private:
  EGLDisplay prev_display_;
  EGLSurface prev_draw_, prev_read_;
  EGLContext prev_context_;
  EGLenum prev_api_;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  bool ready_ = false;
};

std::string Renderer() {
  const GLubyte* r = glGetString(GL_RENDERER);
  return r != nullptr ? reinterpret_cast<const char*>(r) : "unknown renderer";
}

// Compiles and links a compute shader; 0 (with *why) when it does not.
GLuint Program(const char* source, std::string* why) {
  GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  glDeleteShader(shader);
  GLint linked = GL_FALSE;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) {
    char log[512] = {0};
    glGetProgramInfoLog(program, sizeof log - 1, nullptr, log);
    *why = std::string("the probe's compute shader does not link on ") + Renderer() + ": " + log;
    glDeleteProgram(program);
    return 0;
  }
  return program;
}

GLuint StorageBuffer(size_t bytes, const void* data) {
  GLuint b = 0;
  glGenBuffers(1, &b);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), data, GL_DYNAMIC_COPY);
  return b;
}

// Compiles `source`, runs one work group of it with `in` (`in_bytes`) at
// binding 0 and `out` at binding 1, and reads `out` back into itself; false
// (with *why naming `what`) when it does not link or run.
bool RunProbeShader(const char* source, const void* in, size_t in_bytes, std::vector<int32_t>* out,
                    const char* what, std::string* why) {
  GLuint program = Program(source, why);
  if (program == 0) return false;
  const GLuint in_buffer = StorageBuffer(in_bytes, in);
  const size_t bytes = out->size() * sizeof(int32_t);
  const GLuint out_buffer = StorageBuffer(bytes, out->data());
  glUseProgram(program);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in_buffer);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, out_buffer);
  glDispatchCompute(1, 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, out_buffer);
  const void* p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(bytes), GL_MAP_READ_BIT);
  if (p != nullptr) std::memcpy(out->data(), p, bytes);
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  glUseProgram(0);
  const bool ran = p != nullptr && glGetError() == GL_NO_ERROR;
  glDeleteBuffers(1, &in_buffer);
  glDeleteBuffers(1, &out_buffer);
  glDeleteProgram(program);
  if (!ran) *why = std::string("the probe's ") + what + " did not run on " + Renderer();
  return ran;
}

std::string Number(float v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", static_cast<double>(v));
  return s;
}

}  // namespace

int ProbeGlArithmetic(std::string* why) {
  ProbeContext ctx;
  if (!ctx.ready()) {
    *why = "no OpenGL ES 3.1 context on the surfaceless platform";
    return 2;
  }
  // Values exact in binary16, with halves and negatives (where truncation
  // and floor differ).
  const std::vector<float> x = {2.75f, -2.75f, 0.5f, -0.5f, 7.0f, 1000.0f, -1.0f, 3.5f};
  const char* source =
      "#version 310 es\nlayout(local_size_x = 8) in;\n"
      "layout(std430, binding = 0) readonly buffer I { float x[]; } i;\n"
      "layout(std430, binding = 1) writeonly buffer O { int v[]; } o;\n"
      "void main() {\n"
      "  uint k = gl_LocalInvocationID.x;\n"
      "  float x = i.x[k];\n"
      "  o.v[4u * k] = int(x);\n"
      "  o.v[4u * k + 1u] = floatBitsToInt(floor(x));\n"
      "  o.v[4u * k + 2u] = int(packHalf2x16(vec2(x, 0.0)));\n"
      "  o.v[4u * k + 3u] = floatBitsToInt(float(-int(k) - 3));\n"
      "}\n";
  std::vector<int32_t> got(4 * x.size(), 0);
  if (!RunProbeShader(source, x.data(), x.size() * sizeof(float), &got, "arithmetic shader", why)) return 1;
  std::vector<std::string> wrong;
  const auto as_float = [](int32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  };
  for (size_t k = 0; k < x.size(); ++k) {
    const float v = x[k];
    const int32_t want_int = static_cast<int32_t>(v);
    const float want_floor = std::floor(v), got_floor = as_float(got[4 * k + 1]);
    const int32_t want_half = static_cast<int32_t>(FloatToHalf(v));
    const int32_t n = -static_cast<int32_t>(k) - 3;
    const float got_converted = as_float(got[4 * k + 3]);
    if (got[4 * k] != want_int) wrong.push_back("int(" + Number(v) + ") = " + std::to_string(got[4 * k]));
    if (got_floor != want_floor) wrong.push_back("floor(" + Number(v) + ") = " + Number(got_floor));
    if (got[4 * k + 2] != want_half) {
      char hex[80];
      std::snprintf(hex, sizeof hex, "packHalf2x16(%g) = 0x%04x, not 0x%04x", static_cast<double>(v),
                    static_cast<unsigned>(got[4 * k + 2]), static_cast<unsigned>(want_half));
      wrong.push_back(hex);
    }
    if (got_converted != static_cast<float>(n)) {
      wrong.push_back("float(" + std::to_string(n) + ") = " + Number(got_converted));
    }
  }
  if (wrong.empty()) return 0;
  // The first few, and how many in all.
  std::string list;
  for (size_t i = 0; i < wrong.size() && i < 4; ++i) list += (i ? "; " : "") + wrong[i];
  if (wrong.size() > 4) list += "; " + std::to_string(wrong.size() - 4) + " more";
  *why = "compute shaders miscompute on " + Renderer() + " (" + list + ")";
  return 1;
}

int ProbeGlAtomics(std::string* why) {
  ProbeContext ctx;
  if (!ctx.ready()) {
    *why = "no OpenGL ES 3.1 context on the surfaceless platform";
    return 2;
  }
  // 64 invocations: each adds 1 to v[0]; one wins the swap of v[1] 0 -> its
  // index + 1 and counts itself in v[2].
  const char* source =
      "#version 310 es\nlayout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) readonly buffer I { int unused; } i;\n"
      "layout(std430, binding = 1) buffer O { int v[]; } o;\n"
      "void main() {\n"
      "  atomicAdd(o.v[0], 1);\n"
      "  if (atomicCompSwap(o.v[1], 0, int(gl_LocalInvocationID.x) + 1) == 0) atomicAdd(o.v[2], 1);\n"
      "}\n";
  const int32_t zero = 0;
  std::vector<int32_t> got(3, 0);
  if (!RunProbeShader(source, &zero, sizeof zero, &got, "atomics shader", why)) return 1;
  if (got[0] != 64 || got[1] < 1 || got[1] > 64 || got[2] != 1) {
    *why = "SSBO atomics miscount on " + Renderer() + " (64 atomicAdd gave " + std::to_string(got[0]) +
           ", atomicCompSwap winners " + std::to_string(got[2]) + ")";
    return 1;
  }
  return 0;
}

std::string GlArithmeticDefect() {
  static std::once_flag once;
  static std::string defect;
  std::call_once(once, [] {
    std::string why;
    if (ProbeGlArithmetic(&why) == 1) defect = why;
  });
  return defect;
}

std::string GlAtomicsDefect() {
  static std::once_flag once;
  static std::string defect;
  std::call_once(once, [] {
    const std::string probe = GLD_GL_STACK_PROBE_PATH;
    int out[2];
    if (pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::string arg0 = probe, arg1 = "atomics";
    char* argv[] = {arg0.data(), arg1.data(), nullptr};
    pid_t pid = -1;
    const int spawned = posix_spawn(&pid, probe.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::string said;
    char buf[256];
    for (ssize_t n; spawned == 0 && (n = read(out[0], buf, sizeof buf)) > 0;) said.append(buf, static_cast<size_t>(n));
    close(out[0]);
    if (spawned != 0) {
      defect = "cannot run the probe " + probe + ": " + std::strerror(spawned);
      return;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    while (!said.empty() && said.back() == '\n') said.pop_back();
    if (WIFSIGNALED(status)) {
      defect = "a compute shader with SSBO atomics crashes the GL driver (gld_gl_stack_probe atomics: " +
               std::string(strsignal(WTERMSIG(status))) + ")";
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 1) {
      defect = said;
    }
  });
  return defect;
}

}  // namespace gld::testing
