// Zero-copy GL I/O: graph inputs and outputs bound to an app's buffers and
// textures (Interpreter::BindInputBuffer, BindInputTexture,
// BindOutputBuffer), InvokeAsync's fence, and the transfer counters. The
// app's objects are made with plain GL in an app's OpenGL ES 3.1 context on
// the surfaceless platform; every interpreter asks for Backend::kGl.
#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/app_gl_context.h"
#include "common/gl_stack_probe.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"

namespace gld {
namespace {

constexpr int kH = 6, kW = 5, kC = 3, kF = 4;
constexpr size_t kInputFloats = kH * kW * kC, kOutputFloats = kH * kW * kF;

// x [1, 6, 5, 3] -> y = CONV_2D 3x3 SAME + RELU [1, 6, 5, 4] -> z = y * 0.5;
// outputs y and z.
std::shared_ptr<const Model> ConvModel() {
  ModelBuilder b;
  std::vector<float> w(kF * 3 * 3 * kC), bias(kF);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>((i * 7) % 11) / 11.0f - 0.4f;
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.1f * static_cast<float>(i);
  int x = b.AddInput("x", ElementType::kFloat32, {1, kH, kW, kC});
  int wt = b.AddConstantFloat("w", {kF, 3, 3, kC}, w);
  int bt = b.AddConstantFloat("b", {kF}, bias);
  int half = b.AddConstantFloat("half", {1}, {0.5f});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, kH, kW, kF});
  int z = b.AddTensor("z", ElementType::kFloat32, {1, kH, kW, kF});
  Status st = b.AddOp("CONV_2D", {x, wt, bt}, {y},
                      {{"padding", "SAME"}, {"stride_w", 1}, {"stride_h", 1}, {"fused_activation_function", "RELU"}});
  if (st.ok()) st = b.AddOp("MUL", {y, half}, {z});
  b.SetOutputs({y, z});
  auto bytes = b.Finish();
  EXPECT_TRUE(st.ok() && bytes.ok());
  if (!st.ok() || !bytes.ok()) return nullptr;
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

// An int32 input: CAST to float32.
std::shared_ptr<const Model> CastModel() {
  ModelBuilder b;
  int x = b.AddInput("i", ElementType::kInt32, {1, 4});
  int y = b.AddTensor("f", ElementType::kFloat32, {1, 4});
  EXPECT_TRUE(b.AddOp("CAST", {x}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!bytes.ok()) return nullptr;
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  return model.ok() ? *model : nullptr;
}

std::vector<float> Pixels() {
  std::vector<float> v(kInputFloats);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 37) % 23) / 23.0f - 0.3f;
  return v;
}

// An app's OpenGL ES 3.1 context, current on this thread while it lives,
// with its buffers (testing::AppContext) and textures.
class App : public testing::AppContext {
 public:
  ~App() {
    if (ready() && !textures_.empty()) glDeleteTextures(static_cast<GLsizei>(textures_.size()), textures_.data());
  }
  // A w x h 2D texture of `internal` format (immutable storage).
  GLuint Texture(GLenum internal, GLenum type, int w, int h, const void* texels) {
    GLuint t = 0;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexStorage2D(GL_TEXTURE_2D, 1, internal, w, h);
    if (texels != nullptr) glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, type, texels);
    glBindTexture(GL_TEXTURE_2D, 0);
    textures_.push_back(t);
    return t;
  }
  // The app's own work after the model: out[i] = in[i] * 2 + 1 by a compute
  // shader of its own, in its context.
  GLuint Consume(GLuint in, size_t floats) {
    const char* src =
        "#version 310 es\nlayout(local_size_x = 64) in;\n"
        "layout(std430, binding = 0) readonly buffer I { float v[]; } i;\n"
        "layout(std430, binding = 1) writeonly buffer O { float v[]; } o;\n"
        "uniform int n;\n"
        "void main() { int k = int(gl_GlobalInvocationID.x); if (k < n) o.v[k] = i.v[k] * 2.0 + 1.0; }\n";
    GLuint shader = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLuint program = glCreateProgram();
    glAttachShader(program, shader);
    glLinkProgram(program);
    glDeleteShader(shader);
    const GLuint out = Buffer(floats * 4);
    glUseProgram(program);
    glUniform1i(glGetUniformLocation(program, "n"), static_cast<GLint>(floats));
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, in);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, out);
    glDispatchCompute(static_cast<GLuint>((floats + 63) / 64), 1, 1);
    glUseProgram(0);
    glDeleteProgram(program);
    return out;
  }

 private:
  std::vector<GLuint> textures_;
};

