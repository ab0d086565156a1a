// zero_copy: an app that keeps a model's input and output on the GPU.
//
// The app has an OpenGL ES 3.1 context of its own (EGL, surfaceless: no
// window). A compute shader of its own draws a synthetic camera frame into an
// RGBA8 texture; the model (a segmentation model such as MediaPipe's
// selfie_segmentation: [1, H, W, 3] in, [1, H, W, 1] out) reads that texture
// straight away (BindInputTexture: the library converts it on the GPU, per
// channel texel * scale + offset) and writes its mask into the app's shader
// storage buffer (BindOutputBuffer). InvokeAsync hands back a fence; the app
// orders its next shader after it (glWaitSync), which darkens the frame's
// background with the mask. No pixel crosses to the CPU on the way
// (transfer_stats() says 0 bytes).
//
// To check itself, it then reads the frame back, runs the same pixels on the
// CPU backend through SetInput/GetOutput and compares the app's composited
// result: exit status 0 when they agree.
//
//   zero_copy MODEL.tflite [gl|auto] [RUNS]
// With RUNS, it also times RUNS invokes each way on the same interpreter:
// through the host (SetInput, Invoke, GetOutput) and zero-copy (Invoke on
// the bound texture and buffer), and prints both.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl31.h>
#include <gldelegate/gldelegate.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

// The app's GL context, current on this thread while it lives.
struct AppContext {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;

  bool Make() {
    auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (get_display == nullptr) return false;
    display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) return false;
    eglBindAPI(EGL_OPENGL_ES_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1, EGL_NONE};
    context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    return context != EGL_NO_CONTEXT && eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context);
  }
  ~AppContext() {
    if (context != EGL_NO_CONTEXT) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
    }
    if (display != EGL_NO_DISPLAY) eglTerminate(display);
  }
};

GLuint Program(const char* source) {
  GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  glLinkProgram(program);
  glDeleteShader(shader);
  GLint linked = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (linked != GL_TRUE) {
    char log[1024] = {};
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    std::fprintf(stderr, "app shader: %s\n", log);
  }
  return program;
}

// The synthetic frame: a lit disc (a "person") on a striped background.
const char* kDrawFrame = R"(#version 310 es
layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba8, binding = 0) writeonly uniform highp image2D frame;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = imageSize(frame);
  if (p.x >= size.x || p.y >= size.y) return;
  vec2 uv = (vec2(p) + 0.5) / vec2(size);
  float disc = 1.0 - smoothstep(0.22, 0.25, distance(uv, vec2(0.5, 0.45)));
  vec3 background = vec3(0.2 + 0.1 * step(0.5, fract(uv.x * 8.0)), 0.35, 0.3);
  vec3 skin = vec3(0.85, 0.6, 0.5) * (0.8 + 0.2 * uv.y);
  imageStore(frame, p, vec4(mix(background, skin, disc), 1.0));
}
)";

// The app's work after the model: the frame's luma, darkened where the mask
// says background.
const char* kComposite = R"(#version 310 es
layout(local_size_x = 8, local_size_y = 8) in;
uniform highp sampler2D frame;
layout(std430, binding = 0) readonly buffer Mask { float v[]; } mask;
layout(std430, binding = 1) writeonly buffer Out { float v[]; } result;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  ivec2 size = textureSize(frame, 0);
  if (p.x >= size.x || p.y >= size.y) return;
  int i = p.y * size.x + p.x;
  float luma = dot(texelFetch(frame, p, 0).rgb, vec3(0.299, 0.587, 0.114));
  result.v[i] = luma * (0.25 + 0.75 * mask.v[i]);
}
)";

GLuint Buffer(size_t bytes) {
  GLuint b = 0;
  glGenBuffers(1, &b);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, b);
  glBufferData(GL_SHADER_STORAGE_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_COPY);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  return b;
}

std::vector<float> ReadFloats(GLuint buffer, size_t n) {
  std::vector<float> v(n);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buffer);
  const void* p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, static_cast<GLsizeiptr>(n * 4), GL_MAP_READ_BIT);
  if (p != nullptr) std::memcpy(v.data(), p, n * 4);
  glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  return v;
}

