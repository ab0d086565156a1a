// Runs the built gld_* tools as a user would and checks exit codes, output
// and the files they write.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unistd.h>

#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#if defined(GLD_RUN_PATH) && defined(GLD_INSPECT_PATH) && defined(GLD_MAKE_MODEL_PATH)
#define GLD_HAVE_TOOLS 1
#else
#define GLD_HAVE_TOOLS 0
#define GLD_RUN_PATH ""
#define GLD_INSPECT_PATH ""
#define GLD_MAKE_MODEL_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;

using testing::CountLines;
using testing::ReadWholeFile;
using Result = testing::ToolResult;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GLD_HAVE_TOOLS) GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_tools_test");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs `tool args` with GLD_LOG_LEVEL=off and `env` (VAR=value ...),
  // capturing stdout and stderr.
  Result Run(const std::string& tool, const std::string& args, const std::string& env = "") {
    return testing::RunTool(dir_, tool, args, env);
  }

  // y = RELU(x + c) with x, y float32 [1, 4] and c = {1, 2, 3, 4}.
  std::string WriteAddReluModel() {
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
    int c = b.AddConstantFloat("c", {1, 4}, {1, 2, 3, 4});
    int s = b.AddTensor("s", ElementType::kFloat32, {1, 4});
    int y = b.AddTensor("out/y:0", ElementType::kFloat32, {1, 4});
    EXPECT_TRUE(b.AddOp("ADD", {x, c}, {s}).ok());
    EXPECT_TRUE(b.AddOp("RELU", {s}, {y}).ok());
    b.SetOutputs({y});
    std::string path = (dir_ / "add_relu.tflite").string();
    EXPECT_TRUE(b.WriteFile(path).ok());
    return path;
  }

  fs::path dir_;
};

TEST_F(ToolsTest, RunWithNpyInputWritesOutputsAndStats) {
  std::string model = WriteAddReluModel();
  NpyArray in;
  in.type = ElementType::kFloat32;
  in.shape = {1, 4};
  std::vector<float> values = {-5, 0, 1, -1};
  in.data.resize(16);
  std::memcpy(in.data.data(), values.data(), 16);
  std::string npy = (dir_ / "x.npy").string();
  ASSERT_TRUE(WriteNpy(npy, in).ok());
  fs::path out_dir = dir_ / "outs";
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --input=x=" + npy + " --output_dir=" +
                                   out_dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // One node: the RELU is the ADD's fused activation after the passes.
  EXPECT_NE(r.out.find("placement: 0/1 nodes on GPU in 0 segments"), std::string::npos) << r.out;
  // RELU(x + c) = {0, 2, 4, 3}: min 0, max 4, mean 2.25.
  EXPECT_NE(r.out.find("output 0 'out/y:0' [1, 4] float32 min=0 max=4 mean=2.25"), std::string::npos) << r.out;
  auto y = ReadNpy((out_dir / "0_out_y_0.npy").string());
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape, (std::vector<int>{1, 4}));
  std::vector<float> got(4);
  std::memcpy(got.data(), y->data.data(), 16);
  EXPECT_EQ(got, (std::vector<float>{0, 2, 4, 3}));
}

