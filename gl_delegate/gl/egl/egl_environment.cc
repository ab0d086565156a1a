#include "gl/egl/egl_environment.h"

#include <epoxy/gl.h>

#include <dlfcn.h>

#include <initializer_list>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gl/egl/driver_cache.h"
#include "util/file_util.h"
#include "util/logging.h"

namespace gld::gl {

const char* EglErrorName(EGLint error) {
  switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: return "unknown EGL error";
  }
}

namespace {

std::string EglErrorString() {
  EGLint e = eglGetError();
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%04x", static_cast<unsigned>(e));
  return std::string(EglErrorName(e)) + " (" + hex + ")";
}

bool HasClientExtension(const char* name) {
  // epoxy answers for EGL_NO_DISPLAY from the client extension string.
  return epoxy_has_egl_extension(EGL_NO_DISPLAY, name);
}

// Parses GLD_EGL_DEVICE; -1 when unset. A malformed value is an error rather
// than silently "device 0".
StatusOr<int> DeviceIndexFromEnvironment() {
  const char* v = std::getenv("GLD_EGL_DEVICE");
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) {
    return InvalidArgumentError(std::string("GLD_EGL_DEVICE='") + v +
                                "' is not a device index (0, 1, ...)");
  }
  return static_cast<int>(n);
}

// Set once any display was initialised by us in this process: drivers read
// their cache settings then, so later redirections cannot take effect.
std::atomic<bool> g_display_opened{false};

// EGL_ANDROID_blob_cache: the callbacks carry no user pointer, and a display
// accepts them once, so the folder is process-wide: the first environment
// with a cache_dir that initialises a display chooses it.
std::mutex g_blob_mutex;
std::string g_blob_dir;
FileTrust g_blob_trust = FileTrust::kOwner;
std::vector<EGLDisplay> g_blob_displays;

void BlobSet(const void* key, EGLsizeiANDROID key_size, const void* value, EGLsizeiANDROID value_size) {
  std::string dir;
  FileTrust trust;
  {
    std::lock_guard<std::mutex> lock(g_blob_mutex);
    dir = g_blob_dir;
    trust = g_blob_trust;
  }
  if (dir.empty() || key_size <= 0 || value_size < 0) return;
  BlobStorePut(dir, trust, key, static_cast<size_t>(key_size), value, static_cast<size_t>(value_size));
}

EGLsizeiANDROID BlobGet(const void* key, EGLsizeiANDROID key_size, void* value, EGLsizeiANDROID value_size) {
  std::string dir;
  FileTrust trust;
  {
    std::lock_guard<std::mutex> lock(g_blob_mutex);
    dir = g_blob_dir;
    trust = g_blob_trust;
  }
  if (dir.empty() || key_size <= 0 || value_size < 0) return 0;
  return static_cast<EGLsizeiANDROID>(
      BlobStoreGet(dir, trust, key, static_cast<size_t>(key_size), value, static_cast<size_t>(value_size)));
}

// Installs the blob cache callbacks on a freshly initialised display (before
// any context on it exists) when it offers them and a folder is chosen.
bool InstallBlobCache(EGLDisplay display) {
  if (!epoxy_has_egl_extension(display, "EGL_ANDROID_blob_cache")) return false;
  std::lock_guard<std::mutex> lock(g_blob_mutex);
  if (g_blob_dir.empty()) return false;
  for (EGLDisplay d : g_blob_displays) {
    if (d == display) return true;
  }
  eglSetBlobCacheFuncsANDROID(display, BlobSet, BlobGet);
  g_blob_displays.push_back(display);
  Log().debug("program cache: EGL_ANDROID_blob_cache stores driver blobs in '{}/blob'", g_blob_dir);
  return true;
}

struct Attempt {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
  bool initialized = false;
  bool blob_cache = false;
  bool software_device = false;  // the EGL device lists EGL_MESA_device_software
};

