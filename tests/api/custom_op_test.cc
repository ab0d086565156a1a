// Custom ops (gldelegate/custom_op.hpp): an app's op with a CPU kernel only
// and with a GL kernel too, its custom options, registration errors, an
// unregistered op, versions, Options isolation, the program cache and the C
// API. GL runs request Backend::kGl.
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/gl_stack_probe.h"
#include "common/tool_run.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"

namespace gld {
namespace {

constexpr int kChannels = 7;  // two PHWC4 slices, the second padded
const std::vector<int> kShape = {1, 5, 3, kChannels};

std::vector<uint8_t> AffineOptions(double scale, double shift) {
  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Double("scale", scale);
    fbb.Float("shift", static_cast<float>(shift));
    fbb.String("note", "read by the kernel");
  });
  fbb.Finish();
  return fbb.GetBuffer();
}

// The op's parameters, read from its custom options with CustomOptionsMap.
struct Affine {
  float scale = 1, shift = 0;
};
Status ReadAffine(const CustomOpNode& node, Affine* out) {
  GLD_ASSIGN_OR_RETURN(CustomOptionsMap map, CustomOptionsMap::Parse(node.options, node.options_size));
  GLD_ASSIGN_OR_RETURN(double scale, map.Float("scale"));
  GLD_ASSIGN_OR_RETURN(double shift, map.Float("shift"));
  out->scale = static_cast<float>(scale);
  out->shift = static_cast<float>(shift);
  return OkStatus();
}

// ChannelAffine: y[..., c] = x[..., c] * scale + shift * (c + 1).
const char kAffineGlsl[] = R"(
void main() {
  ivec3 gid = ivec3(gl_GlobalInvocationID);
  GRID_GUARD(gid);
  int slices = slices_of(u_out0);
  int b = gid.z / slices, s = gid.z % slices;
  vec4 c = vec4(4 * s) + vec4(1.0, 2.0, 3.0, 4.0);  // the lanes' channels, counted from 1
  write_output0(b, gid.y, gid.x, s, read_input0(b, gid.y, gid.x, s) * u_params[0].x + u_params[0].y * c);
}
)";

CustomOp AffineOp(bool with_gl, const std::string& glsl = kAffineGlsl) {
  CustomOp op;
  op.name = "ChannelAffine";
  op.shape = [](CustomOpNode* node) {
    if (node->inputs.size() != 1 || node->outputs.size() != 1) return InvalidArgumentError("1 input, 1 output");
    if (node->inputs[0].type != ElementType::kFloat32) return InvalidArgumentError("float32 only");
    Affine a;
    GLD_RETURN_IF_ERROR(ReadAffine(*node, &a));  // options checked before anything runs
    node->outputs[0] = node->inputs[0];
    return OkStatus();
  };
  op.prepare = [](const CustomOpNode& node, std::shared_ptr<void>* state) {
    auto a = std::make_shared<Affine>();
    GLD_RETURN_IF_ERROR(ReadAffine(node, a.get()));
    *state = a;
    return OkStatus();
  };
  op.run = [](const CustomCpuRun& run) {
    const Affine& a = *static_cast<const Affine*>(run.state);
    const std::vector<int32_t>& shape = run.node->inputs[0].shape;
    size_t n = 1;
    for (int32_t d : shape) n *= static_cast<size_t>(d);
    const size_t channels = static_cast<size_t>(shape.back());
    const float* x = static_cast<const float*>(run.inputs[0]);
    float* y = static_cast<float*>(run.outputs[0]);
    for (size_t i = 0; i < n; ++i) y[i] = x[i] * a.scale + a.shift * static_cast<float>(i % channels + 1);
    return OkStatus();
  };
  if (with_gl) {
    op.gl.source = glsl;
    op.gl.configure = [](const CustomOpNode& node, CustomGlDispatch* d) {
      Affine a;
      GLD_RETURN_IF_ERROR(ReadAffine(node, &a));
      d->params[0] = a.scale;
      d->params[1] = a.shift;
      return OkStatus();
    };
  }
  return op;
}

std::vector<float> Bias() {
  std::vector<float> b(kChannels);
  for (int c = 0; c < kChannels; ++c) b[static_cast<size_t>(c)] = 0.1f * static_cast<float>(c) - 0.3f;
  return b;
}

