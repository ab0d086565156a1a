// The tools with a custom-op plugin (--custom_ops): the example
// (examples/custom_op, SwishBeta with a CPU and a GL kernel) in gld_run,
// gld_benchmark, gld_inspect and gld_warmup, and each loading error as one line.
#include <gtest/gtest.h>

#include <flatbuffers/flexbuffers.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/gl_stack_probe.h"
#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#if defined(GLD_RUN_PATH) && defined(GLD_EXAMPLE_CUSTOM_OP_PATH)
#define GLD_HAVE_PLUGIN_TOOLS 1
#else
#define GLD_HAVE_PLUGIN_TOOLS 0
#define GLD_RUN_PATH ""
#define GLD_INSPECT_PATH ""
#define GLD_BENCHMARK_PATH ""
#define GLD_MAKE_MODEL_PATH ""
#define GLD_WARMUP_PATH ""
#define GLD_EXAMPLE_CUSTOM_OP_PATH ""
#define GLD_FAILING_CUSTOM_OPS_PATH ""
#define GLD_NO_ENTRY_CUSTOM_OPS_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;
using Result = testing::ToolResult;

constexpr float kBeta = 1.5f;

class CustomOpsToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GLD_HAVE_PLUGIN_TOOLS) GTEST_SKIP() << "tools not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_custom_ops_tool_test");
    model_ = WriteModel();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  Result Run(const std::string& tool, const std::string& args) { return testing::RunTool(dir_, tool, args, "", "", 300); }

  // y = RELU(SwishBeta(x + c)), x [1, 4, 4, 6], beta in the custom options.
  std::string WriteModel() {
    flexbuffers::Builder fbb;
    fbb.Map([&] { fbb.Float("beta", kBeta); });
    fbb.Finish();
    ModelBuilder b;
    int x = b.AddInput("x", ElementType::kFloat32, {1, 4, 4, 6});
    std::vector<float> cv(6);
    for (int i = 0; i < 6; ++i) cv[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i) - 0.5f;
    int c = b.AddConstantFloat("c", {6}, cv);
    int s = b.AddTensor("s", ElementType::kFloat32, {1, 4, 4, 6});
    int w = b.AddTensor("w", ElementType::kFloat32, {1, 4, 4, 6});
    int y = b.AddTensor("y", ElementType::kFloat32, {1, 4, 4, 6});
    EXPECT_TRUE(b.AddOp("ADD", {x, c}, {s}).ok());
    EXPECT_TRUE(b.AddCustomOp("SwishBeta", {s}, {w}, fbb.GetBuffer()).ok());
    EXPECT_TRUE(b.AddOp("RELU", {w}, {y}).ok());
    b.SetOutputs({y});
    const std::string path = (dir_ / "swish.tflite").string();
    EXPECT_TRUE(b.WriteFile(path).ok());
    bias_ = cv;
    return path;
  }

  fs::path dir_;
  std::string model_;
  std::vector<float> bias_;
};

const std::string kPlugin = std::string(" --custom_ops=") + GLD_EXAMPLE_CUSTOM_OP_PATH;

// gld_run on each backend: the outputs are the op's formula.
TEST_F(CustomOpsToolTest, RunComputesTheOpOnBothBackends) {
  NpyArray in;
  in.type = ElementType::kFloat32;
  in.shape = {1, 4, 4, 6};
  std::vector<float> x(96);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * 2.0f;
  in.data.resize(x.size() * 4);
  std::memcpy(in.data.data(), x.data(), in.data.size());
  const std::string npy = (dir_ / "x.npy").string();
  ASSERT_TRUE(WriteNpy(npy, in).ok());
  for (const char* backend : {"cpu", "gl"}) {
    SCOPED_TRACE(backend);
    // (After the CPU's run: the op's exp() on GL.)
    if (std::string(backend) == "gl") GLD_SKIP_IF_GL_ARITHMETIC_DEFECT();
    const fs::path out = dir_ / backend;
    Result r = Run(GLD_RUN_PATH, "--graph=" + model_ + kPlugin + " --backend=" + backend + " --input=x=" + npy +
                                     " --output_dir=" + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto y = ReadNpy((out / "0_y.npy").string());
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    ASSERT_EQ(y->data.size(), x.size() * 4);
    const float* got = reinterpret_cast<const float*>(y->data.data());
    for (size_t i = 0; i < x.size(); ++i) {
      const float s = x[i] + bias_[i % 6];
      const float want = std::max(0.0f, s / (1.0f + std::exp(-kBeta * s)));
      ASSERT_NEAR(got[i], want, 1e-6f) << "element " << i;
    }
  }
}

// gld_benchmark --backend=gl runs the plugin's GL kernel: one segment of all
// three nodes.
TEST_F(CustomOpsToolTest, BenchmarkRunsThePluginOnGl) {
  Result r = Run(GLD_BENCHMARK_PATH, "--graph=" + model_ + kPlugin + " --backend=gl --num_runs=3 --warmup_runs=1");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("3/3 nodes on GPU in 1 segments"), std::string::npos) << r.out << r.err;
}

