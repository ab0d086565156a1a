// EGL environment: creation, platform choice, reuse of a current context,
// use from another thread, clear errors for a bad device index.
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "gl/egl/egl_environment.h"
#include "gl/egl/gl_objects.h"
#include "gl/gl_test_util.h"

namespace gld::testing {
namespace {

// Sets an environment variable for the scope of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// A one-node graph (x * x) as a smoke test of a working context.
void ExpectSquareRuns(gl::GlDevice& env) {
  GlOpTest t;
  int x = t.InputValues({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  int y = t.Op(OpType::kSquare, {x});
  Status cpu = t.RunCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.ToString();
  Status s = t.RunGpu(env, Precision::kFp32);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::vector<float> out = t.GpuFloats(y);
  ASSERT_EQ(out.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[static_cast<size_t>(i)], float((i + 1) * (i + 1)));
}

TEST(EglEnvironmentTest, CreatesAGles31Context) {
  GLD_REQUIRE_GL(shared);
  auto env = gl::GlDevice::Create();
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  const gl::GlInfo& info = (*env)->info();
  EXPECT_FALSE((*env)->env().reused_context());
  EXPECT_TRUE(info.major > 3 || (info.major == 3 && info.minor >= 1)) << info.version;
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_EQ(info.version.rfind("OpenGL ES", 0), 0u) << info.version;
  EXPECT_GE(info.max_compute_ssbo_blocks, 4);
  EXPECT_GE(info.max_ssbo_size, int64_t{1} << 27);
  EXPECT_GE(info.max_workgroup_count[0], 65535);
  EXPECT_FALSE(info.platform.empty());
  // Nothing stays current on this thread after creation.
  EXPECT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);
  ExpectSquareRuns(**env);
  EXPECT_EQ(eglGetCurrentContext(), EGL_NO_CONTEXT);
}

TEST(EglEnvironmentTest, EachPlatformOnItsOwn) {
  GLD_REQUIRE_GL(shared);
  gl::EglOptions device_only;
  device_only.try_surfaceless_platform = false;
  device_only.try_default_display = false;
  auto device = gl::GlDevice::Create(device_only);
  gl::EglOptions surfaceless_only;
  surfaceless_only.try_device_platform = false;
  surfaceless_only.try_default_display = false;
  auto surfaceless = gl::GlDevice::Create(surfaceless_only);
  // Mesa offers both on every machine that runs these tests.
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  EXPECT_EQ((*device)->info().platform.rfind("device ", 0), 0u) << (*device)->info().platform;
  ExpectSquareRuns(**device);
  ASSERT_TRUE(surfaceless.ok()) << surfaceless.status().ToString();
  EXPECT_EQ((*surfaceless)->info().platform, "surfaceless");
  ExpectSquareRuns(**surfaceless);
}

TEST(EglEnvironmentTest, NoPlatformAllowedIsUnavailable) {
  gl::EglOptions none;
  none.context = ContextMode::kPrivate;
  none.try_device_platform = false;
  none.try_surfaceless_platform = false;
  none.try_default_display = false;
  auto env = gl::GlDevice::Create(none);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(env.status().message().find("disabled"), std::string::npos) << env.status().message();
}

TEST(EglEnvironmentTest, BadDeviceIndexOptionIsAClearError) {
  gl::EglOptions options;
  options.device_index = 99;
  auto env = gl::GlDevice::Create(options);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.status().code(), StatusCode::kUnavailable);
  const std::string& m = env.status().message();
  EXPECT_NE(m.find("EGL device 99"), std::string::npos) << m;
  EXPECT_NE(m.find("device(s)"), std::string::npos) << m;  // says how many there are
}

TEST(EglEnvironmentTest, BadDeviceIndexFromEnvironmentIsAClearError) {
  {
    ScopedEnv e("GLD_EGL_DEVICE", "42");
    auto env = gl::GlDevice::Create();
    ASSERT_FALSE(env.ok());
    EXPECT_EQ(env.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(env.status().message().find("EGL device 42"), std::string::npos) << env.status().message();
  }
  {
    ScopedEnv e("GLD_EGL_DEVICE", "first");
    auto env = gl::GlDevice::Create();
    ASSERT_FALSE(env.ok());
    EXPECT_EQ(env.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(env.status().message().find("GLD_EGL_DEVICE='first'"), std::string::npos)
        << env.status().message();
  }
}

TEST(EglEnvironmentTest, DeviceIndexZeroIsHonoured) {
  GLD_REQUIRE_GL(shared);
  ScopedEnv e("GLD_EGL_DEVICE", "0");
  auto env = gl::GlDevice::Create();
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ((*env)->info().platform, "device 0");
}

TEST(EglEnvironmentTest, ReusesTheCallersCurrentContext) {
  GLD_REQUIRE_GL(shared);
  // The caller's own context, made the way an application would.
  EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  ASSERT_NE(display, EGL_NO_DISPLAY);
  ASSERT_TRUE(eglInitialize(display, nullptr, nullptr));
  ASSERT_TRUE(eglBindAPI(EGL_OPENGL_ES_API));
  const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
  EGLContext mine = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
  ASSERT_NE(mine, EGL_NO_CONTEXT);
  ASSERT_TRUE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, mine));
  {
    auto env = gl::GlDevice::Create();
    ASSERT_TRUE(env.ok()) << env.status().ToString();
    EXPECT_TRUE((*env)->env().reused_context());
    EXPECT_EQ((*env)->env().context(), mine);
    EXPECT_EQ((*env)->info().platform, "current context");
    ExpectSquareRuns(**env);
    EXPECT_EQ(eglGetCurrentContext(), mine);

    // The reused context is current here, so another thread cannot have it.
    Status from_thread;
    std::thread th([&] {
      GlOpTest t;
      int x = t.Input({1, 1, 1, 4});
      t.Op(OpType::kAbs, {x});
      from_thread = t.RunGpu(**env, Precision::kFp32);
    });
    th.join();
    EXPECT_EQ(from_thread.code(), StatusCode::kFailedPrecondition) << from_thread.ToString();
    EXPECT_NE(from_thread.message().find("EGL_BAD_ACCESS"), std::string::npos) << from_thread.message();
  }
  // Destroying the environment leaves the caller's context alive and current.
  EXPECT_EQ(eglGetCurrentContext(), mine);
  GLint major = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  EXPECT_EQ(major, 3);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, mine);
}

TEST(EglEnvironmentTest, IgnoresTheCurrentContextWhenAskedTo) {
  GLD_REQUIRE_GL(shared);
  auto outer = gl::GlDevice::Create();
  ASSERT_TRUE(outer.ok());
  gl::GlEnvironment::ScopedCurrent bind((*outer)->env());
  ASSERT_TRUE(bind.status().ok());
  gl::EglOptions options;
  options.context = ContextMode::kPrivate;
  auto inner = gl::GlDevice::Create(options);
  ASSERT_TRUE(inner.ok()) << inner.status().ToString();
  EXPECT_FALSE((*inner)->env().reused_context());
  EXPECT_NE((*inner)->env().context(), (*outer)->env().context());
  // Creating the inner one restored the outer binding.
  EXPECT_EQ(eglGetCurrentContext(), (*outer)->env().context());
  ExpectSquareRuns(**inner);
  EXPECT_EQ(eglGetCurrentContext(), (*outer)->env().context());
}

TEST(EglEnvironmentTest, UsableFromAnotherThread) {
  GLD_REQUIRE_GL(shared);
  auto env = gl::GlDevice::Create();
  ASSERT_TRUE(env.ok());
  // Build the segment on this thread, run it on others, one at a time.
  GlOpTest t;
  int x = t.Input({2, 3, 4, 5});
  int y = t.Op(OpType::kNeg, {x});
  Status cpu = t.RunCpu();
  ASSERT_TRUE(cpu.ok()) << cpu.ToString();
  Status gpu = t.RunGpu(**env, Precision::kFp32);
  ASSERT_TRUE(gpu.ok()) << gpu.ToString();
  for (int round = 0; round < 3; ++round) {
    std::vector<float> out(static_cast<size_t>(2 * 3 * 4 * 5), 0.f);
    Status s;
    std::thread th([&] {
      const auto& in = t.HostBytes(x);
      s = t.segment->Run({{in.data(), in.size()}}, {{out.data(), out.size() * 4}});
      // The thread keeps nothing current.
      if (eglGetCurrentContext() != EGL_NO_CONTEXT) s = InternalError("context left current");
    });
    th.join();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(out, t.CpuFloats(y));
  }
}

TEST(EglEnvironmentTest, TimerQueryMeasuresSomething) {
  GLD_REQUIRE_GL(env);
  if (!env->info().timer_query) GTEST_SKIP() << "no GL_EXT_disjoint_timer_query";
  gl::GlEnvironment::ScopedCurrent bind(env->env());
  auto q = gl::GlTimerQuery::Create();
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  q->Begin();
  glFinish();
  q->End();
  auto ns = q->ElapsedNs();
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
}

}  // namespace
}  // namespace gld::testing