void Abandon(Attempt& a) {
  if (a.display == EGL_NO_DISPLAY) return;
  eglMakeCurrent(a.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (a.surface != EGL_NO_SURFACE) eglDestroySurface(a.display, a.surface);
  if (a.context != EGL_NO_CONTEXT) eglDestroyContext(a.display, a.context);
  // No eglTerminate: displays are per-process singletons without reference
  // counting, and terminating one would pull it from under any other user
  // (another environment, or the application itself).
  a = Attempt();
}

// Initialises `display`, creates a GLES 3.1 context on it (with a 1x1 pbuffer
// when `pbuffer`; sharing objects with `share` unless EGL_NO_CONTEXT) and
// makes it current. Error text names the failing call and the EGL error.
Status CreateContextOn(EGLDisplay display, bool pbuffer, Attempt* out, EGLContext share = EGL_NO_CONTEXT) {
  Attempt a;
  a.display = display;
  if (display == EGL_NO_DISPLAY) return UnavailableError("no display (" + EglErrorString() + ")");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(display, &major, &minor)) {
    return UnavailableError("eglInitialize failed: " + EglErrorString());
  }
  a.initialized = true;
  g_display_opened = true;
  a.blob_cache = InstallBlobCache(display);
  if (!eglBindAPI(EGL_OPENGL_ES_API)) {
    return UnavailableError("eglBindAPI(EGL_OPENGL_ES_API) failed: " + EglErrorString());
  }
  const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                                   EGL_SURFACE_TYPE, pbuffer ? EGL_PBUFFER_BIT : 0,
                                   EGL_NONE};
  EGLConfig config = nullptr;
  EGLint num_configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &num_configs) || num_configs < 1) {
    std::string why = num_configs < 1 ? "no config with EGL_OPENGL_ES3_BIT" : EglErrorString();
    // Without a config, a surfaceless context may still be possible.
    if (pbuffer || !epoxy_has_egl_extension(display, "EGL_KHR_no_config_context")) {
      return UnavailableError("eglChooseConfig: " + why);
    }
    config = nullptr;  // EGL_NO_CONFIG_KHR
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                    EGL_NONE};
  a.context = eglCreateContext(display, config, share, context_attribs);
  if (a.context == EGL_NO_CONTEXT) {
    std::string why = EglErrorString();
    Abandon(a);
    return UnavailableError(std::string("eglCreateContext(OpenGL ES 3.1") +
                            (share != EGL_NO_CONTEXT ? ", shared with the app's context" : "") + ") failed: " + why);
  }
  if (pbuffer) {
    const EGLint surface_attribs[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    a.surface = eglCreatePbufferSurface(display, config, surface_attribs);
    if (a.surface == EGL_NO_SURFACE) {
      std::string why = EglErrorString();
      Abandon(a);
      return UnavailableError("eglCreatePbufferSurface(1x1) failed: " + why);
    }
  } else if (!epoxy_has_egl_extension(display, "EGL_KHR_surfaceless_context")) {
    Abandon(a);
    return UnavailableError("display lacks EGL_KHR_surfaceless_context");
  }
  if (!eglMakeCurrent(display, a.surface, a.surface, a.context)) {
    std::string why = EglErrorString();
    Abandon(a);
    return UnavailableError("eglMakeCurrent failed: " + why);
  }
  *out = a;
  return OkStatus();
}

// Takes a context made on a platform; an error (recorded in `failures`)
// when the environment refuses it, and the next platform is tried.
using AdoptFn = std::function<Status(Attempt& got, const std::string& platform)>;

// The driver's shader cache goes into cache_dir, where it still can.
void PrepareDriverCaches(const std::string& given_dir, FileTrust trust, bool display_already_open) {
  const std::string cache_dir = TrustedCacheDir(given_dir, trust);
  if (cache_dir.empty()) return;
  RedirectDriverShaderCache(cache_dir, trust, display_already_open);
  std::lock_guard<std::mutex> lock(g_blob_mutex);
  if (g_blob_dir.empty() && !display_already_open && IsDirectory(cache_dir)) {
    g_blob_dir = DriverCacheDir(cache_dir);
    g_blob_trust = trust;
  }
}