std::unique_ptr<Interpreter> MakeInterpreter(const Model& model, Options options) {
  auto interp = Interpreter::Create(model, options);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  return interp.ok() ? std::move(interp).value() : nullptr;
}

Options GlCurrent() {
  Options o;
  o.backend = Backend::kGl;
  o.context = ContextMode::kCurrent;
  return o;
}

// Outputs of one plain run through the host.
std::vector<std::vector<float>> HostRun(Interpreter& interp, const std::vector<float>& in) {
  std::vector<std::vector<float>> outs;
  EXPECT_TRUE(interp.SetInput(0, in.data(), in.size() * 4).ok());
  Status s = interp.Invoke();
  EXPECT_TRUE(s.ok()) << s.ToString();
  for (size_t i = 0; i < interp.outputs().size(); ++i) {
    std::vector<float> out(interp.outputs()[i].bytes / 4);
    EXPECT_TRUE(interp.GetOutput(static_cast<int>(i), out.data(), out.size() * 4).ok());
    outs.push_back(std::move(out));
  }
  return outs;
}

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, float tolerance, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), tolerance * std::max(1.0f, std::fabs(want[i]))) << what << " at " << i;
  }
}

// Each test has an app's context current and the convolution model.
class ZeroCopy : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(app.ready()) << "cannot make the app's OpenGL ES 3.1 context on the surfaceless platform";
    model = ConvModel();
    ASSERT_NE(model, nullptr);
  }
  std::unique_ptr<Interpreter> Make(const Options& options = GlCurrent()) { return MakeInterpreter(*model, options); }
  void CheckTextureInput(GLenum internal, GLenum type, const void* texels, const std::vector<float>& as_floats);

  App app;
  std::shared_ptr<const Model> model;
};

TEST_F(ZeroCopy, BoundBuffersMatchSetInputAndMoveNoBytes) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  ASSERT_EQ(interp->report().gpu_nodes, interp->report().total_nodes);
  const std::vector<float> in = Pixels();
  const auto host = HostRun(*interp, in);
  TransferStats plain = interp->transfer_stats();
  EXPECT_EQ(plain.input_uploaded_bytes, std::vector<uint64_t>{kInputFloats * 4});
  EXPECT_EQ(plain.output_downloaded_bytes, (std::vector<uint64_t>{kOutputFloats * 4, kOutputFloats * 4}));

  const GLuint in_buffer = app.Buffer(kInputFloats * 4, in.data());
  const GLuint y_buffer = app.Buffer(kOutputFloats * 4 + 64);  // larger than needed is fine
  ASSERT_TRUE(interp->BindInputBuffer(0, in_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(0, y_buffer).ok());
  Status s = interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
  const TransferStats bound = interp->transfer_stats();
  EXPECT_EQ(bound.input_uploaded_bytes, std::vector<uint64_t>{0});
  EXPECT_EQ(bound.output_downloaded_bytes, (std::vector<uint64_t>{0, kOutputFloats * 4}));
  EXPECT_EQ(bound.uploaded_bytes, 0u);
  EXPECT_EQ(bound.downloaded_bytes, kOutputFloats * 4);
  ExpectClose(app.Read(y_buffer, kOutputFloats), host[0], 1e-6f, "bound output y");
  std::vector<float> z(kOutputFloats);
  ASSERT_TRUE(interp->GetOutput(1, z.data(), z.size() * 4).ok());
  ExpectClose(z, host[1], 1e-6f, "unbound output z");

  // Bound tensors refuse the host calls, and take them again once unbound.
  EXPECT_EQ(interp->SetInput(0, in.data(), in.size() * 4).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(interp->GetOutput(0, z.data(), z.size() * 4).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(interp->OutputData(0), nullptr);
  ASSERT_TRUE(interp->UnbindInput(0).ok());
  ASSERT_TRUE(interp->UnbindOutput(0).ok());
  const auto again = HostRun(*interp, in);
  ExpectClose(again[0], host[0], 0.0f, "after unbinding");
}

// An output kept in the library's own GPU buffer: the app reads it there.
TEST_F(ZeroCopy, KeptOutputIsReadFromTheLibrarysBuffer) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  const std::vector<float> in = Pixels();
  const auto host = HostRun(*interp, in);
  EXPECT_EQ(interp->OutputGlBuffer(1).status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(interp->KeepOutputOnGpu(1).ok());
  ASSERT_TRUE(interp->SetInput(0, in.data(), in.size() * 4).ok());
  ASSERT_TRUE(interp->Invoke().ok());
  auto buffer = interp->OutputGlBuffer(1);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  ASSERT_NE(*buffer, 0u);
  ExpectClose(app.Read(*buffer, kOutputFloats), host[1], 1e-6f, "kept output z");
  EXPECT_EQ(interp->transfer_stats().output_downloaded_bytes, (std::vector<uint64_t>{kOutputFloats * 4, 0}));
  std::vector<float> z(kOutputFloats);
  EXPECT_EQ(interp->GetOutput(1, z.data(), z.size() * 4).code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(interp->UnbindOutput(1).ok());
  EXPECT_EQ(interp->OutputGlBuffer(1).status().code(), StatusCode::kFailedPrecondition);

  // y read by a CPU node (MUL denied): kept, and still downloaded for it.
  Options o = GlCurrent();
  o.gpu_deny_ops = {"MUL"};
  auto mixed = Make(o);
  ASSERT_NE(mixed, nullptr);
  ASSERT_TRUE(mixed->KeepOutputOnGpu(0).ok());
  Status s = mixed->KeepOutputOnGpu(1);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("is made on the CPU"), std::string::npos) << s.ToString();
  ASSERT_TRUE(mixed->SetInput(0, in.data(), in.size() * 4).ok());
  ASSERT_TRUE(mixed->Invoke().ok());
  ASSERT_TRUE(mixed->GetOutput(1, z.data(), z.size() * 4).ok());
  ExpectClose(z, host[1], 1e-6f, "z on the CPU from kept y");
  ExpectClose(app.Read(*mixed->OutputGlBuffer(0), kOutputFloats), host[0], 1e-6f, "kept y");
}

// x [1, 6, 5, 3] -> y = x + c, c = {1, 2, 3} per channel.
std::shared_ptr<const Model> AddModel() {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, kH, kW, kC});
  int c = b.AddConstantFloat("c", {kC}, {1.0f, 2.0f, 3.0f});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, kH, kW, kC});
  EXPECT_TRUE(b.AddOp("ADD", {x, c}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!bytes.ok()) return nullptr;
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  return model.ok() ? *model : nullptr;
}

