// A headless OpenGL ES 3.1+ context obtained through EGL. EglOptions::context
// (gld::ContextMode) chooses between the caller's current context and one of
// our own; our own is made, in this order:
//   0. on the display of the app's context to share objects with
//      (EglOptions::share_context), sharing with it; no other platform then;
//   1. the EGL device platform (EGL_EXT_platform_device), device chosen by
//      index (EglOptions::device_index, else GLD_EGL_DEVICE, else each device
//      in turn);
//   2. Mesa's surfaceless platform (EGL_MESA_platform_surfaceless);
//   3. the default display with a 1x1 pbuffer surface.
// When an index is forced (option or GLD_EGL_DEVICE) and that device fails,
// creation fails instead of falling back, so the user learns that their
// choice was not honoured.
//
// Threading: an environment may be used from any thread, but from one thread
// at a time (the caller serialises). Every GL entry point of this backend runs
// inside a ScopedCurrent, which makes the context current on the calling
// thread and restores whatever was current before (context, surfaces and the
// bound client API), so no thread keeps the context bound between calls. A
// reused caller context is the exception: it stays current on the caller's
// thread, and using the environment from another thread then fails with
// FailedPrecondition (EGL_BAD_ACCESS); inside a ScopedCurrent on a reused
// context, the GL bindings this backend changes (gl_state.h) are saved and
// put back on exit, so the app finds its program and buffer bindings as it
// left them.
#pragma once

#include <epoxy/egl.h>

#include <memory>
#include <string>
#include <vector>

#include "gl/egl/gl_state.h"
#include "gldelegate/status.hpp"
#include "gldelegate/types.hpp"
#include "util/file_util.h"

namespace gld::gl {

struct EglOptions {
  // EGL device index on the device platform; -1: GLD_EGL_DEVICE from the
  // environment if set, else try every device in order.
  int device_index = -1;
  // Which context: the caller's current one (kCurrent, or kCurrentIfAny
  // when it is OpenGL ES 3.1+) or our own (kPrivate).
  ContextMode context = ContextMode::kCurrentIfAny;
  // kPrivate: make our context on this display, sharing objects with this
  // context of the app's. EGL_NO_CONTEXT: no sharing.
  EGLDisplay share_display = EGL_NO_DISPLAY;
  EGLContext share_context = EGL_NO_CONTEXT;
  // Skip the device platform / surfaceless / pbuffer attempts (tests use this
  // to exercise the fallbacks one by one).
  bool try_device_platform = true;
  bool try_surfaceless_platform = true;
  bool try_default_display = true;
  // Options::cache_dir: where the driver's own shader cache goes
  // (gl/egl/driver_cache.h: RedirectDriverShaderCache, EGL_ANDROID_blob_cache).
  // Empty: the driver's default.
  std::string cache_dir;
  // Options::cache_allow_shared: kAnyone; else kOwner (util/file_util.h).
  FileTrust cache_trust = FileTrust::kOwner;
};

// How the context was obtained, and what it offers.
struct GlInfo {
  std::string platform;  // "current context", "device 0", "surfaceless", "default display (pbuffer)", "shared"
  // InterpreterReport::gl_context: "private", "private (shared with the
  // app's context)" or "the app's current context".
  std::string context;
  std::string vendor, renderer, version, shading_language_version;
  int major = 0, minor = 0;  // GLES version
  bool timer_query = false;              // GL_EXT_disjoint_timer_query
  bool parallel_shader_compile = false;  // GL_KHR_parallel_shader_compile
  bool program_binary = false;           // at least one program binary format
  bool blob_cache = false;               // EGL_ANDROID_blob_cache on the display, in use
  bool software_device = false;          // EGL device with EGL_MESA_device_software
  int max_compute_ssbo_blocks = 0;
  int64_t max_ssbo_size = 0;  // bytes
  int ssbo_offset_alignment = 0;  // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
  int max_workgroup_invocations = 0;
  int max_workgroup_size[3] = {0, 0, 0};
  int max_workgroup_count[3] = {0, 0, 0};
};

class GlEnvironment {
 public:
  static StatusOr<std::unique_ptr<GlEnvironment>> Create(const EglOptions& options = {});
  ~GlEnvironment();
  GlEnvironment(const GlEnvironment&) = delete;
  GlEnvironment& operator=(const GlEnvironment&) = delete;

  const GlInfo& info() const { return info_; }
  bool reused_context() const { return reused_; }
  EGLDisplay display() const { return display_; }
  EGLContext context() const { return context_; }

  // Makes this environment's context current on the calling thread for the
  // object's lifetime and restores the previous binding afterwards.
  class ScopedCurrent {
   public:
    explicit ScopedCurrent(GlEnvironment& env);
    ~ScopedCurrent();
    ScopedCurrent(const ScopedCurrent&) = delete;
    ScopedCurrent& operator=(const ScopedCurrent&) = delete;
    const Status& status() const { return status_; }

   private:
    GlEnvironment& env_;
    Status status_;
    bool restore_ = false;
    EGLDisplay prev_display_ = EGL_NO_DISPLAY;
    EGLContext prev_context_ = EGL_NO_CONTEXT;
    EGLSurface prev_draw_ = EGL_NO_SURFACE, prev_read_ = EGL_NO_SURFACE;
    EGLenum prev_api_ = EGL_OPENGL_ES_API;
    bool restore_bindings_ = false;  // a reused context: put the app's bindings back
    GlBindingState app_bindings_;
  };

 private:
  GlEnvironment();
  Status ReuseCurrentContext();
  // Reuses the current context as `mode` says; false: make a private one.
  StatusOr<bool> TakeCurrentContext(ContextMode mode, EGLContext current);
  Status QueryInfo();

  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  EGLSurface draw_ = EGL_NO_SURFACE;  // the pbuffer, or the caller's surfaces
  EGLSurface read_ = EGL_NO_SURFACE;
  bool reused_ = false;
  bool owns_display_ = false;  // we called eglInitialize on it
  GlInfo info_;
};

// The public options' EGL part (device, context mode and sharing, cache folder).
EglOptions EglOptionsFrom(const Options& options);

// "EGL_BAD_ACCESS" etc.
const char* EglErrorName(EGLint error);

}  // namespace gld::gl