TEST_F(ToolsTest, SeededRandomInputsAreDeterministic) {
  std::string model = WriteAddReluModel();
  auto run = [&](const std::string& seed, const std::string& sub) {
    Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --seed=" + seed + " --output_dir=" +
                                     (dir_ / sub).string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("random (seed " + seed + ")"), std::string::npos) << r.out;
    return ReadWholeFile(dir_ / sub / "0_out_y_0.npy");
  };
  std::string a = run("7", "a"), b = run("7", "b"), c = run("8", "c");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(ToolsTest, RunErrors) {
  std::string model = WriteAddReluModel();
  // Unknown flag: one line on stderr, non-zero exit.
  Result r = Run(GLD_RUN_PATH, "--graph=" + model + " --bogus_flag=1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("bogus_flag"), std::string::npos) << r.err;

  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=tpu");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'tpu'"), std::string::npos) << r.err;

  r = Run(GLD_RUN_PATH, "--graph=" + (dir_ / "missing.tflite").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.tflite"), std::string::npos) << r.err;

  r = Run(GLD_RUN_PATH, "");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--graph"), std::string::npos) << r.err;

  r = Run(GLD_RUN_PATH, "--graph=" + model + " --input=nope=" + (dir_ / "x.npy").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no input named 'nope'"), std::string::npos) << r.err;

  NpyArray wrong;
  wrong.type = ElementType::kFloat32;
  wrong.shape = {2, 2};
  wrong.data.resize(16);
  std::string npy = (dir_ / "wrong.npy").string();
  ASSERT_TRUE(WriteNpy(npy, wrong).ok());
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --input=x=" + npy);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("wrong.npy' has shape [2, 2]"), std::string::npos) << r.err;

  // A bad flag value, found by the option check before the model is read.
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --gpu_deny_ops=ADD,NOT_AN_OP");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("NOT_AN_OP"), std::string::npos) << r.err;

  r = Run(GLD_RUN_PATH, "--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--output_dir"), std::string::npos);
}

TEST_F(ToolsTest, InspectPrintsModelPassesAndPlacement) {
  // A DEQUANTIZE of float16 weights that the passes fold.
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 2});
  const uint16_t half[4] = {0x3c00, 0, 0, 0x3c00};
  int wq = b.AddConstant("w_fp16", ElementType::kFloat16, {2, 2}, half, sizeof half);
  int w = b.AddTensor("w", ElementType::kFloat32, {2, 2});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 2});
  ASSERT_TRUE(b.AddOp("DEQUANTIZE", {wq}, {w}).ok());
  ASSERT_TRUE(b.AddOp("FULLY_CONNECTED", {x, w, -1}, {y}).ok());
  b.SetOutputs({y});
  std::string model = (dir_ / "fc.tflite").string();
  ASSERT_TRUE(b.WriteFile(model).ok());

  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 'x' [1, 2] float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DEQUANTIZE x1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fold_constant_dequantize: node 0 (DEQUANTIZE) -> constant tensor 'w' [2, 2] float32"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("nodes: 2 -> 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node 1 (FULLY_CONNECTED)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CPU: backend is cpu"), std::string::npos) << r.out;

  r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu --summary");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "placement: 0/1 nodes on GPU in 0 segments\nnodes: 2 -> 1\nsteps: 1 (1 CPU, 0 GPU)\ndispatches: 0\n"
            "gpu_bytes: 0 planned, 0 naive, 0 lower bound\nunfused elementwise nodes: 0\n");

  r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --precision=fp8");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
}

TEST_F(ToolsTest, InspectPrintsAFreeDimensionsShapeSignature) {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, 4});
  int c = b.AddConstantFloat("c", {4}, {1, 2, 3, 4});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, 4});
  b.SetShapeSignature(x, {-1, 4});
  b.SetShapeSignature(y, {-1, 4});
  ASSERT_TRUE(b.AddOp("ADD", {x, c}, {y}).ok());
  b.SetOutputs({y});
  std::string model = (dir_ / "free_batch.tflite").string();
  ASSERT_TRUE(b.WriteFile(model).ok());
  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=cpu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 'x' [1, 4] float32 signature [-1, 4]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 'y' [1, 4] float32 signature [-1, 4]"), std::string::npos) << r.out;
  // A fixed shape prints none.
  r = Run(GLD_INSPECT_PATH, "--graph=" + WriteAddReluModel() + " --backend=cpu");
  EXPECT_EQ(r.out.find("signature"), std::string::npos) << r.out;
}

