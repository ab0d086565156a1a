// The hazard checker (gl/hazard_check.h) and the command lists it reads
// (gl/issued_commands.h): the GLSL interface reader, each hazard kind on
// small lists made by hand, real plans of the shared models (no hazard;
// then one barrier removed or its bit changed, and the checker names the
// dispatches and the buffer), GlSegment::Create refusing a plan with a
// hazard, and GlSegment's command log matching the list it was checked on.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "common/model_paths.h"
#include "gl/egl/gl_objects.h"
#include "gl/glsl_interface.h"
#include "gl/hazard_check.h"
#include "gl/issued_commands.h"
#include "gl/segment_plan.h"
#include "gl_test_util.h"
#include "model/tflite_reader.h"
#include "partition/partition.h"
#include "transforms/pass_list.h"

namespace gld::testing {
namespace {

using gl::GlCommand;
using gl::GlResource;
using gl::Hazard;
using gl::ResourceRange;

TEST(GlslInterfaceTest, ReadsQualifiersPerBindingPoint) {
  const gl::ShaderInterface s = gl::ReadShaderInterface(
      "#version 310 es\n"
      "layout(std430, binding = 0) writeonly restrict buffer Output { vec4 data[]; } o;\n"
      "layout(std430, binding = 1) readonly restrict buffer Input { vec4 data[]; } i;\n"
      "layout(std430, binding = 2) restrict buffer Both { vec4 data[]; } b;  // read and written\n"
      "/* layout(std430, binding = 7) buffer Commented { vec4 d[]; } c; */\n"
      "uniform highp sampler2D u_texture;\n"
      "layout(rgba32f, binding = 3) writeonly uniform highp image2D u_image;\n"
      "uniform ivec4 u_shape;\n"
      "void main() { o.data[0] = i.data[0] + b.data[0]; }\n");
  ASSERT_EQ(s.storage_blocks.size(), 3u);
  EXPECT_TRUE(s.storage_blocks.at(0).write);
  EXPECT_FALSE(s.storage_blocks.at(0).read);
  EXPECT_TRUE(s.storage_blocks.at(1).read);
  EXPECT_FALSE(s.storage_blocks.at(1).write);
  EXPECT_TRUE(s.storage_blocks.at(2).read && s.storage_blocks.at(2).write);
  EXPECT_EQ(s.samplers, 1);
  ASSERT_EQ(s.images.size(), 1u);
  EXPECT_TRUE(s.images.at(3).write);
  EXPECT_TRUE(s.problems.empty());
}

TEST(GlslInterfaceTest, PreprocessesMacrosAndConditions) {
  // Epilogue-style: a function-like macro declares the block, its point a
  // macro; a condition compiles one declaration out.
  const gl::ShaderInterface s = gl::ReadShaderInterface(
      "#define COUNT 2\n"
      "#define BINDING_A 4\n"
      "#define OPERAND(b, block, inst) \\\n"
      "  layout(std430, binding = b) readonly restrict buffer block { vec4 data[]; } inst;\n"
      "#if COUNT >= 1 && defined(BINDING_A)\n"
      "OPERAND(BINDING_A, A, a)\n"
      "#endif\n"
      "#if COUNT >= 3\n"
      "OPERAND(BINDING_B, B, b)\n"
      "#elif COUNT == 2\n"
      "layout(std430, binding = 5) writeonly buffer C { vec4 data[]; } c;\n"
      "#else\n"
      "layout(std430, binding = 6) writeonly buffer D { vec4 data[]; } d;\n"
      "#endif\n"
      "#ifndef COUNT\n"
      "layout(std430, binding = 8) buffer E { vec4 data[]; } e;\n"
      "#endif\n");
  EXPECT_TRUE(s.problems.empty()) << s.problems.front();
  ASSERT_EQ(s.storage_blocks.size(), 2u);
  EXPECT_TRUE(s.storage_blocks.at(4).read);
  EXPECT_FALSE(s.storage_blocks.at(4).write);
  EXPECT_TRUE(s.storage_blocks.at(5).write);
  // A point no macro resolves is a problem, not a guess.
  const gl::ShaderInterface bad =
      gl::ReadShaderInterface("layout(std430, binding = NOPE) buffer X { vec4 d[]; } x;\n");
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("NOPE"), std::string::npos);
}

// Hand-made command lists.
const std::string kWrite0Read1 =
    "layout(std430, binding = 0) writeonly buffer O { vec4 d[]; } o;\n"
    "layout(std430, binding = 1) readonly buffer I { vec4 d[]; } i;\n";
const std::string kWrite0 = "layout(std430, binding = 0) writeonly buffer O { vec4 d[]; } o;\n";
const std::string kSample = "uniform highp sampler2D t;\nlayout(std430, binding = 0) writeonly buffer O { vec4 d[]; } o;\n";
const std::string kImageStore = "layout(rgba32f, binding = 0) writeonly uniform highp image2D img;\n";

GlResource Arena() { return {GlResource::kArena, 0, "arena"}; }
GlResource Staging() { return {GlResource::kStaging, 0, "staging 0"}; }
GlResource Texture() { return {GlResource::kTexture, 0, "texture 0"}; }

class CommandList {
 public:
  CommandList& Bind(uint32_t point, GlResource r, uint64_t offset = 0, uint64_t size = 0) {
    GlCommand c;
    c.kind = GlCommand::kBindStorage;
    c.point = point;
    c.range = {std::move(r), offset, size, ""};
    c.label = "bind " + std::to_string(point);
    list.push_back(c);
    return *this;
  }
  CommandList& BindTexture(GlResource r) { return Add(GlCommand::kBindTexture, std::move(r), "bind texture"); }
  CommandList& BindImage(GlResource r) { return Add(GlCommand::kBindImage, std::move(r), "bind image"); }
  CommandList& Dispatch(const std::string& label, const std::string& source) {
    GlCommand c;
    c.kind = GlCommand::kDispatch;
    c.label = label;
    c.source = &source;
    list.push_back(c);
    return *this;
  }
  CommandList& Barrier(uint32_t bits) {
    GlCommand c;
    c.kind = GlCommand::kBarrier;
    c.barrier_bits = bits;
    c.label = "barrier";
    list.push_back(c);
    return *this;
  }
  CommandList& Upload(GlResource r) { return Add(GlCommand::kHostWrite, std::move(r), "upload"); }
  CommandList& Readback(GlResource r) { return Add(GlCommand::kHostRead, std::move(r), "readback"); }
  CommandList& AppAccess(GlResource r) { return Add(GlCommand::kAppAccess, std::move(r), "app"); }
  std::vector<Hazard> Hazards() const { return gl::FindHazards(list); }