// The device platform: every device in turn, or only `device_index` when
// forced (then its failure is final). True when `adopt` took a context.
StatusOr<bool> TryDevicePlatform(int device_index, bool forced_device, const AdoptFn& adopt,
                                 std::vector<std::string>* failures) {
  if (!HasClientExtension("EGL_EXT_platform_device") || !HasClientExtension("EGL_EXT_device_enumeration")) {
    failures->push_back("device platform: EGL_EXT_platform_device / EGL_EXT_device_enumeration missing");
    if (forced_device) {
      return UnavailableError("EGL device " + std::to_string(device_index) + " requested, but " + failures->back());
    }
    return false;
  }
  EGLint count = 0;
  std::vector<EGLDeviceEXT> devices;
  if (eglQueryDevicesEXT(0, nullptr, &count) && count > 0) {
    devices.resize(static_cast<size_t>(count));
    eglQueryDevicesEXT(count, devices.data(), &count);
    devices.resize(static_cast<size_t>(count));
  }
  if (forced_device && device_index >= static_cast<int>(devices.size())) {
    return UnavailableError("EGL device " + std::to_string(device_index) +
                            " requested (option or GLD_EGL_DEVICE), but EGL lists " +
                            std::to_string(devices.size()) + " device(s): valid indices are 0.." +
                            std::to_string(static_cast<int>(devices.size()) - 1));
  }
  if (devices.empty()) failures->push_back("device platform: eglQueryDevicesEXT found no device");
  for (size_t i = 0; i < devices.size(); ++i) {
    if (forced_device && static_cast<int>(i) != device_index) continue;
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
    Attempt got;
    Status s = CreateContextOn(d, false, &got);
    const char* device_extensions = eglQueryDeviceStringEXT(devices[i], EGL_EXTENSIONS);
    got.software_device =
        device_extensions != nullptr && std::strstr(device_extensions, "EGL_MESA_device_software") != nullptr;
    const std::string platform = "device " + std::to_string(i);
    if (s.ok()) {
      if (adopt(got, platform).ok()) return true;
    } else {
      failures->push_back(platform + ": " + s.message());
    }
    if (forced_device) {
      return UnavailableError("EGL device " + std::to_string(device_index) +
                              " (GLD_EGL_DEVICE or option) is unusable: " + failures->back());
    }
  }
  return false;
}

// Makes a context on `display` (sharing with `share` unless EGL_NO_CONTEXT)
// and offers it to `adopt`; true when taken.
bool TryDisplay(EGLDisplay display, bool pbuffer, const std::string& platform, const std::string& failure_prefix,
                const AdoptFn& adopt, std::vector<std::string>* failures, EGLContext share = EGL_NO_CONTEXT) {
  Attempt got;
  Status s = CreateContextOn(display, pbuffer, &got, share);
  if (!s.ok()) {
    failures->push_back(failure_prefix + ": " + s.message());
    return false;
  }
  return adopt(got, platform).ok();
}

}  // namespace

GlEnvironment::GlEnvironment() = default;

Status GlEnvironment::ReuseCurrentContext() {
  display_ = eglGetCurrentDisplay();
  context_ = eglGetCurrentContext();
  EGLint client_type = 0;
  if (!eglQueryContext(display_, context_, EGL_CONTEXT_CLIENT_TYPE, &client_type) ||
      client_type != EGL_OPENGL_ES_API) {
    display_ = EGL_NO_DISPLAY;
    context_ = EGL_NO_CONTEXT;
    return FailedPreconditionError(std::string("the current EGL context is ") +
                                   (client_type == EGL_OPENGL_API ? "a desktop OpenGL context" : "not OpenGL ES") +
                                   ", compute shaders here need OpenGL ES 3.1");
  }
  draw_ = eglGetCurrentSurface(EGL_DRAW);
  read_ = eglGetCurrentSurface(EGL_READ);
  reused_ = true;
  info_.platform = "current context";
  info_.context = "the app's current context";
  Status s = QueryInfo();
  if (!s.ok()) {
    reused_ = false;
    display_ = EGL_NO_DISPLAY;
    context_ = EGL_NO_CONTEXT;
    return FailedPreconditionError("the current EGL context cannot be used: " + s.message());
  }
  Log().info("GL: reusing the current EGL context: {} / {}", info_.renderer, info_.version);
  return OkStatus();
}