// BHWC with C <= 4 -> PHWC4 (one slice: a vec4 per pixel, lanes past C zero).
std::vector<float> ToPhwc4(const std::vector<float>& bhwc, size_t channels) {
  std::vector<float> v(bhwc.size() / channels * 4, 0.0f);
  for (size_t p = 0; p < bhwc.size() / channels; ++p) {
    for (size_t c = 0; c < channels; ++c) v[p * 4 + c] = bhwc[p * channels + c];
  }
  return v;
}

// Buffers in the GPU layout skip the conversion shaders.
TEST_F(ZeroCopy, Phwc4BuffersSkipTheConversion) {
  auto add = AddModel();
  ASSERT_NE(add, nullptr);
  auto interp = MakeInterpreter(*add, GlCurrent());
  ASSERT_NE(interp, nullptr);
  const std::vector<float> in = Pixels();
  const auto host = HostRun(*interp, in);
  const std::vector<float> in_phwc4 = ToPhwc4(in, kC);
  const GLuint in_buffer = app.Buffer(in_phwc4.size() * 4, in_phwc4.data());
  std::vector<float> garbage(in_phwc4.size(), 7.0f);
  const GLuint out_buffer = app.Buffer(garbage.size() * 4, garbage.data());
  Status s = interp->BindInputBuffer(0, app.Buffer(in.size() * 4), GlLayout::kPhwc4);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("holds 360 bytes, the tensor needs 480"), std::string::npos) << s.ToString();
  ASSERT_TRUE(interp->BindInputBuffer(0, in_buffer, GlLayout::kPhwc4).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(0, out_buffer, GlLayout::kPhwc4).ok());
  s = interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectClose(app.Read(out_buffer, garbage.size()), ToPhwc4(host[0], kC), 1e-6f, "PHWC4 output");
  EXPECT_EQ(interp->transfer_stats().uploaded_bytes + interp->transfer_stats().downloaded_bytes, 0u);

  Options fp16 = GlCurrent();
  fp16.precision = Precision::kFp16;
  auto half = MakeInterpreter(*add, fp16);
  ASSERT_NE(half, nullptr);
  s = half->BindInputBuffer(0, in_buffer, GlLayout::kPhwc4);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("this interpreter stores fp16"), std::string::npos) << s.ToString();
}