  std::vector<GlCommand> list;

 private:
  CommandList& Add(GlCommand::Kind kind, GlResource r, const std::string& label) {
    GlCommand c;
    c.kind = kind;
    c.range = {std::move(r), 0, 0, ""};
    c.label = label;
    list.push_back(c);
    return *this;
  }
};

// A writes arena [0, 64); B reads [32, 96) of it (and writes [256, 320)).
CommandList Producer(CommandList l = {}) {
  return l.Bind(0, Arena(), 0, 64).Bind(1, Staging()).Dispatch("A", kWrite0Read1);
}

// The one hazard of `l`, which must be `kind` between `first` and `second` on `buffer`.
Hazard OnlyHazard(const CommandList& l, Hazard::Kind kind, const std::string& first, const std::string& second,
                  const std::string& buffer) {
  const std::vector<Hazard> h = l.Hazards();
  EXPECT_EQ(h.size(), 1u);
  if (h.empty()) return Hazard{};
  EXPECT_EQ(h[0].kind, kind) << h[0].ToString();
  EXPECT_EQ(h[0].first_label, first) << h[0].ToString();
  EXPECT_EQ(h[0].second_label, second) << h[0].ToString();
  EXPECT_EQ(h[0].buffer, buffer) << h[0].ToString();
  return h[0];
}

TEST(HazardCheckTest, ReadAfterWriteNeedsTheStorageBit) {
  CommandList l = Producer();
  l.Bind(0, Arena(), 256, 64).Bind(1, Arena(), 32, 64).Dispatch("B", kWrite0Read1);
  std::vector<Hazard> h = {OnlyHazard(l, Hazard::kReadAfterWrite, "A", "B", "arena")};
  EXPECT_EQ(h[0].offset, 32u);
  EXPECT_EQ(h[0].size, 32u);
  EXPECT_EQ(h[0].missing_bits, static_cast<uint32_t>(GL_SHADER_STORAGE_BARRIER_BIT));
  EXPECT_NE(h[0].ToString().find("'A' then 'B' on arena bytes [32, 64)"), std::string::npos) << h[0].ToString();

  // A barrier with another bit does not order them; one with the storage bit does.
  CommandList wrong = Producer();
  wrong.Barrier(GL_BUFFER_UPDATE_BARRIER_BIT).Bind(0, Arena(), 256, 64).Bind(1, Arena(), 32, 64).Dispatch("B", kWrite0Read1);
  EXPECT_EQ(wrong.Hazards().size(), 1u);
  CommandList right = Producer();
  right.Barrier(GL_SHADER_STORAGE_BARRIER_BIT).Bind(0, Arena(), 256, 64).Bind(1, Arena(), 32, 64).Dispatch("B", kWrite0Read1);
  EXPECT_TRUE(right.Hazards().empty());
  // Disjoint bytes need nothing.
  CommandList apart = Producer();
  apart.Bind(0, Arena(), 256, 64).Bind(1, Arena(), 64, 64).Dispatch("B", kWrite0Read1);
  EXPECT_TRUE(apart.Hazards().empty());
}

TEST(HazardCheckTest, WriteAfterReadAndWriteAfterWrite) {
  // B overwrites what A read.
  CommandList war = Producer();
  war.Bind(0, Staging()).Bind(1, Arena(), 512, 16).Dispatch("B", kWrite0Read1);
  OnlyHazard(war, Hazard::kWriteAfterRead, "A", "B", "staging 0");
  // B writes what A wrote.
  CommandList waw = Producer();
  waw.Bind(0, Arena(), 16, 16).Bind(1, Arena(), 512, 16).Dispatch("B", kWrite0Read1);
  EXPECT_EQ(OnlyHazard(waw, Hazard::kWriteAfterWrite, "A", "B", "arena").offset, 16u);
  // Host uploads after a shader read are ordered by GL itself.
  CommandList upload = Producer();
  upload.Upload(Staging());
  EXPECT_TRUE(upload.Hazards().empty());
}

TEST(HazardCheckTest, ReadbackNeedsTheBufferUpdateBit) {
  CommandList l;
  l.Bind(0, Staging()).Bind(1, Arena(), 0, 64).Dispatch("to host", kWrite0Read1);
  CommandList wrong = l;
  wrong.Barrier(GL_SHADER_STORAGE_BARRIER_BIT).Readback(Staging());
  std::vector<Hazard> h = {OnlyHazard(wrong, Hazard::kReadAfterWrite, "to host", "readback", "staging 0")};
  EXPECT_EQ(h[0].missing_bits, static_cast<uint32_t>(GL_BUFFER_UPDATE_BARRIER_BIT));
  EXPECT_NE(h[0].ToString().find("GL_BUFFER_UPDATE_BARRIER_BIT"), std::string::npos);
  CommandList right = l;
  right.Barrier(GL_BUFFER_UPDATE_BARRIER_BIT).Readback(Staging());
  EXPECT_TRUE(right.Hazards().empty());
  // The app taking a buffer back needs every bit.
  CommandList app = l;
  app.Barrier(GL_BUFFER_UPDATE_BARRIER_BIT).AppAccess(Staging());
  OnlyHazard(app, Hazard::kReadAfterWrite, "to host", "app", "staging 0");
  CommandList app_right = l;
  app_right.Barrier(GL_ALL_BARRIER_BITS).AppAccess(Staging());
  EXPECT_TRUE(app_right.Hazards().empty());
}

TEST(HazardCheckTest, TextureWrittenByAShaderNeedsTheFetchBit) {
  CommandList l;
  l.BindImage(Texture()).Dispatch("draw", kImageStore);
  CommandList wrong = l;
  wrong.Barrier(GL_SHADER_STORAGE_BARRIER_BIT).BindTexture(Texture()).Bind(0, Staging()).Dispatch("sample", kSample);
  std::vector<Hazard> h = {OnlyHazard(wrong, Hazard::kReadAfterWrite, "draw", "sample", "texture 0")};
  EXPECT_EQ(h[0].missing_bits, static_cast<uint32_t>(GL_TEXTURE_FETCH_BARRIER_BIT));
  CommandList right = l;
  right.Barrier(GL_TEXTURE_FETCH_BARRIER_BIT).BindTexture(Texture()).Bind(0, Staging()).Dispatch("sample", kSample);
  EXPECT_TRUE(right.Hazards().empty());
}

TEST(HazardCheckTest, UnboundPointsAndAliasedBindings) {
  CommandList unbound;
  unbound.Bind(0, Arena(), 0, 64).Dispatch("A", kWrite0Read1);  // point 1 never bound in this run
  std::vector<Hazard> h = unbound.Hazards();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].kind, Hazard::kUnboundPoint);
  EXPECT_NE(h[0].ToString().find("binding 1"), std::string::npos);
  // A run starts with the app's bindings: what the previous run bound does not count.
  CommandList runs = Producer();
  GlCommand start;
  start.kind = GlCommand::kRunStart;
  runs.list.push_back(start);
  runs.Bind(0, Arena(), 512, 64).Dispatch("again", kWrite0Read1);
  h = runs.Hazards();
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0].kind, Hazard::kUnboundPoint);
  // The written range overlaps a read one in the same dispatch.
  CommandList alias;
  alias.Bind(0, Arena(), 0, 64).Bind(1, Arena(), 32, 64).Dispatch("A", kWrite0Read1);
  h = alias.Hazards();
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h[0].kind, Hazard::kAliasedBindings);
}