namespace {

// libepoxy loads libEGL.so.1 on the first EGL call, and libGLESv2.so.2 on the
// first GLES call, and abort()s when it cannot open one or find an entry
// point, so a missing, empty or foreign library would end the process instead
// of letting `auto` fall back to the CPU. The same libraries and entry points
// are looked up here first; the handles stay open, so epoxy then finds the
// libraries already loaded. Checked once per process.
Status ProbeLibrary(const char* library, const char* kind, std::initializer_list<const char*> symbols) {
  void* handle = ::dlopen(library, RTLD_LAZY | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return UnavailableError(std::string("cannot load ") + library + ": " + (why ? why : "unknown error"));
  }
  for (const char* name : symbols) {
    ::dlerror();
    if (::dlsym(handle, name) == nullptr) {
      const char* why = ::dlerror();
      return UnavailableError(std::string(library) + " is not a usable " + kind + " library: " +
                              (why ? why : std::string("no symbol ") + name));
    }
  }
  return OkStatus();
}

Status ProbeGlLibraries() {
  static const Status result = [] {
    // eglGetProcAddress is how epoxy finds every extension; the others are the
    // core entry points this file calls, which epoxy looks up in the library.
    GLD_RETURN_IF_ERROR(ProbeLibrary(
        "libEGL.so.1", "EGL",
        {"eglGetProcAddress", "eglGetError", "eglQueryString", "eglGetCurrentContext", "eglGetCurrentDisplay",
         "eglGetCurrentSurface", "eglGetDisplay", "eglInitialize", "eglBindAPI", "eglQueryAPI", "eglQueryContext",
         "eglChooseConfig", "eglCreateContext", "eglCreatePbufferSurface", "eglMakeCurrent", "eglDestroyContext",
         "eglDestroySurface"}));
    // GLES 2.0 entry points epoxy resolves from the library itself; the 3.x
    // ones it reaches through eglGetProcAddress when the library lacks them.
    return ProbeLibrary("libGLESv2.so.2", "GLES",
                        {"glGetString", "glGetError", "glGetIntegerv", "glCreateShader", "glCreateProgram",
                         "glGenBuffers", "glBindBuffer"});
  }();
  return result;
}

// Puts the thread's bound client API (eglBindAPI) back on scope exit.
class ScopedBoundApi {
 public:
  ScopedBoundApi() : api_(eglQueryAPI()) {}
  ~ScopedBoundApi() {
    if (api_ != EGL_NONE && eglQueryAPI() != api_) eglBindAPI(api_);
  }
  ScopedBoundApi(const ScopedBoundApi&) = delete;
  ScopedBoundApi& operator=(const ScopedBoundApi&) = delete;

 private:
  EGLenum api_;
};

}  // namespace

StatusOr<bool> GlEnvironment::TakeCurrentContext(ContextMode mode, EGLContext current) {
  if (mode == ContextMode::kPrivate) return false;
  if (current == EGL_NO_CONTEXT) {
    if (mode == ContextMode::kCurrent) {
      return FailedPreconditionError("context mode 'current': no EGL context is current on this thread");
    }
    return false;
  }
  Status s = ReuseCurrentContext();
  if (s.ok()) return true;
  if (mode == ContextMode::kCurrent) return Status(s.code(), "context mode 'current': " + s.message());
  Log().info("GL: {}; making a private context", s.message());
  return false;
}