TEST_F(ZeroCopy, EachValidationErrorSaysWhat) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  const GLuint small = app.Buffer(kInputFloats * 4 - 4);
  const GLuint good = app.Buffer(kInputFloats * 4);

  Status s = interp->BindInputBuffer(1, good);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  s = interp->BindOutputBuffer(-1, good);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.ToString();
  s = interp->BindInputBuffer(0, 0);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("GL name 0"), std::string::npos) << s.ToString();
  s = interp->BindInputBuffer(0, 4242);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not a buffer object"), std::string::npos) << s.ToString();
  s = interp->BindInputBuffer(0, small);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("holds 356 bytes, the tensor needs 360"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("input 0 ('x'"), std::string::npos) << s.ToString();

  auto cast = CastModel();
  ASSERT_NE(cast, nullptr);
  auto cast_interp = MakeInterpreter(*cast, GlCurrent());
  ASSERT_NE(cast_interp, nullptr);
  s = cast_interp->BindInputBuffer(0, good);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("only float32 tensors"), std::string::npos) << s.ToString();
}

// A bound buffer the app deletes afterwards: the next invoke fails, naming it.
TEST_F(ZeroCopy, DeletedBufferFailsTheInvoke) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  GLuint gone = 0;
  glGenBuffers(1, &gone);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, gone);
  glBufferData(GL_SHADER_STORAGE_BUFFER, kOutputFloats * 4, nullptr, GL_DYNAMIC_COPY);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  ASSERT_TRUE(interp->BindOutputBuffer(0, gone).ok());
  glDeleteBuffers(1, &gone);
  const std::vector<float> in = Pixels();
  ASSERT_TRUE(interp->SetInput(0, in.data(), in.size() * 4).ok());
  Status s = interp->Invoke();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("GL buffer " + std::to_string(gone) + " bound to tensor 'y' is not a buffer object"),
            std::string::npos)
      << s.ToString();
}

TEST_F(ZeroCopy, CpuBackendRefusesBindingAndAsync) {
  Options o;
  o.backend = Backend::kCpu;
  auto interp = Make(o);
  ASSERT_NE(interp, nullptr);
  Status s = interp->BindInputBuffer(0, 1);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("needs the GL backend"), std::string::npos) << s.ToString();
  EXPECT_EQ(interp->BindOutputBuffer(0, 1).code(), StatusCode::kFailedPrecondition);
  TextureInput t;
  t.texture = 1;
  EXPECT_EQ(interp->BindInputTexture(0, t).code(), StatusCode::kFailedPrecondition);
  void* fence = nullptr;
  EXPECT_EQ(interp->InvokeAsync(&fence).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(fence, nullptr);
}

TEST_F(ZeroCopy, PrivateContextSharingNothingRefuses) {
  Options o;
  o.backend = Backend::kGl;
  auto interp = Make(o);
  ASSERT_NE(interp, nullptr);
  Status s = interp->BindInputBuffer(0, app.Buffer(kInputFloats * 4));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("shares no objects"), std::string::npos) << s.ToString();
  void* fence = nullptr;
  s = interp->InvokeAsync(&fence);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("InvokeAsync: the library runs in a private context that shares no objects"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(fence, nullptr);
}