// y = (x + bias) -> ChannelAffine -> * 0.5: ADD and MUL run on the GPU.
std::vector<uint8_t> AffineModel(const std::vector<uint8_t>& options, int version = 1,
                                 const std::string& name = "ChannelAffine") {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, kShape);
  int bias = b.AddConstantFloat("bias", {kChannels}, Bias());
  int half = b.AddConstantFloat("half", {1}, {0.5f});
  int s = b.AddTensor("s", ElementType::kFloat32, kShape);
  int a = b.AddTensor("a", ElementType::kFloat32, kShape);
  int y = b.AddTensor("y", ElementType::kFloat32, kShape);
  Status st = b.AddOp("ADD", {x, bias}, {s});
  if (st.ok()) st = b.AddCustomOp(name, {s}, {a}, options, version);
  if (st.ok()) st = b.AddOp("MUL", {a, half}, {y});
  b.SetOutputs({y});
  auto bytes = b.Finish();
  EXPECT_TRUE(st.ok() && bytes.ok());
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

std::vector<float> Input() {
  std::vector<float> x(5 * 3 * kChannels);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.7f * static_cast<float>(i));
  return x;
}

std::vector<float> Expected(float scale, float shift) {
  const std::vector<float> x = Input(), bias = Bias();
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const size_t c = i % kChannels;
    y[i] = ((x[i] + bias[c]) * scale + shift * static_cast<float>(c + 1)) * 0.5f;
  }
  return y;
}

struct Ran {
  InterpreterReport report;
  std::vector<float> y;
};

StatusOr<Ran> RunModel(const std::vector<uint8_t>& bytes, const Options& options) {
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromBuffer(bytes.data(), bytes.size()));
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> interp, Interpreter::Create(*model, options));
  const std::vector<float> x = Input();
  GLD_RETURN_IF_ERROR(interp->SetInput(0, x.data(), x.size() * 4));
  GLD_RETURN_IF_ERROR(interp->Invoke());
  Ran r;
  r.y.resize(x.size());
  GLD_RETURN_IF_ERROR(interp->GetOutput(0, r.y.data(), r.y.size() * 4));
  r.report = interp->report();
  return r;
}

Options WithOp(Backend backend, CustomOp op, Precision precision = Precision::kFp32) {
  Options o;
  o.backend = backend;
  o.precision = precision;
  Status s = RegisterCustomOp(&o, std::move(op));
  EXPECT_TRUE(s.ok()) << s.ToString();
  return o;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tolerance) {
  ASSERT_EQ(got.size(), want.size());
  float worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  EXPECT_LE(worst, tolerance);
}

const PlacementInfo& CustomNode(const InterpreterReport& r) {
  for (const PlacementInfo& p : r.nodes) {
    if (p.op == "ChannelAffine") return p;
  }
  static const PlacementInfo none;
  ADD_FAILURE() << "no ChannelAffine node in the report";
  return none;
}

TEST(CustomOp, CpuKernelOnlyRunsOnTheCpuBetweenGpuSegments) {
  auto r = RunModel(AffineModel(AffineOptions(2.0, 0.25)), WithOp(Backend::kGl, AffineOp(false)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->report.backend, Backend::kGl);
  EXPECT_EQ(r->report.gpu_nodes, 2);
  EXPECT_EQ(r->report.segments, 2);
  const PlacementInfo& p = CustomNode(r->report);
  EXPECT_FALSE(p.on_gpu);
  EXPECT_NE(p.reason.find("ChannelAffine: custom op registered without a GL kernel (CPU only)"), std::string::npos)
      << p.reason;
  EXPECT_EQ(p.label, "node 1 (ChannelAffine)");
  ExpectNear(r->y, Expected(2.0f, 0.25f), 1e-6f);
}

// With a GL kernel the whole model is one segment; its values are the CPU
// kernel's.
TEST(CustomOp, GlKernelKeepsOneSegmentAndMatchesTheCpuKernel) {
  GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();  // fp16 storage packs halves
  const std::vector<uint8_t> model = AffineModel(AffineOptions(-1.5, 0.125));
  auto cpu = RunModel(model, WithOp(Backend::kCpu, AffineOp(true)));
  ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
  ExpectNear(cpu->y, Expected(-1.5f, 0.125f), 1e-6f);
  const struct {
    Precision precision;
    float tolerance;
  } cases[] = {{Precision::kFp32, 1e-6f}, {Precision::kFp16, 1e-3f}, {Precision::kFp16Mediump, 1e-3f}};
  for (const auto& c : cases) {
    SCOPED_TRACE(PrecisionName(c.precision));
    auto gl = RunModel(model, WithOp(Backend::kGl, AffineOp(true), c.precision));
    ASSERT_TRUE(gl.ok()) << gl.status().ToString();
    EXPECT_EQ(gl->report.gpu_nodes, 3);
    EXPECT_EQ(gl->report.segments, 1);
    EXPECT_TRUE(CustomNode(gl->report).on_gpu);
    ExpectNear(gl->y, cpu->y, c.tolerance);
  }
}

// The kernels read the options of each node: two option sets, two results.
TEST(CustomOp, KernelsReadTheCustomOptions) {
  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    SCOPED_TRACE(BackendName(backend));
    for (auto [scale, shift] : {std::pair<float, float>{3.0f, -0.5f}, {0.5f, 2.0f}}) {
      auto r = RunModel(AffineModel(AffineOptions(scale, shift)), WithOp(backend, AffineOp(true)));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ExpectNear(r->y, Expected(scale, shift), 1e-5f);
    }
  }
  // Options the shape function cannot read fail creation, naming the node.
  auto r = RunModel(AffineModel({1, 2, 3}), WithOp(Backend::kCpu, AffineOp(true)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node 1 (ChannelAffine): shape function: custom options are not a valid "
                                      "flexbuffer (3 bytes)"),
            std::string::npos)
      << r.status().ToString();
}