StatusOr<std::unique_ptr<GlEnvironment>> GlEnvironment::Create(const EglOptions& options) {
  std::unique_ptr<GlEnvironment> env(new GlEnvironment());
  GLD_RETURN_IF_ERROR(ProbeGlLibraries());

  // eglBindAPI is per thread, and an app with a desktop OpenGL context
  // current has EGL_OPENGL_API bound: it gets it back.
  ScopedBoundApi keep_api;

  // The caller's current context.
  EGLContext current = eglGetCurrentContext();
  if (!options.cache_dir.empty()) {
    PrepareDriverCaches(options.cache_dir, options.cache_trust, g_display_opened || current != EGL_NO_CONTEXT);
  }
  GLD_ASSIGN_OR_RETURN(bool reused, env->TakeCurrentContext(options.context, current));
  if (reused) return env;

  int device_index = options.device_index;
  if (device_index < 0) {
    GLD_ASSIGN_OR_RETURN(device_index, DeviceIndexFromEnvironment());
  }
  const bool forced_device = device_index >= 0;

  // Whatever was current before (nothing, in the common case) is restored
  // once the new context is set up.
  const EGLDisplay prev_display = eglGetCurrentDisplay();
  const EGLSurface prev_draw = eglGetCurrentSurface(EGL_DRAW);
  const EGLSurface prev_read = eglGetCurrentSurface(EGL_READ);
  std::vector<std::string> failures;
  const AdoptFn adopt = [&](Attempt& got, const std::string& platform) -> Status {
    env->display_ = got.display;
    env->context_ = got.context;
    env->draw_ = env->read_ = got.surface;
    env->owns_display_ = got.initialized;
    env->info_.blob_cache = got.blob_cache;
    env->info_.software_device = got.software_device;
    env->info_.platform = platform;
    env->info_.context = options.share_context != EGL_NO_CONTEXT ? "private (shared with the app's context)" : "private";
    Status s = env->QueryInfo();
    if (!s.ok()) {
      failures.push_back(platform + ": " + s.message());
      Abandon(got);
      env->display_ = EGL_NO_DISPLAY;
      env->context_ = EGL_NO_CONTEXT;
      env->draw_ = env->read_ = EGL_NO_SURFACE;
      return s;
    }
    // Ask the driver for as many compiler threads as it likes.
    if (env->info_.parallel_shader_compile) glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
    if (current != EGL_NO_CONTEXT) {
      eglMakeCurrent(prev_display, prev_draw, prev_read, current);
    } else {
      eglMakeCurrent(env->display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    }
    Log().info("GL: {} on EGL {}: {} / {}", env->info_.renderer, platform, env->info_.version, env->info_.vendor);
    return OkStatus();
  };

  // 0. The display of the app's context to share with, and nothing else.
  if (options.share_context != EGL_NO_CONTEXT) {
    if (TryDisplay(options.share_display, false, "shared", "display of the shared context", adopt, &failures,
                   options.share_context) ||
        TryDisplay(options.share_display, true, "shared (pbuffer)", "display of the shared context (pbuffer)",
                   adopt, &failures, options.share_context)) {
      return env;
    }
    return UnavailableError("cannot make an OpenGL ES 3.1 context sharing objects with the app's context: " +
                            failures.front());
  }
  // 1. The device platform.
  if (options.try_device_platform || forced_device) {
    GLD_ASSIGN_OR_RETURN(bool adopted, TryDevicePlatform(device_index, forced_device, adopt, &failures));
    if (adopted) return env;
  }
  // 2. Mesa's surfaceless platform.
  if (options.try_surfaceless_platform) {
    if (!HasClientExtension("EGL_MESA_platform_surfaceless")) {
      failures.push_back("surfaceless platform: EGL_MESA_platform_surfaceless missing");
    } else if (TryDisplay(eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr),
                          false, "surfaceless", "surfaceless platform", adopt, &failures)) {
      return env;
    }
  }
  // 3. The default display with a pbuffer.
  if (options.try_default_display &&
      TryDisplay(eglGetDisplay(EGL_DEFAULT_DISPLAY), true, "default display (pbuffer)", "default display", adopt,
                 &failures)) {
    return env;
  }

  std::string msg = "no OpenGL ES 3.1 context through EGL";
  if (failures.empty()) msg += ": every platform was disabled by the options";
  for (const std::string& f : failures) msg += "; " + f;
  return UnavailableError(msg);
}