// Nodes placed on the CPU (gpu_deny_ops) still read and write the bound
// buffers, through host copies that the counters show.
TEST_F(ZeroCopy, BoundTensorsOfCpuNodesGoThroughTheHost) {
  Options o = GlCurrent();
  o.gpu_deny_ops = {"CONV_2D"};  // y on the CPU, z = y * 0.5 on the GPU
  auto interp = Make(o);
  ASSERT_NE(interp, nullptr);
  ASSERT_EQ(interp->report().gpu_nodes, 1);
  const std::vector<float> in = Pixels();
  const auto host = HostRun(*interp, in);
  const GLuint in_buffer = app.Buffer(kInputFloats * 4, in.data());
  const GLuint y_buffer = app.Buffer(kOutputFloats * 4);
  const GLuint z_buffer = app.Buffer(kOutputFloats * 4);
  ASSERT_TRUE(interp->BindInputBuffer(0, in_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(0, y_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(1, z_buffer).ok());
  Status s = interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectClose(app.Read(y_buffer, kOutputFloats), host[0], 0.0f, "y made on the CPU");
  ExpectClose(app.Read(z_buffer, kOutputFloats), host[1], 0.0f, "z made on the GPU");
  const TransferStats t = interp->transfer_stats();
  EXPECT_EQ(t.downloaded_bytes, kInputFloats * 4);  // x for the CPU's CONV_2D
  EXPECT_EQ(t.output_downloaded_bytes, (std::vector<uint64_t>{0, 0}));
  // y: up to the segment (z's input) and into its bound buffer.
  EXPECT_EQ(t.uploaded_bytes, 2 * kOutputFloats * 4);

  TextureInput tex;
  tex.texture = app.Texture(GL_RGBA32F, GL_FLOAT, kW, kH, nullptr);
  s = interp->BindInputTexture(0, tex);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("on the CPU; a texture input needs every reader on the GPU"), std::string::npos)
      << s.ToString();
}

// InvokeAsync in a private context sharing objects with the app's: the app
// orders its own shader after the fence (glWaitSync in its context) and
// reads what the model wrote.
TEST_F(ZeroCopy, AsyncFenceOrdersTheAppsWork) {
  Options o;
  o.backend = Backend::kGl;
  o.share_egl_display = app.display();
  o.share_egl_context = app.context();
  auto interp = Make(o);
  ASSERT_NE(interp, nullptr);
  const std::vector<float> in = Pixels();
  const auto host = HostRun(*interp, in);
  const GLuint in_buffer = app.Buffer(kInputFloats * 4, in.data());
  glFinish();  // the app's upload is complete before the library's context reads it
  const GLuint y_buffer = app.Buffer(kOutputFloats * 4);
  const GLuint z_buffer = app.Buffer(kOutputFloats * 4);
  ASSERT_TRUE(interp->BindInputBuffer(0, in_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(0, y_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(1, z_buffer).ok());
  for (int run = 0; run < 2; ++run) {
    void* fence = nullptr;
    Status s = interp->InvokeAsync(&fence);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_NE(fence, nullptr);
    EXPECT_EQ(eglGetCurrentContext(), app.context());
    GLsync sync = static_cast<GLsync>(fence);
    ASSERT_TRUE(glIsSync(sync));
    glWaitSync(sync, 0, GL_TIMEOUT_IGNORED);
    const GLuint consumed = app.Consume(y_buffer, kOutputFloats);
    const GLenum waited = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 5000000000ull);
    EXPECT_TRUE(waited == GL_ALREADY_SIGNALED || waited == GL_CONDITION_SATISFIED) << waited;
    glDeleteSync(sync);
    std::vector<float> want = host[0];
    for (float& v : want) v = v * 2.0f + 1.0f;
    ExpectClose(app.Read(consumed, kOutputFloats), want, 1e-6f, "the app's shader on y");
    ExpectClose(app.Read(z_buffer, kOutputFloats), host[1], 1e-6f, "z");
    EXPECT_EQ(interp->transfer_stats().uploaded_bytes + interp->transfer_stats().downloaded_bytes, 0u);
    ASSERT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
  }
}

// x [4, 3] float32 and indices [2] int32 in, y = GATHER(x, indices) out.
std::shared_ptr<const Model> GatherModel() {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {4, 3});
  int idx = b.AddInput("indices", ElementType::kInt32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2, 3});
  EXPECT_TRUE(b.AddOp("GATHER", {x, idx}, {y}, {{"axis", 0}}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  if (!bytes.ok()) return nullptr;
  auto model = Model::FromBuffer(bytes->data(), bytes->size());
  return model.ok() ? *model : nullptr;
}

// An index out of range in an InvokeAsync is found when the GPU is done:
// the next invoke fails with it (and runs nothing), the one after runs.
TEST_F(ZeroCopy, AsyncIndexOutOfRangeFailsTheNextInvoke) {
  GLD_SKIP_IF_GL_ATOMICS_DEFECT();  // the GATHER's index-fault record
  Options o;
  o.backend = Backend::kGl;
  o.share_egl_display = app.display();
  o.share_egl_context = app.context();
  auto gather = GatherModel();
  ASSERT_NE(gather, nullptr);
  auto interp = MakeInterpreter(*gather, o);
  ASSERT_NE(interp, nullptr);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  const GLuint y_buffer = app.Buffer(6 * 4);
  ASSERT_TRUE(interp->BindOutputBuffer(0, y_buffer).ok());
  ASSERT_TRUE(interp->SetInput(0, x.data(), x.size() * 4).ok());
  const std::vector<int32_t> bad = {9, 1}, good = {3, 0};
  ASSERT_TRUE(interp->SetInput(1, bad.data(), bad.size() * 4).ok());
  void* fence = nullptr;
  Status s = interp->InvokeAsync(&fence);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_NE(fence, nullptr);
  GLsync sync = static_cast<GLsync>(fence);
  glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 5000000000ull);
  glDeleteSync(sync);
  ASSERT_TRUE(interp->SetInput(1, good.data(), good.size() * 4).ok());
  s = interp->Invoke();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find("in the previous (async) run: node 0 (GATHER): index 9 out of range [0, 4)"),
            std::string::npos)
      << s.message();
  s = interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectClose(app.Read(y_buffer, 6), {10, 11, 12, 1, 2, 3}, 0.0f, "y after the failed invoke");
}