TEST(CustomOp, RegistrationErrors) {
  Options o;
  auto expect_error = [&](CustomOp op, const std::string& message) {
    Status s = RegisterCustomOp(&o, std::move(op));
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find(message), std::string::npos) << s.ToString();
  };
  CustomOp unnamed = AffineOp(true);
  unnamed.name.clear();
  expect_error(unnamed, "a custom op needs a name");
  CustomOp no_run = AffineOp(true);
  no_run.run = nullptr;
  expect_error(no_run, "custom op 'ChannelAffine' has no CPU kernel (run)");
  CustomOp no_shape = AffineOp(true);
  no_shape.shape = nullptr;
  expect_error(no_shape, "custom op 'ChannelAffine' has no shape function");
  CustomOp negative = AffineOp(true);
  negative.version = -1;
  expect_error(negative, "version -1 is negative");
  ASSERT_TRUE(RegisterCustomOp(&o, AffineOp(true)).ok());
  expect_error(AffineOp(false), "custom op 'ChannelAffine' (every version) is already registered on these options");
  EXPECT_EQ(o.custom_ops.size(), 1u);
  EXPECT_EQ(RegisterCustomOp(nullptr, AffineOp(true)).code(), StatusCode::kInvalidArgument);
}

// A GL source that does not compile fails a GL interpreter with the op's
// name and the compiler's log.
TEST(CustomOp, GlSourceThatFailsToCompileNamesTheOpAndTheLog) {
  auto r = RunModel(AffineModel(AffineOptions(1, 0)),
                    WithOp(Backend::kGl, AffineOp(true, "void main() { vec4 v = no_such_function(1.0); }\n")));
  ASSERT_FALSE(r.ok());
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("custom op 'ChannelAffine' for node 1 (ChannelAffine)"), std::string::npos) << m;
  EXPECT_NE(m.find("no_such_function"), std::string::npos) << m;
}

TEST(CustomOp, UnregisteredOpFailsNamingItAndHowToRegister) {
  const std::vector<uint8_t> model = AffineModel(AffineOptions(1, 0), 2, "Unheard");
  auto loaded = Model::FromBuffer(model.data(), model.size());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();  // loading needs no registration
  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    Options o;
    o.backend = backend;
    ASSERT_TRUE(RegisterCustomOp(&o, AffineOp(true)).ok());  // another name
    auto r = Interpreter::Create(**loaded, o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(r.status().message().find("node 1 (Unheard): custom op 'Unheard' (version 2) is not registered: "
                                        "register it on the Options (gld::RegisterCustomOp, GldOptionsAddCustomOp)"),
              std::string::npos)
        << r.status().ToString();
  }
  const std::vector<CustomOpUse> uses = CustomOpsOf(**loaded, Options());
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].name, "Unheard");
  EXPECT_EQ(uses[0].version, 2);
  EXPECT_FALSE(uses[0].registered);
}