// A real plan: every node of a shared model as one segment.
gl::SegmentPlan PlanSharedModel(const std::string& name) {
  std::ifstream f(ModelPath(name), std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), {});
  auto graph = ReadTfliteModel(bytes.data(), bytes.size());
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  if (!graph.ok()) return {};
  PassLog log;
  EXPECT_TRUE(RunDefaultPasses(*graph, log).ok());
  EXPECT_TRUE(InferShapes(*graph, cpu::KnownValueOracle()).ok());
  std::vector<int> nodes(graph->nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i] = static_cast<int>(i);
  auto plan = gl::PlanSegment(*graph, SegmentOf(*graph, nodes), Precision::kFp32, gl::MinimumGlLimits());
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? std::move(*plan) : gl::SegmentPlan{};
}

std::string Describe(const std::vector<Hazard>& h) {
  std::string s;
  for (const Hazard& x : h) s += x.ToString() + "\n";
  return s;
}

TEST(HazardCheckTest, SharedModelPlansHaveNoHazardInAnyIo) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  auto texture = gl::TextureInputSource();
  ASSERT_TRUE(texture.ok()) << texture.status().ToString();
  for (const std::string& name : SharedModelNames()) {
    const gl::SegmentPlan plan = PlanSharedModel(name);
    ASSERT_FALSE(plan.dispatches.empty()) << name;
    for (const gl::RunIo& io : gl::CheckedRunIos(plan)) {
      const std::vector<Hazard> h = gl::FindHazards(gl::IssuedCommands(plan, io, &*texture, 2));
      EXPECT_TRUE(h.empty()) << name << " (" << io.name << "):\n" << Describe(h);
    }
  }
}