// A texture input with per-channel scale and offset gives what the CPU
// backend gives for the same normalised pixels.
void ZeroCopy::CheckTextureInput(GLenum internal, GLenum type, const void* texels,
                                 const std::vector<float>& as_floats) {
  const float scale[4] = {2.0f, -1.5f, 0.5f, 9.0f}, offset[4] = {-1.0f, 0.25f, 0.1f, 9.0f};
  std::vector<float> normalised(kInputFloats);
  for (size_t p = 0; p < static_cast<size_t>(kH * kW); ++p) {
    for (size_t c = 0; c < kC; ++c) normalised[p * kC + c] = as_floats[p * 4 + c] * scale[c] + offset[c];
  }
  Options cpu;
  cpu.backend = Backend::kCpu;
  auto reference = Make(cpu);
  ASSERT_NE(reference, nullptr);
  const auto want = HostRun(*reference, normalised);

  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  TextureInput tex;
  tex.texture = app.Texture(internal, type, kW, kH, texels);
  std::copy(scale, scale + 4, tex.scale);
  std::copy(offset, offset + 4, tex.offset);
  Status s = interp->BindInputTexture(0, tex);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = interp->Invoke();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(interp->transfer_stats().input_uploaded_bytes, std::vector<uint64_t>{0});
  std::vector<float> y(kOutputFloats);
  ASSERT_TRUE(interp->GetOutput(0, y.data(), y.size() * 4).ok());
  ExpectClose(y, want[0], 1e-5f, "texture input");
}

TEST_F(ZeroCopy, TextureRgba8WithScaleAndOffsetMatchesTheCpu) {
  std::vector<uint8_t> texels(kH * kW * 4);
  std::vector<float> as_floats(texels.size());
  for (size_t i = 0; i < texels.size(); ++i) {
    texels[i] = static_cast<uint8_t>((i * 53) % 256);
    as_floats[i] = static_cast<float>(texels[i]) / 255.0f;
  }
  CheckTextureInput(GL_RGBA8, GL_UNSIGNED_BYTE, texels.data(), as_floats);
}

TEST_F(ZeroCopy, TextureRgba32fWithScaleAndOffsetMatchesTheCpu) {
  std::vector<float> texels(kH * kW * 4);
  for (size_t i = 0; i < texels.size(); ++i) texels[i] = static_cast<float>((i * 29) % 31) / 7.0f - 2.0f;
  CheckTextureInput(GL_RGBA32F, GL_FLOAT, texels.data(), texels);
}

TEST_F(ZeroCopy, TextureRgba16fWithScaleAndOffsetMatchesTheCpu) {
  std::vector<uint16_t> texels(kH * kW * 4);
  std::vector<float> as_floats(texels.size());
  for (size_t i = 0; i < texels.size(); ++i) {
    as_floats[i] = static_cast<float>(static_cast<int>((i * 13) % 17) - 8) / 8.0f;  // exact in fp16
    texels[i] = FloatToHalf(as_floats[i]);
  }
  CheckTextureInput(GL_RGBA16F, GL_HALF_FLOAT, texels.data(), as_floats);
}

TEST_F(ZeroCopy, TextureValidation) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  TextureInput tex;
  tex.texture = app.Texture(GL_RGBA8, GL_UNSIGNED_BYTE, kW + 1, kH, nullptr);
  Status s = interp->BindInputTexture(0, tex);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is 6x6, the tensor needs 5x6"), std::string::npos) << s.ToString();
  GLuint r8 = 0;
  glGenTextures(1, &r8);
  glBindTexture(GL_TEXTURE_2D, r8);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_R8, kW, kH);
  glBindTexture(GL_TEXTURE_2D, 0);
  tex.texture = r8;
  s = interp->BindInputTexture(0, tex);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("internal format GL_R8"), std::string::npos) << s.ToString();
  tex.texture = app.Buffer(16);  // a buffer's name, no texture
  s = interp->BindInputTexture(0, tex);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("is not a texture"), std::string::npos) << s.ToString();
  glDeleteTextures(1, &r8);
}