Status GlEnvironment::QueryInfo() {
  auto str = [](GLenum name) {
    const GLubyte* s = glGetString(name);
    return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  info_.vendor = str(GL_VENDOR);
  info_.renderer = str(GL_RENDERER);
  info_.version = str(GL_VERSION);
  info_.shading_language_version = str(GL_SHADING_LANGUAGE_VERSION);
  if (info_.version.rfind("OpenGL ES", 0) != 0) {
    return UnavailableError("context is not OpenGL ES (GL_VERSION '" + info_.version + "')");
  }
  int v = epoxy_gl_version();
  info_.major = v / 10;
  info_.minor = v % 10;
  if (v < 31) {
    return UnavailableError("OpenGL ES " + std::to_string(info_.major) + "." +
                            std::to_string(info_.minor) +
                            " found, compute shaders need 3.1 (GL_VERSION '" + info_.version + "', " +
                            info_.renderer + ")");
  }
  info_.timer_query = epoxy_has_gl_extension("GL_EXT_disjoint_timer_query");
  info_.parallel_shader_compile = epoxy_has_gl_extension("GL_KHR_parallel_shader_compile");
  GLint formats = 0;
  glGetIntegerv(GL_NUM_PROGRAM_BINARY_FORMATS, &formats);
  info_.program_binary = formats > 0;
  glGetIntegerv(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS, &info_.max_compute_ssbo_blocks);
  GLint64 ssbo = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
  info_.max_ssbo_size = ssbo;
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &info_.ssbo_offset_alignment);
  glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &info_.max_workgroup_invocations);
  for (GLuint i = 0; i < 3; ++i) {
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &info_.max_workgroup_size[i]);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &info_.max_workgroup_count[i]);
  }
  // Drain anything the queries raised; a driver missing one limit is not fatal.
  while (glGetError() != GL_NO_ERROR) {
  }
  return OkStatus();
}

GlEnvironment::~GlEnvironment() {
  if (context_ == EGL_NO_CONTEXT) return;
  if (reused_) return;  // the caller owns its context
  if (eglGetCurrentContext() == context_) {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  }
  if (draw_ != EGL_NO_SURFACE) eglDestroySurface(display_, draw_);
  eglDestroyContext(display_, context_);
}

GlEnvironment::ScopedCurrent::ScopedCurrent(GlEnvironment& env) : env_(env) {
  EGLContext cur = eglGetCurrentContext();
  if (cur == env.context_) {
    if (env.reused_) {
      app_bindings_ = GlBindingState::Capture();
      restore_bindings_ = true;
    }
    return;
  }
  prev_display_ = eglGetCurrentDisplay();
  prev_context_ = cur;
  prev_draw_ = eglGetCurrentSurface(EGL_DRAW);
  prev_read_ = eglGetCurrentSurface(EGL_READ);
  prev_api_ = eglQueryAPI();
  if (prev_api_ != EGL_OPENGL_ES_API) eglBindAPI(EGL_OPENGL_ES_API);
  if (!eglMakeCurrent(env.display_, env.draw_, env.read_, env.context_)) {
    EGLint e = eglGetError();
    std::string what = std::string("cannot make the GL context current on this thread: ") +
                       EglErrorName(e);
    if (e == EGL_BAD_ACCESS) what += " (it is current on another thread; use one thread at a time)";
    status_ = FailedPreconditionError(what);
    if (prev_api_ != EGL_OPENGL_ES_API) eglBindAPI(prev_api_);
    return;
  }
  restore_ = true;
}

GlEnvironment::ScopedCurrent::~ScopedCurrent() {
  if (restore_bindings_) app_bindings_.Restore();
  if (!restore_) return;
  if (prev_context_ != EGL_NO_CONTEXT) {
    if (prev_api_ != EGL_OPENGL_ES_API) eglBindAPI(prev_api_);
    eglMakeCurrent(prev_display_, prev_draw_, prev_read_, prev_context_);
  } else {
    eglMakeCurrent(env_.display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (prev_api_ != EGL_OPENGL_ES_API) eglBindAPI(prev_api_);
  }
}

EglOptions EglOptionsFrom(const Options& options) {
  EglOptions egl;
  egl.device_index = options.egl_device;
  egl.cache_dir = options.cache_dir;
  egl.cache_trust = CacheTrust(options);
  egl.context = options.context;
  egl.share_display = static_cast<EGLDisplay>(options.share_egl_display);
  egl.share_context = static_cast<EGLContext>(options.share_egl_context);
  return egl;
}

}  // namespace gld::gl