// The mutation test: remove one barrier the plan needs, or change its bit;
// the checker names the two dispatches and the buffer.
TEST(HazardCheckTest, RemovingANeededBarrierFromARealPlanIsCaught) {
  if (!SharedModelsPresent()) GTEST_SKIP() << MissingModelsMessage();
  auto texture = gl::TextureInputSource();
  ASSERT_TRUE(texture.ok());
  const gl::SegmentPlan plan = PlanSharedModel("selfie_segmentation.tflite");
  const gl::RunIo host = gl::CheckedRunIos(plan).front();
  // A dispatch in the middle of the model with a barrier before it.
  size_t victim = plan.dispatches.size() / 2;
  while (victim < plan.dispatches.size() && !plan.dispatches[victim].barrier_before) ++victim;
  ASSERT_LT(victim, plan.dispatches.size());
  const gl::PlannedDispatch& d = plan.dispatches[victim];

  gl::SegmentPlan removed = plan;
  removed.dispatches[victim].barrier_before = false;
  std::vector<Hazard> h = gl::FindHazards(gl::IssuedCommands(removed, host, &*texture, 1));
  ASSERT_FALSE(h.empty()) << "removing the barrier before '" << d.label << "' went unnoticed";
  EXPECT_EQ(h[0].second_label, d.label) << Describe(h);
  EXPECT_EQ(h[0].buffer, "tensor arena") << Describe(h);
  EXPECT_EQ(h[0].missing_bits, static_cast<uint32_t>(GL_SHADER_STORAGE_BARRIER_BIT));
  // The first is an earlier dispatch that wrote (or read) bytes the victim touches.
  size_t first = plan.dispatches.size();
  for (size_t i = 0; i < victim; ++i) {
    if (plan.dispatches[i].label == h[0].first_label) first = i;
  }
  ASSERT_LT(first, victim) << Describe(h);
  bool shares_bytes = false;
  for (const gl::PlannedBinding& a : plan.dispatches[first].bindings) {
    for (const gl::PlannedBinding& b : d.bindings) {
      shares_bytes = shares_bytes || (a.kind == gl::PlannedBinding::kArena && b.kind == gl::PlannedBinding::kArena &&
                                      h[0].offset >= std::max(a.offset, b.offset) &&
                                      h[0].offset < std::min(a.offset + a.size, b.offset + b.size));
    }
  }
  EXPECT_TRUE(shares_bytes) << Describe(h);
  std::printf("mutation: %s\n", h[0].ToString().c_str());

  // The barrier kept but with the readback's bit instead of the storage bit.
  std::vector<GlCommand> commands = gl::IssuedCommands(plan, host, &*texture, 1);
  for (size_t i = 1; i < commands.size(); ++i) {
    if (commands[i].kind == GlCommand::kDispatch && commands[i].plan_dispatch == static_cast<int>(victim)) {
      ASSERT_EQ(commands[i - 1].kind, GlCommand::kBarrier);
      commands[i - 1].barrier_bits = GL_BUFFER_UPDATE_BARRIER_BIT;
    }
  }
  h = gl::FindHazards(commands);
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0].second_label, d.label);
  EXPECT_EQ(h[0].buffer, "tensor arena");

  // The readback barrier with the storage bit only: the readbacks race with
  // the output conversions.
  commands = gl::IssuedCommands(plan, host, &*texture, 1);
  for (GlCommand& c : commands) {
    if (c.kind == GlCommand::kBarrier && c.barrier_bits == gl::kReadbackBarrierBits) {
      c.barrier_bits = GL_SHADER_STORAGE_BARRIER_BIT;
    }
  }
  h = gl::FindHazards(commands);
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0].kind, Hazard::kReadAfterWrite);
  EXPECT_EQ(h[0].missing_bits, static_cast<uint32_t>(GL_BUFFER_UPDATE_BARRIER_BIT));
  EXPECT_NE(h[0].second_label.find("readback of output"), std::string::npos) << Describe(h);
  EXPECT_NE(h[0].buffer.find("staging buffer of output"), std::string::npos) << Describe(h);

  // Outputs bound to app buffers handed back after the readback barrier only.
  const gl::RunIo bound = gl::CheckedRunIos(plan)[1];
  commands = gl::IssuedCommands(plan, bound, &*texture, 1);
  for (GlCommand& c : commands) {
    if (c.kind == GlCommand::kBarrier && c.barrier_bits == gl::kHandOffBarrierBits) c.barrier_bits = GL_BUFFER_UPDATE_BARRIER_BIT;
  }
  h = gl::FindHazards(commands);
  ASSERT_FALSE(h.empty());
  EXPECT_NE(h[0].second_label.find("the app uses app buffer bound to output"), std::string::npos) << Describe(h);
}