// The app's bindings survive bound runs in its own context (as
// tests/api/context_test.cc checks for plain runs).
TEST_F(ZeroCopy, AppStateUnchangedWithBindings) {
  auto interp = Make();
  ASSERT_NE(interp, nullptr);
  std::vector<float> texels(kH * kW * 4, 0.5f);
  TextureInput tex;
  tex.texture = app.Texture(GL_RGBA32F, GL_FLOAT, kW, kH, texels.data());
  const GLuint y_buffer = app.Buffer(kOutputFloats * 4);
  const GLuint mine = app.Buffer(64), my_texture = app.Texture(GL_RGBA8, GL_UNSIGNED_BYTE, 2, 2, nullptr);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, mine);
  glBindBufferRange(GL_SHADER_STORAGE_BUFFER, 2, mine, 0, 32);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, mine);
  glActiveTexture(GL_TEXTURE3);
  glBindTexture(GL_TEXTURE_2D, my_texture);
  glBindBuffer(GL_COPY_READ_BUFFER, mine);
  glBindBuffer(GL_COPY_WRITE_BUFFER, y_buffer);
  const GLuint z_phwc4 = app.Buffer(kOutputFloats * 4);
  auto read = [] {
    std::vector<GLint64> s;
    GLint v = 0;
    for (GLenum e : {GL_CURRENT_PROGRAM, GL_SHADER_STORAGE_BUFFER_BINDING, GL_ACTIVE_TEXTURE, GL_TEXTURE_BINDING_2D,
                     GL_COPY_READ_BUFFER_BINDING, GL_COPY_WRITE_BUFFER_BINDING}) {
      glGetIntegerv(e, &v);
      s.push_back(v);
    }
    for (GLuint i = 0; i < 4; ++i) {
      GLint64 x = 0;
      for (GLenum e :
           {GL_SHADER_STORAGE_BUFFER_BINDING, GL_SHADER_STORAGE_BUFFER_START, GL_SHADER_STORAGE_BUFFER_SIZE}) {
        glGetInteger64i_v(e, i, &x);
        s.push_back(x);
      }
    }
    return s;
  };
  const auto before = read();
  ASSERT_TRUE(interp->BindInputTexture(0, tex).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(0, y_buffer).ok());
  ASSERT_TRUE(interp->BindOutputBuffer(1, z_phwc4, GlLayout::kPhwc4).ok());
  EXPECT_EQ(read(), before) << "after binding";
  ASSERT_TRUE(interp->Invoke().ok());
  EXPECT_EQ(read(), before) << "after Invoke";
  void* fence = nullptr;
  ASSERT_TRUE(interp->InvokeAsync(&fence).ok());
  EXPECT_EQ(read(), before) << "after InvokeAsync";
  glDeleteSync(static_cast<GLsync>(fence));
  interp.reset();
  EXPECT_EQ(read(), before) << "after destruction";
  EXPECT_EQ(glGetError(), static_cast<GLenum>(GL_NO_ERROR));
}