// The exact version's registration wins over a version-0 one; each Options
// value has its own ops.
TEST(CustomOp, VersionsAndOptionsAreSeparate) {
  auto scaled = [](float factor, int version) {
    CustomOp op = AffineOp(false);
    op.version = version;
    op.prepare = nullptr;
    op.run = [factor](const CustomCpuRun& run) {
      const float* x = static_cast<const float*>(run.inputs[0]);
      float* y = static_cast<float*>(run.outputs[0]);
      for (size_t i = 0; i < 5 * 3 * kChannels; ++i) y[i] = x[i] * factor;
      return OkStatus();
    };
    return op;
  };
  Options o;
  o.backend = Backend::kCpu;
  ASSERT_TRUE(RegisterCustomOp(&o, scaled(2.0f, 0)).ok());
  ASSERT_TRUE(RegisterCustomOp(&o, scaled(3.0f, 2)).ok());
  Options other = o;  // copies share what was registered so far...
  other.custom_ops.clear();
  ASSERT_TRUE(RegisterCustomOp(&other, scaled(5.0f, 0)).ok());  // ...and may differ after
  const std::vector<float> x = Input(), bias = Bias();
  auto check = [&](const Options& opts, int version, float factor) {
    auto r = RunModel(AffineModel(AffineOptions(1, 0), version), opts);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = (x[i] + bias[i % kChannels]) * factor * 0.5f;
    ExpectNear(r->y, want, 1e-6f);
  };
  check(o, 1, 2.0f);
  check(o, 2, 3.0f);
  check(other, 2, 5.0f);
}

// The program cache keys on the full source: two GL kernels of one name
// and one cache folder each run their own program.
TEST(CustomOp, ProgramCacheKeysOnTheCustomSource) {
  const std::filesystem::path dir = testing::FreshTestDir("gld_custom_op_cache");
  std::string doubled = kAffineGlsl;
  const std::string scale = "* u_params[0].x";
  ASSERT_NE(doubled.find(scale), std::string::npos);
  doubled.replace(doubled.find(scale), scale.size(), "* (2.0 * u_params[0].x)");
  const std::vector<uint8_t> model = AffineModel(AffineOptions(1.5, 0.5));
  for (int round = 0; round < 2; ++round) {  // the second round reads the programs from the cache
    Options a = WithOp(Backend::kGl, AffineOp(true)), b = WithOp(Backend::kGl, AffineOp(true, doubled));
    a.cache_dir = b.cache_dir = dir.string();
    auto ra = RunModel(model, a);
    auto rb = RunModel(model, b);
    ASSERT_TRUE(ra.ok() && rb.ok()) << ra.status().ToString() << rb.status().ToString();
    ExpectNear(ra->y, Expected(1.5f, 0.5f), 1e-6f);
    ExpectNear(rb->y, Expected(3.0f, 0.5f), 1e-6f);
    if (round == 1) {
      EXPECT_GT(ra->report.cache_hits + rb->report.cache_hits, 0);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(CustomOp, CallbackErrorsNameTheNode) {
  CustomOp op = AffineOp(false);
  op.prepare = [](const CustomOpNode&, std::shared_ptr<void>*) { return InvalidArgumentError("refused"); };
  auto r = RunModel(AffineModel(AffineOptions(1, 0)), WithOp(Backend::kCpu, op));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node 1 (ChannelAffine): prepare: refused"), std::string::npos)
      << r.status().ToString();
  op = AffineOp(false);
  op.shape = [](CustomOpNode* node) {
    node->outputs[0].type = ElementType::kFloat32;
    node->outputs[0].shape = {-3};
    return OkStatus();
  };
  r = RunModel(AffineModel(AffineOptions(1, 0)), WithOp(Backend::kCpu, op));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node 1 (ChannelAffine): shape function gave output 0 the invalid shape"),
            std::string::npos)
      << r.status().ToString();
}

TEST(CustomOp, ThrownExceptionsBecomeErrors) {
  CustomOp op = AffineOp(false);
  op.run = [](const CustomCpuRun&) -> Status { throw std::runtime_error("kernel bug"); };
  const std::vector<uint8_t> bytes = AffineModel(AffineOptions(1, 0));
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  auto interp = Interpreter::Create(**model, WithOp(Backend::kCpu, op));
  ASSERT_TRUE(interp.ok()) << interp.status().ToString();
  const std::vector<float> x = Input();
  ASSERT_TRUE((*interp)->SetInput(0, x.data(), x.size() * 4).ok());
  Status s = (*interp)->Invoke();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("node 1 (ChannelAffine): run: threw: kernel bug"), std::string::npos) << s.ToString();
}

// configure may choose the workgroup and grid; one it cannot use keeps the
// node on the CPU with the reason.
TEST(CustomOp, GlConfigureSetsWorkgroupAndGrid) {
  CustomOp op = AffineOp(true);
  auto base = op.gl.configure;
  op.gl.configure = [base](const CustomOpNode& node, CustomGlDispatch* d) {
    GLD_RETURN_IF_ERROR(base(node, d));
    d->workgroup = {2, 2, 1};
    return OkStatus();
  };
  auto r = RunModel(AffineModel(AffineOptions(0.5, 1)), WithOp(Backend::kGl, op));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->report.segments, 1);
  ExpectNear(r->y, Expected(0.5f, 1.0f), 1e-6f);

  op.gl.configure = [base](const CustomOpNode& node, CustomGlDispatch* d) {
    GLD_RETURN_IF_ERROR(base(node, d));
    d->workgroup = {0, 4, 4};
    return OkStatus();
  };
  r = RunModel(AffineModel(AffineOptions(0.5, 1)), WithOp(Backend::kGl, op));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(CustomNode(r->report).on_gpu);
  EXPECT_NE(CustomNode(r->report).reason.find("GL configure set workgroup 0x4x4"), std::string::npos)
      << CustomNode(r->report).reason;
  ExpectNear(r->y, Expected(0.5f, 1.0f), 1e-6f);
}