// x -> SQUARE -> ABS, unfused: upload, square, abs, download.
StatusOr<gl::SegmentPlan> PlanSquareAbs(GlOpTest& t, const Shape& shape, const gl::GlInfo& limits) {
  int x = t.Input(shape);
  int a = t.Tensor();
  t.Node(OpType::kSquare, {x}, {a});
  t.Op(OpType::kAbs, {a});
  GLD_RETURN_IF_ERROR(t.RunCpu());
  gl::SegmentPlanOptions options;
  options.fuse_elementwise = false;
  return gl::PlanSegment(t.graph, SegmentOf(t.graph, {0, 1}), Precision::kFp32, limits, options);
}

// GlSegment::Create runs the check: a plan with a needed barrier removed is
// refused with the hazard in the message.
TEST(HazardCheckTest, CreateRefusesAPlanWithAHazard) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  auto plan = PlanSquareAbs(t, {1, 4, 4, 8}, env->info());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  ASSERT_TRUE(gl::GlSegment::Create(*env, *plan).ok());
  ASSERT_TRUE(plan->dispatches[2].barrier_before);  // abs reads square's output
  plan->dispatches[2].barrier_before = false;
  auto made = gl::GlSegment::Create(*env, *plan);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInternal);
  EXPECT_NE(made.status().message().find("read after write"), std::string::npos) << made.status().ToString();
  EXPECT_NE(made.status().message().find(plan->dispatches[1].label), std::string::npos) << made.status().ToString();
  EXPECT_NE(made.status().message().find(plan->dispatches[2].label), std::string::npos) << made.status().ToString();
}