// With GLD_EGL_DEVICE naming a device no machine has, no GL context can be
// made (the GL interpreter below fails); the plan still comes out, so
// making it needed none.
TEST_F(ToolsTest, InspectPlanNeedsNoGlContext) {
  const std::string model = WriteAddReluModel();
  const std::string no_gl = "GLD_EGL_DEVICE=999";
  Result gl = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=gl --summary", no_gl);
  ASSERT_NE(gl.exit_code, 0) << gl.out;
  EXPECT_NE(gl.err.find("EGL device 999"), std::string::npos) << gl.err;

  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --backend=gl --plan", no_gl);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("GPU plan (no GL context), precision fp32"), std::string::npos) << r.out;
  // The passes fold the RELU into the ADD.
  EXPECT_NE(r.out.find("placement: 1/1 nodes on GPU in 1 segments"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GL segment 0 (node 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in  'x' SRC_FLOAT32 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out 'out/y:0' DST_FLOAT32 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dispatches (3):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 elementwise.comp for node 0 (ADD)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("binding 0: arena 'out/y:0' @256 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("binding 2: tensor 'c' 16 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("constant buffers (1, 16 bytes):"), std::string::npos) << r.out;
}

// --dump_shaders writes the plan's programs, one GLSL file each (the ADD's
// and the two edge conversions'), as the driver would get them; a folder
// that cannot be made is one clear error.
TEST_F(ToolsTest, InspectDumpsEveryProgramOfThePlan) {
  const std::string model = WriteAddReluModel();
  const std::string dir = (dir_ / "shaders").string();
  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --precision=fp16 --dump_shaders=" + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote 3 program(s) of 3 dispatch(es), precision fp16"), std::string::npos) << r.out;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[1], "s0_d001_elementwise.comp");
  for (const std::string& f : files) {
    std::ifstream in(dir + "/" + f);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(text.rfind("#version 310 es\n", 0), 0u) << f;
    EXPECT_NE(text.find("#define GLD_FP16 1\n"), std::string::npos) << f;
    EXPECT_NE(text.find("void main()"), std::string::npos) << f;
  }
  r = Run(GLD_INSPECT_PATH, "--graph=" + model + " --dump_shaders=" + model + "/sub");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--dump_shaders: cannot make folder"), std::string::npos) << r.err;
}

TEST_F(ToolsTest, InspectListOps) {
  Result r = Run(GLD_INSPECT_PATH, "--list_ops");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  bool add = false;
  int n = 0;
  while (std::getline(lines, line)) {
    ++n;
    EXPECT_TRUE(line.find(" cpu") != std::string::npos || line.find(" gl") != std::string::npos) << line;
    add = add || line.rfind("ADD cpu", 0) == 0;
  }
  EXPECT_TRUE(add) << r.out;
  EXPECT_GT(n, 20);
}

TEST_F(ToolsTest, DemoModelRunsAndGivesProbabilities) {
  std::string model = (dir_ / "demo.tflite").string();
  Result r = Run(GLD_MAKE_MODEL_PATH, "--out=" + model);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(fs::exists(model));
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --threads=2 --output_dir=" + (dir_ / "o").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto p = ReadNpy((dir_ / "o" / "0_probabilities.npy").string());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->shape, (std::vector<int>{1, 10}));
  std::vector<float> v(10);
  std::memcpy(v.data(), p->data.data(), 40);
  float sum = 0;
  for (float x : v) {
    EXPECT_GT(x, 0.0f);
    sum += x;
  }
  EXPECT_NEAR(sum, 1.0f, 1e-5f);
  // Same seed, same bytes.
  std::string again = (dir_ / "demo2.tflite").string();
  ASSERT_EQ(Run(GLD_MAKE_MODEL_PATH, "--out=" + again).exit_code, 0);
  EXPECT_EQ(ReadWholeFile(model), ReadWholeFile(again));
  r = Run(GLD_MAKE_MODEL_PATH, "--out=" + again + " --kind=huge");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown --kind 'huge'"), std::string::npos) << r.err;
}

TEST_F(ToolsTest, MediaPipeTransformsModelRunsOnTheCpu) {
  std::string model = (dir_ / "mediapipe_transforms.tflite").string();
  Result r = Run(GLD_MAKE_MODEL_PATH, "--out=" + model + " --kind=mediapipe_transforms");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run(GLD_RUN_PATH, "--graph=" + model + " --backend=cpu --output_dir=" + (dir_ / "mp").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto crop = ReadNpy((dir_ / "mp" / "0_crop_out.npy").string());
  ASSERT_TRUE(crop.ok()) << crop.status().ToString();
  EXPECT_EQ(crop->shape, (std::vector<int>{1, 192, 192, 4}));
}

}  // namespace
}  // namespace gld