// The commands of docs/USER_GUIDE.md (Custom ops): gld_make_model --kind=custom_op, then the plugin in
// gld_benchmark; --gpu_deny_ops=CUSTOM keeps every custom op on the CPU.
TEST_F(CustomOpsToolTest, DemoModelWithTheCustomOp) {
  const std::string model = (dir_ / "swish_demo.tflite").string();
  Result r = Run(GLD_MAKE_MODEL_PATH, "--kind=custom_op --out=" + model);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run(GLD_BENCHMARK_PATH, "--graph=" + model + kPlugin + " --backend=gl --num_runs=2");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("11/11 nodes on GPU in 1 segments"), std::string::npos) << r.out << r.err;
  r = Run(GLD_BENCHMARK_PATH, "--graph=" + model + kPlugin + " --backend=gl --num_runs=2 --gpu_deny_ops=CUSTOM");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE((r.out + r.err).find("9/11 nodes on GPU in 3 segments"), std::string::npos) << r.out << r.err;
  r = Run(GLD_BENCHMARK_PATH, "--graph=" + model + " --backend=cpu --num_runs=2");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("custom op 'SwishBeta' (version 1) is not registered"), std::string::npos) << r.err;
}

TEST_F(CustomOpsToolTest, InspectListsCustomOpsAndRegistration) {
  Result r = Run(GLD_INSPECT_PATH, "--graph=" + model_ + kPlugin + " --backend=gl");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("custom ops:\n  SwishBeta (version 1) x1: cpu yes, gl yes\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node 1 (SwishBeta)"), std::string::npos) << r.out;

  // Without the plugin the listing says so, and creating the interpreter
  // fails naming the op and how to register it.
  r = Run(GLD_INSPECT_PATH, "--graph=" + model_ + " --backend=cpu");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.out.find("SwishBeta (version 1) x1: not registered"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("node 1 (SwishBeta): custom op 'SwishBeta' (version 1) is not registered"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("--custom_ops"), std::string::npos) << r.err;

  r = Run(GLD_INSPECT_PATH, "--list_ops" + kPlugin);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nSwishBeta custom cpu gl\n"), std::string::npos) << r.out;
}

TEST_F(CustomOpsToolTest, WarmupCompilesTheCustomProgram) {
  const fs::path cache = dir_ / "cache";
  Result r = Run(GLD_WARMUP_PATH, "--graph=" + model_ + kPlugin + " --cache_dir=" + cache.string());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  r = Run(GLD_WARMUP_PATH, "--graph=" + model_ + " --cache_dir=" + cache.string());
  EXPECT_NE(r.exit_code, 0) << "without the plugin the model cannot be warmed";
}

// Each way a plugin can fail to load is one line on stderr naming the file.
TEST_F(CustomOpsToolTest, LoadingErrorsAreOneLine) {
  const std::string text = (dir_ / "notes.so").string();
  std::ofstream(text) << "not a shared library\n";
  const struct {
    std::string path, expect;
  } cases[] = {
      {(dir_ / "missing.so").string(), "no such file"},
      {text, "is not a shared library that can be loaded"},
      {GLD_NO_ENTRY_CUSTOM_OPS_PATH, "defines no gld_register_custom_ops"},
      {GLD_FAILING_CUSTOM_OPS_PATH, "gld_register_custom_ops failed (INVALID_ARGUMENT): INVALID_ARGUMENT: "
                                    "RegisterCustomOp: a custom op needs a name"},
  };
  for (const auto& c : cases) {
    for (const char* tool : {GLD_RUN_PATH, GLD_BENCHMARK_PATH, GLD_INSPECT_PATH, GLD_WARMUP_PATH}) {
      SCOPED_TRACE(std::string(tool) + " " + c.path);
      const std::string extra = std::string(tool) == GLD_WARMUP_PATH ? " --cache_dir=" + (dir_ / "c").string() : "";
      Result r = Run(tool, "--graph=" + model_ + " --custom_ops=" + c.path + extra);
      EXPECT_NE(r.exit_code, 0);
      EXPECT_EQ(testing::CountLines(r.err), 1) << r.err;
      EXPECT_NE(r.err.find("custom op library '" + c.path + "'"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace gld
