// The app's GL context (Options::context): for each mode, with the app's own
// OpenGL ES 3.1 context, a desktop OpenGL context, or none current, an
// Interpreter's Create, Invoke and destruction leave the app's current
// context, bound client API, current program and shader storage buffer and
// texture bindings as the app set them, and the interpreter computes the
// right values. The app's state is read with plain EGL/GL queries.
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gldelegate/gldelegate.hpp"
#include "test_models.h"

namespace gld {
namespace {

// What an app sees of its own EGL/GL state.
struct AppState {
  EGLContext context = EGL_NO_CONTEXT;
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLenum api = EGL_NONE;
  GLint program = 0, ssbo = 0, active_texture = 0, texture_2d = 0;
  std::vector<GLint> ssbo_indexed;  // binding points 0..7
  std::vector<GLint64> ssbo_start, ssbo_size;

  static AppState Read() {
    AppState s;
    s.context = eglGetCurrentContext();
    s.display = eglGetCurrentDisplay();
    s.api = eglQueryAPI();
    if (s.context == EGL_NO_CONTEXT) return s;
    glGetIntegerv(GL_CURRENT_PROGRAM, &s.program);
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &s.ssbo);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s.active_texture);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s.texture_2d);
    for (GLuint i = 0; i < 8; ++i) {
      GLint b = 0;
      GLint64 start = 0, size = 0;
      glGetIntegeri_v(GL_SHADER_STORAGE_BUFFER_BINDING, i, &b);
      glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_START, i, &start);
      glGetInteger64i_v(GL_SHADER_STORAGE_BUFFER_SIZE, i, &size);
      s.ssbo_indexed.push_back(b);
      s.ssbo_start.push_back(start);
      s.ssbo_size.push_back(size);
    }
    return s;
  }
};

void ExpectSame(const AppState& want, const char* when) {
  const AppState got = AppState::Read();
  EXPECT_EQ(got.context, want.context) << when;
  EXPECT_EQ(got.display, want.display) << when;
  EXPECT_EQ(got.api, want.api) << when;
  EXPECT_EQ(got.program, want.program) << when;
  EXPECT_EQ(got.ssbo, want.ssbo) << when;
  EXPECT_EQ(got.active_texture, want.active_texture) << when;
  EXPECT_EQ(got.texture_2d, want.texture_2d) << when;
  EXPECT_EQ(got.ssbo_indexed, want.ssbo_indexed) << when;
  EXPECT_EQ(got.ssbo_start, want.ssbo_start) << when;
  EXPECT_EQ(got.ssbo_size, want.ssbo_size) << when;
}

enum class AppApi { kGles31, kDesktopGl };

// An app's context on the surfaceless platform, current on this thread,
// with a program in use, buffers bound at SSBO points 0 and 3 (a range) and
// as the generic binding, and a texture on unit 2.
class AppContext {
 public:
  explicit AppContext(AppApi api) {
    display_ = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display_ == EGL_NO_DISPLAY || !eglInitialize(display_, nullptr, nullptr)) return;
    std::vector<EGLint> attribs;
    if (api == AppApi::kGles31) {
      eglBindAPI(EGL_OPENGL_ES_API);
      attribs = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
    } else {
      eglBindAPI(EGL_OPENGL_API);
      attribs = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                 EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    }
    context_ = eglCreateContext(display_, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs.data());
    if (context_ == EGL_NO_CONTEXT || !eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_)) {
      context_ = EGL_NO_CONTEXT;
      return;
    }
    const char* source = api == AppApi::kGles31
                             ? "#version 310 es\nlayout(local_size_x = 1) in;\n"
                               "layout(std430, binding = 0) buffer B { float v[]; };\nvoid main() { v[0] = 1.0; }\n"
                             : "#version 430\nlayout(local_size_x = 1) in;\n"
                               "layout(std430, binding = 0) buffer B { float v[]; };\nvoid main() { v[0] = 1.0; }\n";
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    program_ = glCreateProgram();
    glAttachShader(program_, shader);
    glLinkProgram(program_);
    glDeleteShader(shader);
    GLint linked = 0;
    glGetProgramiv(program_, GL_LINK_STATUS, &linked);
    glUseProgram(program_);
    glGenBuffers(3, buffers_);
    for (GLuint b : buffers_) {
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
      glBufferData(GL_SHADER_STORAGE_BUFFER, 1024, nullptr, GL_DYNAMIC_DRAW);
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers_[0]);
    glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 3, buffers_[1], 256, 512);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffers_[2]);
    glGenTextures(1, &texture_);
    glActiveTexture(GL_TEXTURE2);
    glBindTexture(GL_TEXTURE_2D, texture_);
    ready_ = linked == GL_TRUE && glGetError() == GL_NO_ERROR;
  }
  ~AppContext() {
    if (context_ == EGL_NO_CONTEXT) return;
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_);
    glDeleteBuffers(3, buffers_);
    glDeleteTextures(1, &texture_);
    glDeleteProgram(program_);
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglBindAPI(EGL_OPENGL_ES_API);
  }
  bool ready() const { return ready_; }
  EGLDisplay display() const { return display_; }
  EGLContext context() const { return context_; }

 private:
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  GLuint program_ = 0, texture_ = 0;
  GLuint buffers_[3] = {0, 0, 0};
  bool ready_ = false;
};