// The C API's side of the same: bind, invoke async, wait, count.
TEST_F(ZeroCopy, CApi) {
  // A convolution (3x3, SAME) through the C API.
  ModelBuilder mb;
  std::vector<float> w(kF * 3 * 3 * kC, 0.25f);
  int x = mb.AddInput("x", ElementType::kFloat32, {1, kH, kW, kC});
  int wt = mb.AddConstantFloat("w", {kF, 3, 3, kC}, w);
  int y = mb.AddTensor("y", ElementType::kFloat32, {1, kH, kW, kF});
  ASSERT_TRUE(mb.AddOp("CONV_2D", {x, wt, -1}, {y}, {{"padding", "SAME"}, {"stride_w", 1}, {"stride_h", 1}}).ok());
  mb.SetOutputs({y});
  auto bytes = mb.Finish();
  ASSERT_TRUE(bytes.ok());
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes->data(), bytes->size(), &model), GLD_OK);
  GldOptions* options = GldOptionsCreate();
  GldOptionsSetBackend(options, GLD_BACKEND_GL);
  GldOptionsSetContextMode(options, GLD_CONTEXT_CURRENT);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  const std::vector<float> in = Pixels();
  std::vector<float> want(kOutputFloats);
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, in.data(), in.size() * 4), GLD_OK);
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK);
  ASSERT_EQ(GldInterpreterGetOutput(interp, 0, want.data(), want.size() * 4), GLD_OK);
  uint64_t up = 0, down = 0;
  ASSERT_EQ(GldInterpreterGetTransferBytes(interp, &up, &down), GLD_OK);
  EXPECT_EQ(up, kInputFloats * 4);
  EXPECT_EQ(down, kOutputFloats * 4);
  ASSERT_EQ(GldInterpreterGetOutputDownloadedBytes(interp, 0, &down), GLD_OK);
  EXPECT_EQ(down, kOutputFloats * 4);

  const GLuint in_buffer = app.Buffer(kInputFloats * 4, in.data());
  const GLuint out_buffer = app.Buffer(kOutputFloats * 4);
  ASSERT_EQ(GldInterpreterBindInputBuffer(interp, 0, in_buffer, GLD_LAYOUT_BHWC), GLD_OK) << GldLastErrorMessage();
  ASSERT_EQ(GldInterpreterBindOutputBuffer(interp, 0, out_buffer, GLD_LAYOUT_BHWC), GLD_OK) << GldLastErrorMessage();
  void* fence = nullptr;
  ASSERT_EQ(GldInterpreterInvokeAsync(interp, &fence), GLD_OK) << GldLastErrorMessage();
  ASSERT_NE(fence, nullptr);
  glWaitSync(static_cast<GLsync>(fence), 0, GL_TIMEOUT_IGNORED);
  glDeleteSync(static_cast<GLsync>(fence));
  ExpectClose(app.Read(out_buffer, kOutputFloats), want, 1e-6f, "C API bound output");
  ASSERT_EQ(GldInterpreterGetTransferBytes(interp, &up, &down), GLD_OK);
  EXPECT_EQ(up + down, 0u);
  ASSERT_EQ(GldInterpreterGetInputUploadedBytes(interp, 0, &up), GLD_OK);
  ASSERT_EQ(GldInterpreterGetOutputDownloadedBytes(interp, 0, &down), GLD_OK);
  EXPECT_EQ(up + down, 0u);
  EXPECT_EQ(GldInterpreterGetOutputDownloadedBytes(interp, 1, &down), GLD_OUT_OF_RANGE);
  EXPECT_EQ(GldInterpreterGetOutput(interp, 0, want.data(), want.size() * 4), GLD_FAILED_PRECONDITION);

  EXPECT_EQ(GldInterpreterBindOutputBuffer(interp, 3, out_buffer, GLD_LAYOUT_BHWC), GLD_OUT_OF_RANGE);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("output index 3 is out of range"), std::string::npos);
  EXPECT_EQ(GldInterpreterBindInputBuffer(interp, 0, 0, GLD_LAYOUT_BHWC), GLD_INVALID_ARGUMENT);
  const GLuint texture = app.Texture(GL_RGBA32F, GL_FLOAT, kW, kH, nullptr);
  EXPECT_EQ(GldInterpreterBindInputTexture(interp, 0, texture, nullptr, nullptr), GLD_OK) << GldLastErrorMessage();
  EXPECT_EQ(GldInterpreterUnbindInput(interp, 0), GLD_OK);
  uint32_t kept = 0;
  EXPECT_EQ(GldInterpreterGetOutputGlBuffer(interp, 0, &kept), GLD_FAILED_PRECONDITION);
  ASSERT_EQ(GldInterpreterUnbindOutput(interp, 0), GLD_OK);
  ASSERT_EQ(GldInterpreterKeepOutputOnGpu(interp, 0), GLD_OK) << GldLastErrorMessage();
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, in.data(), in.size() * 4), GLD_OK);
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK);
  ASSERT_EQ(GldInterpreterGetOutputGlBuffer(interp, 0, &kept), GLD_OK);
  ExpectClose(app.Read(kept, kOutputFloats), want, 1e-6f, "C API kept output");
  EXPECT_EQ(GldInterpreterUnbindOutput(interp, 0), GLD_OK);
  EXPECT_EQ(GldInterpreterInvokeAsync(nullptr, &fence), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterBindInputBuffer(nullptr, 0, 1, GLD_LAYOUT_BHWC), GLD_INVALID_ARGUMENT);
  EXPECT_EQ(GldInterpreterBindInputBuffer(interp, 0, in_buffer, static_cast<GldGlLayout>(5)), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("unknown layout 5"), std::string::npos);
  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