TEST(CustomOptionsMap, ReadsAFlexbufferMap) {
  const std::vector<uint8_t> bytes = AffineOptions(2.5, -1);
  auto map = CustomOptionsMap::Parse(bytes.data(), bytes.size());
  ASSERT_TRUE(map.ok()) << map.status().ToString();
  EXPECT_EQ(map->Keys(), (std::vector<std::string>{"note", "scale", "shift"}));
  EXPECT_TRUE(map->Has("scale"));
  EXPECT_FALSE(map->Has("nope"));
  EXPECT_EQ(*map->Float("scale"), 2.5);
  EXPECT_EQ(*map->Int("shift"), -1);
  EXPECT_EQ(*map->String("note"), "read by the kernel");
  EXPECT_EQ(map->Float("nope").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(map->Float("note").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(map->String("scale").status().code(), StatusCode::kInvalidArgument);

  flexbuffers::Builder fbb;
  fbb.Map([&] {
    fbb.Vector("v", [&] {
      fbb.Int(1);
      fbb.Double(2.5);
    });
    fbb.Bool("flag", true);
  });
  fbb.Finish();
  auto m2 = CustomOptionsMap::Parse(fbb.GetBuffer().data(), fbb.GetBuffer().size());
  ASSERT_TRUE(m2.ok());
  EXPECT_EQ(*m2->Numbers("v"), (std::vector<double>{1, 2.5}));
  EXPECT_TRUE(*m2->Bool("flag"));

  const uint8_t junk[] = {0xff, 0x13, 0x07, 0x01};
  EXPECT_EQ(CustomOptionsMap::Parse(junk, sizeof junk).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CustomOptionsMap::Parse(nullptr, 0).status().code(), StatusCode::kInvalidArgument);
  flexbuffers::Builder scalar;
  scalar.Int(4);
  scalar.Finish();
  auto not_map = CustomOptionsMap::Parse(scalar.GetBuffer().data(), scalar.GetBuffer().size());
  EXPECT_NE(not_map.status().message().find("not a map"), std::string::npos);
}

// ---- The custom ops the library runs itself (MediaPipe's transform ops) ----

// out = TransformLandmarks(landmarks, matrix), version 2: (x, y) -> (-y + 10,
// x + 20), z copied; an ADD before it keeps a GPU node on each side.
std::vector<uint8_t> LandmarksModel() {
  ModelBuilder b;
  int lm = b.AddInput("landmarks", ElementType::kFloat32, {1, 2, 3});
  int zero = b.AddConstantFloat("zero", {1}, {0.0f});
  int shifted = b.AddTensor("shifted", ElementType::kFloat32, {1, 2, 3});
  int m = b.AddConstantFloat("matrix", {1, 4, 4}, {0, -1, 0, 10, 1, 0, 0, 20, 0, 0, 1, 0, 0, 0, 0, 1});
  int out = b.AddTensor("out", ElementType::kFloat32, {1, 2, 3});
  EXPECT_TRUE(b.AddOp("ADD", {lm, zero}, {shifted}).ok());
  EXPECT_TRUE(b.AddCustomOp("TransformLandmarks", {shifted, m}, {out}, {}, 2).ok());
  b.SetOutputs({out});
  auto bytes = b.Finish();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

StatusOr<std::vector<float>> RunLandmarks(const Options& options, InterpreterReport* report = nullptr) {
  const std::vector<uint8_t> bytes = LandmarksModel();
  GLD_ASSIGN_OR_RETURN(std::shared_ptr<const Model> model, Model::FromBuffer(bytes.data(), bytes.size()));
  GLD_ASSIGN_OR_RETURN(std::unique_ptr<Interpreter> interp, Interpreter::Create(*model, options));
  const std::vector<float> in = {1, 2, 7, 3, 4, 8};
  std::vector<float> out(6);
  GLD_RETURN_IF_ERROR(interp->SetInput(0, in.data(), 24));
  GLD_RETURN_IF_ERROR(interp->Invoke());
  GLD_RETURN_IF_ERROR(interp->GetOutput(0, out.data(), 24));
  if (report != nullptr) *report = interp->report();
  return out;
}

// Without a registration of the app's the library's own kernels run it (one
// GL segment); a registration of the name takes it over.
TEST(LibraryCustomOps, AnAppRegistrationTakesOverTheLibrarysOwn) {
  const std::vector<uint8_t> bytes = LandmarksModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::vector<CustomOpUse> uses = CustomOpsOf(**model, Options());
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].name, "TransformLandmarks");
  EXPECT_TRUE(uses[0].library && uses[0].registered && uses[0].gl);

  for (Backend backend : {Backend::kCpu, Backend::kGl}) {
    SCOPED_TRACE(BackendName(backend));
    Options o;
    o.backend = backend;
    InterpreterReport report;
    auto out = RunLandmarks(o, &report);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectNear(*out, {8, 21, 7, 6, 23, 8}, 1e-6f);
    ASSERT_EQ(report.nodes.size(), 2u);
    EXPECT_EQ(report.nodes[1].label, "node 1 (TransformLandmarks)");
    if (backend == Backend::kGl) {
      EXPECT_EQ(report.gpu_nodes, 2);
    }

    // The app's kernel: zeros, CPU only.
    CustomOp mine;
    mine.name = "TransformLandmarks";
    mine.shape = [](CustomOpNode* node) {
      node->outputs[0] = node->inputs[0];
      return OkStatus();
    };
    mine.run = [](const CustomCpuRun& run) {
      std::memset(run.outputs[0], 0, 24);
      return OkStatus();
    };
    ASSERT_TRUE(RegisterCustomOp(&o, mine).ok());
    out = RunLandmarks(o, &report);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectNear(*out, std::vector<float>(6, 0.0f), 0);
    EXPECT_FALSE(report.nodes[1].on_gpu);
    uses = CustomOpsOf(**model, o);
    EXPECT_FALSE(uses[0].library);
    EXPECT_FALSE(uses[0].gl);
  }
}

// ---- The C API ----

GldStatus CShape(void*, const GldCustomNode* node, GldCustomTensor* outputs) {
  if (node->num_inputs != 1) {
    std::snprintf(node->error, node->error_size, "wants 1 input, got %d", node->num_inputs);
    return GLD_INVALID_ARGUMENT;
  }
  outputs[0] = node->inputs[0];
  return GLD_OK;
}

GldStatus CParams(const GldCustomNode* node, float* scale, float* shift) {
  double v = 0;
  GldStatus s = GldCustomOptionsGetNumber(node->options, node->options_size, "scale", &v);
  if (s != GLD_OK) return s;
  *scale = static_cast<float>(v);
  s = GldCustomOptionsGetNumber(node->options, node->options_size, "shift", &v);
  *shift = static_cast<float>(v);
  return s;
}

GldStatus CRun(void* user_data, const GldCustomNode* node, void*, const void* const* inputs, void* const* outputs) {
  ++*static_cast<int*>(user_data);
  float scale = 0, shift = 0;
  GldStatus s = CParams(node, &scale, &shift);
  if (s != GLD_OK) return s;
  size_t n = 1;
  for (int d = 0; d < node->inputs[0].num_dims; ++d) n *= static_cast<size_t>(node->inputs[0].dims[d]);
  const int channels = node->inputs[0].dims[node->inputs[0].num_dims - 1];
  const float* x = static_cast<const float*>(inputs[0]);
  float* y = static_cast<float*>(outputs[0]);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * scale + shift * static_cast<float>(static_cast<int>(i) % channels + 1);
  return GLD_OK;
}

GldStatus CConfigure(void*, const GldCustomNode* node, GldCustomGlDispatch* d) {
  return CParams(node, &d->params[0], &d->params[1]);
}

TEST(CustomOpCApi, RegistersAndRunsOnBothBackends) {
  const std::vector<uint8_t> bytes = AffineModel(AffineOptions(2.0, -0.25));
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  int runs = 0;
  for (GldBackend backend : {GLD_BACKEND_CPU, GLD_BACKEND_GL}) {
    GldOptions* options = GldOptionsCreate();
    GldOptionsSetBackend(options, backend);
    GldCustomOp op = {};
    op.name = "ChannelAffine";
    op.user_data = &runs;
    op.shape = CShape;
    op.run = CRun;
    op.gl_source = kAffineGlsl;
    op.gl_configure = CConfigure;
    ASSERT_EQ(GldOptionsAddCustomOp(options, &op), GLD_OK) << GldLastErrorMessage();
    EXPECT_EQ(GldOptionsAddCustomOp(options, &op), GLD_INVALID_ARGUMENT);
    EXPECT_NE(std::string(GldLastErrorMessage()).find("already registered"), std::string::npos);
    GldCustomOp unnamed = op;
    unnamed.name = nullptr;
    EXPECT_EQ(GldOptionsAddCustomOp(options, &unnamed), GLD_INVALID_ARGUMENT);
    EXPECT_EQ(GldOptionsLoadCustomOps(options, "/no/such/libops.so"), GLD_NOT_FOUND);
    EXPECT_NE(std::string(GldLastErrorMessage()).find("custom op library '/no/such/libops.so': no such file"),
              std::string::npos);

    GldInterpreter* interp = nullptr;
    ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
    GldOptionsDelete(options);  // the interpreter keeps what it needs
    const std::vector<float> x = Input();
    std::vector<float> y(x.size());
    ASSERT_EQ(GldInterpreterSetInput(interp, 0, x.data(), x.size() * 4), GLD_OK);
    ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
    ASSERT_EQ(GldInterpreterGetOutput(interp, 0, y.data(), y.size() * 4), GLD_OK);
    ExpectNear(y, Expected(2.0f, -0.25f), 1e-6f);
    GldReport report;
    ASSERT_EQ(GldInterpreterGetReport(interp, &report), GLD_OK);
    if (backend == GLD_BACKEND_GL) {
      EXPECT_EQ(report.segments, 1);
    }
    GldInterpreterDelete(interp);
  }
  EXPECT_EQ(runs, 1) << "the C kernel ran once, on the CPU backend";
  GldModelDelete(model);
}

TEST(CustomOpCApi, CallbackMessagesReachTheCaller) {
  ModelBuilder b;
  int x1 = b.AddInput("x1", ElementType::kFloat32, {2});
  int x2 = b.AddInput("x2", ElementType::kFloat32, {2});
  int y = b.AddTensor("y", ElementType::kFloat32, {2});
  ASSERT_TRUE(b.AddCustomOp("ChannelAffine", {x1, x2}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  ASSERT_TRUE(bytes.ok());
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes->data(), bytes->size(), &model), GLD_OK);
  GldOptions* options = GldOptionsCreate();
  GldOptionsSetBackend(options, GLD_BACKEND_CPU);
  GldCustomOp op = {};
  op.name = "ChannelAffine";
  op.shape = CShape;
  op.run = CRun;
  ASSERT_EQ(GldOptionsAddCustomOp(options, &op), GLD_OK);
  GldInterpreter* interp = nullptr;
  EXPECT_EQ(GldInterpreterCreate(model, options, &interp), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("node 0 (ChannelAffine): shape function: wants 1 input, got 2"),
            std::string::npos)
      << GldLastErrorMessage();
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