std::shared_ptr<const Model> LoadAddRelu() {
  auto bytes = testing::AddReluModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

// Creates, invokes and destroys an interpreter in `mode`, checking the app's
// state after each step and the values computed; returns the report's
// gl_context (or the error of Create).
std::string RunChecked(ContextMode mode, Options options = {}) {
  std::shared_ptr<const Model> model = LoadAddRelu();
  if (model == nullptr) return "no model";
  const AppState before = AppState::Read();
  options.backend = Backend::kGl;
  options.context = mode;
  std::string context;
  {
    auto interp = Interpreter::Create(*model, options);
    ExpectSame(before, "after Create");
    if (!interp.ok()) return interp.status().ToString();
    EXPECT_EQ((*interp)->report().backend, Backend::kGl);
    EXPECT_EQ((*interp)->report().gpu_nodes, (*interp)->report().total_nodes);
    context = (*interp)->report().gl_context;
    const float in[4] = {-3, -1, 1, 3};
    float out[4] = {};
    EXPECT_TRUE((*interp)->SetInput(0, in, sizeof in).ok());
    Status s = (*interp)->Invoke();
    EXPECT_TRUE(s.ok()) << s.ToString();
    ExpectSame(before, "after Invoke");
    EXPECT_TRUE((*interp)->GetOutput(0, out, sizeof out).ok());
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 0.0f);
    EXPECT_EQ(out[2], 2.0f);
    EXPECT_EQ(out[3], 4.0f);
  }
  ExpectSame(before, "after the Interpreter's destruction");
  return context;
}

#define GLD_REQUIRE_APP_CONTEXT(app)                                         \
  if (!(app).ready()) {                                                      \
    FAIL() << "cannot make the app's context on the surfaceless platform"; \
  }

TEST(ContextMode, PrivateLeavesTheAppsEsContextAlone) {
  AppContext app(AppApi::kGles31);
  GLD_REQUIRE_APP_CONTEXT(app);
  EXPECT_EQ(RunChecked(ContextMode::kPrivate), "private");
}

TEST(ContextMode, CurrentReusesTheAppsEsContextAndRestoresItsBindings) {
  AppContext app(AppApi::kGles31);
  GLD_REQUIRE_APP_CONTEXT(app);
  EXPECT_EQ(RunChecked(ContextMode::kCurrent), "the app's current context");
  EXPECT_EQ(RunChecked(ContextMode::kCurrentIfAny), "the app's current context");
}

TEST(ContextMode, PrivateSharingObjectsWithTheAppsContext) {
  AppContext app(AppApi::kGles31);
  GLD_REQUIRE_APP_CONTEXT(app);
  Options options;
  options.share_egl_display = app.display();
  options.share_egl_context = app.context();
  EXPECT_EQ(RunChecked(ContextMode::kPrivate, options), "private (shared with the app's context)");
}

TEST(ContextMode, WithNoContextCurrent) {
  ASSERT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);
  EXPECT_EQ(RunChecked(ContextMode::kPrivate), "private");
  EXPECT_EQ(RunChecked(ContextMode::kCurrentIfAny), "private");
  const std::string error = RunChecked(ContextMode::kCurrent);
  EXPECT_NE(error.find("FAILED_PRECONDITION"), std::string::npos) << error;
  EXPECT_NE(error.find("no EGL context is current"), std::string::npos) << error;
}

TEST(ContextMode, DesktopGlContextCurrentGetsAPrivateContext) {
  AppContext app(AppApi::kDesktopGl);
  GLD_REQUIRE_APP_CONTEXT(app);
  ASSERT_EQ(eglQueryAPI(), static_cast<EGLenum>(EGL_OPENGL_API));
  EXPECT_EQ(RunChecked(ContextMode::kPrivate), "private");
  EXPECT_EQ(RunChecked(ContextMode::kCurrentIfAny), "private");
  const std::string error = RunChecked(ContextMode::kCurrent);
  EXPECT_NE(error.find("desktop OpenGL"), std::string::npos) << error;
  // Sharing objects between an OpenGL ES and a desktop OpenGL context is up
  // to the EGL driver (Mesa allows it): either it works, with the app's
  // state kept, or Create says so clearly.
  Options options;
  options.share_egl_display = app.display();
  options.share_egl_context = app.context();
  const std::string shared = RunChecked(ContextMode::kPrivate, options);
  EXPECT_TRUE(shared == "private (shared with the app's context)" ||
              shared.find("cannot make an OpenGL ES 3.1 context sharing objects with the app's context") !=
                  std::string::npos)
      << shared;
}

TEST(ContextMode, NamesRoundTrip) {
  for (ContextMode m : {ContextMode::kPrivate, ContextMode::kCurrentIfAny, ContextMode::kCurrent}) {
    auto parsed = ParseContextMode(ContextModeName(m));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_NE(ParseContextMode("mine").status().message().find("'mine'"), std::string::npos);
}

}  // namespace
}  // namespace gld