// The frame's bytes, through a framebuffer.
std::vector<uint8_t> ReadTexture(GLuint texture, int w, int h) {
  std::vector<uint8_t> rgba(static_cast<size_t>(w) * h * 4);
  GLuint fbo = 0;
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo);
  return rgba;
}

double MeanMs(int runs, const std::function<gld::Status()>& run) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < runs; ++i) {
    if (!run().ok()) return -1;
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
}

// Host path and zero-copy path, RUNS invokes each, in one table.
gld::Status TimeBothWays(gld::Interpreter& interp, const std::vector<float>& in, GLuint frame, GLuint mask,
                         int runs) {
  std::vector<float> out(interp.outputs()[0].bytes / sizeof(float));
  GLD_RETURN_IF_ERROR(interp.UnbindInput(0));
  GLD_RETURN_IF_ERROR(interp.UnbindOutput(0));
  const double host_ms = MeanMs(runs, [&] {
    GLD_RETURN_IF_ERROR(interp.SetInput(0, in.data(), in.size() * sizeof(float)));
    GLD_RETURN_IF_ERROR(interp.Invoke());
    return interp.GetOutput(0, out.data(), out.size() * sizeof(float));
  });
  const gld::TransferStats host = interp.transfer_stats();
  gld::TextureInput input;
  input.texture = frame;
  GLD_RETURN_IF_ERROR(interp.BindInputTexture(0, input));
  GLD_RETURN_IF_ERROR(interp.BindOutputBuffer(0, mask));
  const double bound_ms = MeanMs(runs, [&] { return interp.Invoke(); });
  const gld::TransferStats bound = interp.transfer_stats();
  std::printf("%-36s %10s %15s %17s\n", "path", "ms/invoke", "bytes uploaded", "bytes downloaded");
  std::printf("%-36s %10.2f %15llu %17llu\n", "host: SetInput, Invoke, GetOutput", host_ms,
              static_cast<unsigned long long>(host.uploaded_bytes),
              static_cast<unsigned long long>(host.downloaded_bytes));
  std::printf("%-36s %10.2f %15llu %17llu\n", "zero-copy: texture in, SSBO out", bound_ms,
              static_cast<unsigned long long>(bound.uploaded_bytes),
              static_cast<unsigned long long>(bound.downloaded_bytes));
  return gld::OkStatus();
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "zero_copy: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return Fail("usage: zero_copy MODEL.tflite [gl|auto]");
  AppContext app;
  if (!app.Make()) return Fail("cannot make an OpenGL ES 3.1 context (EGL surfaceless platform)");
  auto model = gld::Model::FromFile(argv[1]);
  if (!model.ok()) return Fail(model.status().ToString());
  const gld::TensorInfo& in_info = (*model)->inputs()[0];
  if (in_info.shape.size() != 4 || in_info.shape[3] != 3) return Fail("the model's input is not [1, H, W, 3]");
  const int h = in_info.shape[1], w = in_info.shape[2];
  const size_t pixels = static_cast<size_t>(w) * h;

  // 1. The app draws its frame on the GPU.
  GLuint frame = 0;
  glGenTextures(1, &frame);
  glBindTexture(GL_TEXTURE_2D, frame);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, w, h);
  glBindTexture(GL_TEXTURE_2D, 0);
  GLuint draw = Program(kDrawFrame);
  glUseProgram(draw);
  glBindImageTexture(0, frame, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  glDispatchCompute((w + 7) / 8, (h + 7) / 8, 1);
  glMemoryBarrier(GL_ALL_BARRIER_BITS);

  // 2. The model reads the texture and writes the app's buffer, in the app's context.
  gld::Options options;
  options.backend = argc > 2 && std::string(argv[2]) == "auto" ? gld::Backend::kAuto : gld::Backend::kGl;
  options.context = gld::ContextMode::kCurrent;
  auto interp = gld::Interpreter::Create(**model, options);
  if (!interp.ok()) return Fail(interp.status().ToString());
  if ((*interp)->outputs()[0].bytes != pixels * sizeof(float)) return Fail("the model's output is not [1, H, W, 1]");
  const GLuint mask = Buffer(pixels * sizeof(float));
  gld::TextureInput input;
  input.texture = frame;  // RGBA8 reads as [0, 1]: the range this model wants (scale 1, offset 0)
  gld::Status s = (*interp)->BindInputTexture(0, input);
  if (s.ok()) s = (*interp)->BindOutputBuffer(0, mask);
  void* fence = nullptr;
  if (s.ok()) s = (*interp)->InvokeAsync(&fence);
  if (!s.ok()) return Fail(s.ToString());
  const gld::TransferStats moved = (*interp)->transfer_stats();

  // 3. The app's own shader runs after the model's work.
  glWaitSync(static_cast<GLsync>(fence), 0, GL_TIMEOUT_IGNORED);
  glDeleteSync(static_cast<GLsync>(fence));
  const GLuint result = Buffer(pixels * sizeof(float));
  GLuint composite = Program(kComposite);
  glUseProgram(composite);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, frame);
  glUniform1i(glGetUniformLocation(composite, "frame"), 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, mask);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, result);
  glDispatchCompute((w + 7) / 8, (h + 7) / 8, 1);
  const std::vector<float> on_gpu = ReadFloats(result, pixels);

  // 4. The same pixels through the CPU backend and the host.
  const std::vector<uint8_t> rgba = ReadTexture(frame, w, h);
  std::vector<float> in(pixels * 3);
  for (size_t p = 0; p < pixels; ++p) {
    for (size_t c = 0; c < 3; ++c) in[p * 3 + c] = static_cast<float>(rgba[p * 4 + c]) / 255.0f;
  }
  gld::Options cpu;
  cpu.backend = gld::Backend::kCpu;
  auto reference = gld::Interpreter::Create(**model, cpu);
  if (!reference.ok()) return Fail(reference.status().ToString());
  std::vector<float> cpu_mask(pixels);
  s = (*reference)->SetInput(0, in.data(), in.size() * sizeof(float));
  if (s.ok()) s = (*reference)->Invoke();
  if (s.ok()) s = (*reference)->GetOutput(0, cpu_mask.data(), cpu_mask.size() * sizeof(float));
  if (!s.ok()) return Fail(s.ToString());
  double worst = 0, foreground = 0;
  for (size_t p = 0; p < pixels; ++p) {
    const float luma = 0.299f * in[p * 3] + 0.587f * in[p * 3 + 1] + 0.114f * in[p * 3 + 2];
    const float want = luma * (0.25f + 0.75f * cpu_mask[p]);
    worst = std::max(worst, static_cast<double>(std::fabs(on_gpu[p] - want)));
    foreground += cpu_mask[p] > 0.5f ? 1 : 0;
  }
  std::printf("backend %s (%s), %dx%d frame, foreground %.1f%%\n",
              gld::BackendName((*interp)->report().backend), (*interp)->report().gl_context.c_str(), w, h,
              100.0 * foreground / static_cast<double>(pixels));
  std::printf("host<->GPU bytes in the zero-copy invoke: %llu uploaded, %llu downloaded\n",
              static_cast<unsigned long long>(moved.uploaded_bytes),
              static_cast<unsigned long long>(moved.downloaded_bytes));
  std::printf("app composite vs CPU backend: max abs difference %.3g\n", worst);
  if (moved.uploaded_bytes + moved.downloaded_bytes != 0) return Fail("bytes crossed between host and GPU");
  if (!(worst <= 1e-3)) return Fail("the GPU result differs from the CPU backend's");
  const int runs = argc > 3 ? std::atoi(argv[3]) : 0;
  if (runs > 0) {
    s = TimeBothWays(**interp, in, frame, mask, runs);
    if (!s.ok()) return Fail(s.ToString());
  }
  return 0;
}