// What a Run really issues (GlSegment's command log) is the list the
// checker proved, in each I/O shape.
TEST(HazardCheckTest, SegmentIssuesTheCheckedCommands) {
  GLD_REQUIRE_GL(env);
  GlOpTest t;
  auto plan = PlanSquareAbs(t, {1, 4, 4, 3}, env->info());
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto segment = gl::GlSegment::Create(*env, *plan);
  ASSERT_TRUE(segment.ok()) << segment.status().ToString();
  auto texture_source = gl::TextureInputSource();
  ASSERT_TRUE(texture_source.ok());

  const size_t bytes = 4 * 4 * 3 * sizeof(float);
  // 64 values: the app buffers below hold the PHWC4 layout (4 lanes per pixel).
  std::vector<float> in = RandomFloats(64, 3, -1, 1), out(64);
  gl::GlEnvironment::ScopedCurrent current(env->env());
  ASSERT_TRUE(current.status().ok());
  auto in_buffer = gl::GlBuffer::Create(4 * 4 * 4 * sizeof(float), in.data());
  auto out_buffer = gl::GlBuffer::Create(4 * 4 * 4 * sizeof(float));
  ASSERT_TRUE(in_buffer.ok() && out_buffer.ok());
  GLuint texture = 0;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, 4, 4);
  glBindTexture(GL_TEXTURE_2D, 0);
  gl::GlSegment::TextureSource source;
  source.texture = texture;

  for (const gl::RunIo& io : gl::CheckedRunIos(*plan)) {
    SCOPED_TRACE(io.name);
    gl::GlSegment::HostInput hin{in.data(), bytes};
    gl::GlSegment::HostOutput hout{out.data(), bytes};
    if (io.inputs[0] == gl::EdgeIo::kAppBuffer || io.inputs[0] == gl::EdgeIo::kAppPhwc4) hin.buffer = in_buffer->id();
    if (io.inputs[0] == gl::EdgeIo::kAppPhwc4) hin.phwc4 = true;
    if (io.inputs[0] == gl::EdgeIo::kAppTexture) hin.texture = &source;
    if (io.outputs[0] == gl::EdgeIo::kAppBuffer || io.outputs[0] == gl::EdgeIo::kAppPhwc4) hout.buffer = out_buffer->id();
    if (io.outputs[0] == gl::EdgeIo::kAppPhwc4) hout.phwc4 = true;
    hout.keep_on_gpu = io.outputs[0] == gl::EdgeIo::kKeepOnGpu;
    std::vector<std::string> log;
    (*segment)->set_command_log(&log);
    ASSERT_TRUE((*segment)->Run({hin}, {hout}).ok());
    (*segment)->set_command_log(nullptr);
    EXPECT_EQ(log, gl::DescribeCommands(gl::IssuedCommands(*plan, io, &*texture_source, 1)));
  }
  glDeleteTextures(1, &texture);
}

}  // namespace
}  // namespace gld::testing
