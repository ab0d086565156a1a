// Runs the built gld_benchmark as a user would: the JSON report, TFLite's
// flag names, profiling rows, inputs from .npy files, outputs to .npy files,
// and a one-line error with a non-zero exit for each kind of bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "common/strict_json.h"
#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#ifdef GLD_BENCHMARK_PATH
#define GLD_HAVE_BENCHMARK 1
#else
#define GLD_HAVE_BENCHMARK 0
#define GLD_BENCHMARK_PATH ""
#endif

namespace gld {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Result = testing::ToolResult;
using testing::CountLines;
bool SkipGl() {
  const char* v = std::getenv("GLD_SKIP_GL_TESTS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// At the top of a GL test: fails without GL, or skips with GLD_SKIP_GL_TESTS.
#define GLD_REQUIRE_GL_BENCHMARK()                                                    \
  if (const std::string no_gl = NoGl(); !no_gl.empty()) {                              \
    if (SkipGl()) GTEST_SKIP() << "no GL (GLD_SKIP_GL_TESTS): " << no_gl;              \
    FAIL() << "no GL backend (set GLD_SKIP_GL_TESTS=1 to skip): " << no_gl;            \
  }

class BenchmarkToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GLD_HAVE_BENCHMARK) GTEST_SKIP() << "gld_benchmark not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_benchmark_test");
    model_ = WriteModel();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  Result Run(const std::string& args) { return testing::RunTool(dir_, GLD_BENCHMARK_PATH, args); }

  // Why gld_benchmark cannot run the model on GL; "" when it can.
  std::string NoGl() {
    Result r = Run("--graph=" + model_ + " --backend=gl --num_runs=1");
    return r.exit_code == 0 ? "" : r.err;
  }

  // Runs with --json and returns the parsed report (fails the test when the
  // run fails or the file is not JSON).
  json RunJson(const std::string& args, Result* result = nullptr) {
    const std::string report = (dir_ / "report.json").string();
    fs::remove(report);
    Result r = Run("--graph=" + model_ + " --json=" + report + " " + args);
    if (result != nullptr) *result = r;
    EXPECT_EQ(r.exit_code, 0) << r.err;
    auto v = testing::ParseStrictJson(testing::ReadWholeFile(report));
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : json::object();
  }

  // y = MAXIMUM(x * c2 + c1, 0) on x [1, 2, 2, 3] named "in:0" (a ':' to
  // escape). MAXIMUM, not RELU: fuse_activation would fold a RELU into the ADD,
  // and the partition tests need three nodes to split GPU | CPU | GPU.
  std::string WriteModel() {
    ModelBuilder b;
    const std::vector<int> shape = {1, 2, 2, 3};
    int x = b.AddInput("in:0", ElementType::kFloat32, shape);
    int c1 = b.AddConstantFloat("c1", {3}, {1, 2, 3});
    int c2 = b.AddConstantFloat("c2", {3}, {2, -1, 0.5f});
    int zero = b.AddConstantFloat("zero", {1}, {0});
    int m = b.AddTensor("m", ElementType::kFloat32, shape);
    int s = b.AddTensor("s", ElementType::kFloat32, shape);
    int y = b.AddTensor("out/y", ElementType::kFloat32, shape);
    EXPECT_TRUE(b.AddOp("MUL", {x, c2}, {m}).ok());
    EXPECT_TRUE(b.AddOp("ADD", {m, c1}, {s}).ok());
    EXPECT_TRUE(b.AddOp("MAXIMUM", {s, zero}, {y}).ok());
    b.SetOutputs({y});
    std::string path = (dir_ / "mul_add_max.tflite").string();
    EXPECT_TRUE(b.WriteFile(path).ok());
    return path;
  }

  std::string WriteInput(const std::vector<float>& values, std::vector<int> shape, const std::string& name) {
    NpyArray a;
    a.type = ElementType::kFloat32;
    a.shape = std::move(shape);
    a.data.resize(values.size() * 4);
    std::memcpy(a.data.data(), values.data(), a.data.size());
    std::string path = (dir_ / name).string();
    EXPECT_TRUE(WriteNpy(path, a).ok());
    return path;
  }

  // A one-line error on stderr naming `needle`, and a non-zero exit.
  void ExpectOneLineError(const Result& r, const std::string& needle) {
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("gld_benchmark: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << "wanted '" << needle << "' in: " << r.err;
  }

  fs::path dir_;
  std::string model_;
};

TEST_F(BenchmarkToolTest, JsonReportHasEveryFigure) {
  Result r;
  json v = RunJson("--backend=cpu --num_runs=3 --warmup_runs=2", &r);
  for (const char* key :
       {"init_us", "first_inference_us", "warmup_avg_us", "inference_avg_us", "inference_std_us", "inference_min_us",
        "inference_median_us", "inference_max_us", "num_runs", "backend", "precision", "gpu_nodes", "total_nodes",
        "segments", "dispatches", "gpu_bytes_planned", "peak_rss_bytes", "cache_hits", "cache_misses"}) {
    EXPECT_TRUE(v.contains(key)) << key;
  }
  if (::testing::Test::HasFailure()) return;
  EXPECT_EQ(v.at("num_runs").get<double>(), 3);
  EXPECT_EQ(v.at("warmup_runs").get<double>(), 2);
  ASSERT_EQ(v.at("run_times_us").size(), 3u);
  EXPECT_EQ(v.at("backend").get<std::string>(), "cpu");
  EXPECT_EQ(v.at("precision").get<std::string>(), "fp32");
  EXPECT_EQ(v.at("gpu_nodes").get<double>(), 0);
  EXPECT_EQ(v.at("segments").get<double>(), 0);
  EXPECT_EQ(v.at("dispatches").get<double>(), 0);
  EXPECT_GE(v.at("total_nodes").get<double>(), 1);
  EXPECT_EQ(v.at("cache_hits").get<double>(), 0);
  EXPECT_EQ(v.at("cache_misses").get<double>(), 0);
  EXPECT_FALSE(v.contains("ops"));  // only with --enable_op_profiling
  const double mn = v.at("inference_min_us").get<double>(), med = v.at("inference_median_us").get<double>();
  const double avg = v.at("inference_avg_us").get<double>(), mx = v.at("inference_max_us").get<double>();
  EXPECT_GT(mn, 0);
  EXPECT_LE(mn, med);
  EXPECT_LE(med, mx);
  EXPECT_LE(mn, avg);
  EXPECT_LE(avg, mx);
  EXPECT_GE(v.at("inference_std_us").get<double>(), 0);
  EXPECT_GT(v.at("init_us").get<double>(), 0);
  EXPECT_GT(v.at("first_inference_us").get<double>(), 0);
  EXPECT_GT(v.at("warmup_avg_us").get<double>(), 0);
  EXPECT_GT(v.at("peak_rss_bytes").get<double>(), 0);
  EXPECT_GE(v.at("peak_rss_bytes").get<double>(), v.at("rss_after_init_bytes").get<double>());
  // The text report says the same.
  EXPECT_NE(r.out.find("Initialized session in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Inference timings in us: Init: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("First inference: "), std::string::npos);
  EXPECT_NE(r.out.find("Warmup (avg): "), std::string::npos);
  EXPECT_NE(r.out.find("Inference (avg): "), std::string::npos);
  EXPECT_NE(r.out.find("placement: 0/"), std::string::npos);
  EXPECT_NE(r.out.find("Memory (MB): RSS at start "), std::string::npos);
  EXPECT_EQ(r.out.find("Peak memory footprint"), std::string::npos);
}

TEST_F(BenchmarkToolTest, MinSecsRunsAtLeastThatLong) {
  json v = RunJson("--backend=cpu --num_runs=1 --warmup_runs=0 --min_secs=0.2");
  ASSERT_TRUE(v.contains("run_times_us"));
  double total = 0;
  for (const json& t : v.at("run_times_us")) total += t.get<double>();
  EXPECT_GT(v.at("num_runs").get<double>(), 1);
  EXPECT_EQ(v.at("num_runs").get<double>(), static_cast<double>(v.at("run_times_us").size()));
  // The loop stops once 0.2 s of wall time passed; the runs themselves take
  // most of it.
  EXPECT_GT(total, 0.05e6);
  // Without warmup runs, the first inference is the first timed run.
  EXPECT_EQ(v.at("first_inference_us").get<double>(), v.at("run_times_us").at(0).get<double>());
}

TEST_F(BenchmarkToolTest, TfliteFlagNames) {
  Result r;
  json v = RunJson("--use_gpu=false --gpu_precision_loss_allowed=true --num_threads=2 --num_runs=2 "
                        "--report_peak_memory_footprint",
                        &r);
  ASSERT_TRUE(v.contains("backend"));
  EXPECT_EQ(v.at("backend").get<std::string>(), "cpu");
  EXPECT_EQ(v.at("precision").get<std::string>(), "fp16");
  EXPECT_EQ(v.at("threads").get<double>(), 2);
  EXPECT_NE(r.out.find("Peak memory footprint (MB): init="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" overall="), std::string::npos) << r.out;
}

TEST_F(BenchmarkToolTest, CpuProfilingRowsAndTables) {
  Result r;
  json v = RunJson("--backend=cpu --num_runs=4 --enable_op_profiling", &r);
  ASSERT_TRUE(v.contains("ops"));
  const auto& ops = v.at("ops");
  ASSERT_EQ(ops.size(), static_cast<size_t>(v.at("total_nodes").get<double>()));
  std::set<std::string> names;
  for (const json& row : ops) {
    EXPECT_EQ(row.at("backend").get<std::string>(), "cpu");
    EXPECT_EQ(row.at("count").get<double>(), 4);
    EXPECT_EQ(row.at("timing").get<std::string>(), "wall");
    EXPECT_GE(row.at("time_us").get<double>(), 0);
    EXPECT_TRUE(row.at("fused").is_array());
    names.insert(row.at("op").get<std::string>());
  }
  EXPECT_EQ(names.count("MUL"), 1u);
  EXPECT_EQ(names.count("MAXIMUM") + names.count("ADD"), names.size() - 1);
  EXPECT_NE(r.out.find("Operator-wise profiling: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Totals per op type:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node 0 (MUL)"), std::string::npos) << r.out;
}

TEST_F(BenchmarkToolTest, GlProfilingAndPartitionLimit) {
  GLD_REQUIRE_GL_BENCHMARK();
  json v = RunJson("--use_gpu=true --num_runs=2 --enable_op_profiling --gpu_deny_ops=ADD");
  ASSERT_TRUE(v.contains("ops"));
  EXPECT_EQ(v.at("backend").get<std::string>(), "gl");
  ASSERT_EQ(v.at("segments").get<double>(), 2);  // MUL | ADD on the CPU | MAXIMUM
  int dispatch_rows = 0, cpu_rows = 0;
  for (const json& row : v.at("ops")) {
    EXPECT_EQ(row.at("count").get<double>(), 2) << row.at("name").get<std::string>();
    if (row.at("backend").get<std::string>() == "cpu") {
      ++cpu_rows;
      EXPECT_EQ(row.at("op").get<std::string>(), "ADD");
    } else if (row.at("op").get<std::string>() != "UPLOAD" && row.at("op").get<std::string>() != "DOWNLOAD") {
      ++dispatch_rows;
    }
  }
  EXPECT_EQ(dispatch_rows, v.at("dispatches").get<double>());
  EXPECT_EQ(cpu_rows, v.at("total_nodes").get<double>() - v.at("gpu_nodes").get<double>());
  EXPECT_GT(v.at("gpu_bytes_planned").get<double>(), 0);

  json limited = RunJson("--backend=gl --num_runs=1 --gpu_deny_ops=ADD --max_delegated_partitions=1");
  ASSERT_TRUE(limited.contains("segments"));
  EXPECT_EQ(limited.at("segments").get<double>(), 1);
  EXPECT_LT(limited.at("gpu_nodes").get<double>(), v.at("gpu_nodes").get<double>());
  EXPECT_EQ(limited.at("total_nodes").get<double>(), v.at("total_nodes").get<double>());
}

TEST_F(BenchmarkToolTest, InputFilesInAndOutputsOut) {
  std::vector<float> x = {-3, -2, -1, 0, 1, 2, 3, 4, 5, 0.5f, -0.5f, 1.5f};
  std::string npy = WriteInput(x, {1, 2, 2, 3}, "x.npy");
  fs::path out_dir = dir_ / "outs";
  for (const std::string backend : {"cpu", "gl"}) {
    fs::remove_all(out_dir);
    Result r = Run("--graph=" + model_ + " --backend=" + backend + " --num_runs=2 --input_layer_value_files=in::0:" +
                   npy + " --output_dir=" + out_dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("from " + npy), std::string::npos) << r.out;
    auto y = ReadNpy((out_dir / "0_out_y.npy").string());
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(y->shape, (std::vector<int>{1, 2, 2, 3}));
    ASSERT_EQ(y->data.size(), x.size() * 4);
    std::vector<float> got(x.size());
    std::memcpy(got.data(), y->data.data(), y->data.size());
    const float c1[3] = {1, 2, 3}, c2[3] = {2, -1, 0.5f};
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(got[i], std::max(0.0f, x[i] * c2[i % 3] + c1[i % 3])) << backend << " element " << i;
    }
  }
}

// --signature=decode times a decoder's decode step; --resident_state binds
// each KV cache input with its output to one host buffer, updated in place
// by every run as a decode loop does.
TEST_F(BenchmarkToolTest, DecodeSignatureWithResidentState) {
  const std::string decoder = std::string(GLD_TEST_DATA_DIR) + "/decoders/litert_gen/model.tflite";
  if (!fs::exists(decoder)) GTEST_SKIP() << "no " << decoder;
  Result plain = Run("--graph=" + decoder + " --signature=decode --backend=cpu --num_runs=3");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("'decode_kv_cache_k_0' [1, 64, 2, 16] float32 random"), std::string::npos) << plain.out;
  EXPECT_EQ(plain.out.find("Resident state"), std::string::npos) << plain.out;
  Result resident = Run("--graph=" + decoder + " --signature=decode --backend=cpu --num_runs=3 --resident_state");
  ASSERT_EQ(resident.exit_code, 0) << resident.err;
  EXPECT_NE(resident.out.find("Resident state (signature 'decode'): 4 input/output pair(s)"), std::string::npos)
      << resident.out;
  EXPECT_NE(resident.out.find("count=3"), std::string::npos) << resident.out;
  ExpectOneLineError(Run("--graph=" + model_ + " --num_runs=1 --resident_state"), "has no signatures");
}

TEST_F(BenchmarkToolTest, BadFlagsAreOneLineErrors) {
  ExpectOneLineError(Run("--graph=" + model_ + " --no_such_flag"), "--no_such_flag");
  ExpectOneLineError(Run("--num_runs=3"), "--graph");
  ExpectOneLineError(Run("--graph=" + model_ + " --num_runs=0"), "--num_runs");
  ExpectOneLineError(Run("--graph=" + model_ + " --num_runs=many"), "--num_runs");
  ExpectOneLineError(Run("--graph=" + model_ + " --warmup_runs=-1"), "--warmup_runs");
  ExpectOneLineError(Run("--graph=" + model_ + " --min_secs=-1"), "--min_secs");
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=vulkan"), "vulkan");
  ExpectOneLineError(Run("--graph=" + model_ + " --precision=fp8"), "fp8");
  ExpectOneLineError(Run("--graph=" + model_ + " --use_gpu=maybe"), "--use_gpu");
  ExpectOneLineError(Run("--graph=" + model_ + " --use_gpu=true --backend=cpu"), "disagree");
  ExpectOneLineError(Run("--graph=" + model_ + " --gpu_precision_loss_allowed=true --precision=fp32"), "disagree");
  ExpectOneLineError(Run("--graph=" + model_ + " --cache_dir=a --delegate_serialize_dir=b"), "disagree");
  ExpectOneLineError(Run("--graph=" + model_ + " --max_delegated_partitions=-2"), "--max_delegated_partitions");
  ExpectOneLineError(Run("--graph=" + model_ + " --threads=0"), "--threads");
  ExpectOneLineError(Run("--graph=" + model_ + " --gpu_deny_ops=NOT_AN_OP"), "NOT_AN_OP");
  ExpectOneLineError(Run("--graph=" + model_ + " --input_layer_value_files=in0"), "in0");
}

TEST_F(BenchmarkToolTest, MissingFileAndBadModelAreOneLineErrors) {
  const std::string missing = (dir_ / "missing.tflite").string();
  ExpectOneLineError(Run("--graph=" + missing), missing);
  const fs::path junk = dir_ / "junk.tflite";
  std::ofstream(junk, std::ios::binary) << "this is not a flatbuffer, just forty-odd bytes of text";
  ExpectOneLineError(Run("--graph=" + junk.string()), junk.string());
  // A real model cut short.
  const std::string bytes = testing::ReadWholeFile(model_);
  const fs::path cut = dir_ / "cut.tflite";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  ExpectOneLineError(Run("--graph=" + cut.string()), cut.string());
}

TEST_F(BenchmarkToolTest, BadInputFilesAreOneLineErrors) {
  const fs::path garbage = dir_ / "garbage.npy";
  std::ofstream(garbage, std::ios::binary) << "\x93NUMPY but not really";
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer_value_files=in::0:" + garbage.string()),
                     garbage.string());
  const std::string missing = (dir_ / "missing.npy").string();
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer_value_files=in::0:" + missing),
                     missing);
  const std::string wrong_shape = WriteInput(std::vector<float>(6, 1.0f), {1, 6}, "wrong_shape.npy");
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer_value_files=in::0:" + wrong_shape),
                     "shape [1, 6]");
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer_value_files=nope:" + wrong_shape),
                     "no input named 'nope'");
}

// ---- benchmark_model's flags, one test each --------------------------------

TEST_F(BenchmarkToolTest, MaxSecsStopsTheTimedRuns) {
  json v = RunJson("--backend=cpu --num_runs=100000000 --warmup_runs=0 --max_secs=0.3");
  ASSERT_TRUE(v.contains("num_runs"));
  EXPECT_GE(v.at("num_runs").get<double>(), 1);
  EXPECT_LT(v.at("num_runs").get<double>(), 100000000);
}

TEST_F(BenchmarkToolTest, RunDelayWaitsBetweenTimedRuns) {
  const auto start = std::chrono::steady_clock::now();
  json v = RunJson("--backend=cpu --num_runs=4 --warmup_runs=0 --run_delay=0.1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(v.at("num_runs").get<double>(), 4);
  EXPECT_GE(seconds, 0.3);  // three sleeps of 0.1 s between four runs
  ExpectOneLineError(Run("--graph=" + model_ + " --run_delay=-2"), "--run_delay");
}

TEST_F(BenchmarkToolTest, InputLayerAndShapeAreCheckedAgainstTheModel) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --num_runs=1 --input_layer=in:0 --input_layer_shape=1,2,2,3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLineError(
      Run("--graph=" + model_ + " --backend=cpu --num_runs=1 --input_layer=in:0 --input_layer_shape=1,4,4,3"),
      "input 'in:0' has the fixed shape [1, 2, 2, 3]; gldelegate cannot resize it to [1, 4, 4, 3]");
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer=nope"), "nope");
  ExpectOneLineError(Run("--graph=" + model_ + " --backend=cpu --input_layer=in:0 --input_layer_shape=1,2:3,4"),
                     "--input_layer names 1 inputs but --input_layer_shape gives 2 shapes");
}

TEST_F(BenchmarkToolTest, VerboseListsEveryFlag) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --num_runs=3 --verbose");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--num_runs: [3]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--warmup_runs: [1] (default)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max_secs: [150] (default)"), std::string::npos) << r.out;
}

TEST_F(BenchmarkToolTest, DryRunCreatesButRunsNothing) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --dry_run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Dry run: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Initialized session in "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Inference (avg)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Memory footprint delta from the start of the tool (MB): init="), std::string::npos) << r.out;
}

TEST_F(BenchmarkToolTest, PrintPreinvokeStateShowsTensorsAndPlacement) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --num_runs=1 --print_preinvoke_state");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t state = r.out.find("Interpreter state before the first invoke:");
  ASSERT_NE(state, std::string::npos) << r.out;
  EXPECT_LT(state, r.out.find("count="));
  EXPECT_NE(r.out.find("  input 0: 'in:0' [1, 2, 2, 3] float32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node 0 (MUL): CPU (backend is cpu)"), std::string::npos) << r.out;
}

TEST_F(BenchmarkToolTest, GpuExperimentalEnableQuantTrueOnly) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --num_runs=1 --gpu_experimental_enable_quant=true");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ExpectOneLineError(Run("--graph=" + model_ + " --gpu_experimental_enable_quant=false"),
                     "--gpu_experimental_enable_quant=false is not supported");
}

TEST_F(BenchmarkToolTest, ExternalDelegateIsRefused) {
  ExpectOneLineError(Run("--graph=" + model_ + " --external_delegate_path=libfoo.so"),
                     "--external_delegate_path/--external_delegate_options are not supported");
}

TEST_F(BenchmarkToolTest, MinNodesPerPartitionKeepsSmallSegmentsOnTheCpu) {
  GLD_REQUIRE_GL_BENCHMARK();
  // ADD on the CPU leaves two one-node segments (MUL | MAXIMUM).
  json two = RunJson("--backend=gl --num_runs=1 --gpu_deny_ops=ADD");
  EXPECT_EQ(two.at("segments").get<double>(), 2);
  json none = RunJson("--backend=gl --num_runs=1 --gpu_deny_ops=ADD --min_nodes_per_partition=2");
  EXPECT_EQ(none.at("segments").get<double>(), 0);
  EXPECT_EQ(none.at("gpu_nodes").get<double>(), 0);
  ExpectOneLineError(Run("--graph=" + model_ + " --min_nodes_per_partition=-1"), "--min_nodes_per_partition");
}

TEST_F(BenchmarkToolTest, ProfilingCsvFile) {
  const std::string csv = (dir_ / "ops.csv").string();
  json v = RunJson("--backend=cpu --num_runs=2 --enable_op_profiling --profiling_output_csv_file=" + csv);
  std::istringstream lines(testing::ReadWholeFile(csv));
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "node type,start,first,avg_ms,%,cdf%,mem KB,times called,name");
  size_t rows = 0;
  while (std::getline(lines, line)) {
    ++rows;
    EXPECT_NE(line.find(",2,\"node "), std::string::npos) << line;
  }
  EXPECT_EQ(rows, v.at("ops").size());
  ExpectOneLineError(Run("--graph=" + model_ + " --profiling_output_csv_file=" + csv),
                     "--profiling_output_csv_file needs --enable_op_profiling");
}

TEST_F(BenchmarkToolTest, NumThreadsMinusOneMeansEveryCore) {
  Result r = Run("--graph=" + model_ + " --backend=cpu --num_runs=1 --num_threads=-1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(BenchmarkToolTest, UseGpuAllowsPrecisionLossByDefault) {
  GLD_REQUIRE_GL_BENCHMARK();
  EXPECT_EQ(RunJson("--use_gpu=true --num_runs=1").at("precision").get<std::string>(), "fp16");
  EXPECT_EQ(RunJson("--use_gpu=true --gpu_precision_loss_allowed=false --num_runs=1").at("precision").get<std::string>(), "fp32");
  EXPECT_EQ(RunJson("--use_gpu=true --precision=fp32 --num_runs=1").at("precision").get<std::string>(), "fp32");
}

TEST_F(BenchmarkToolTest, HelpNamesTheTfliteFlagsTakenDifferently) {
  Result r = Run("--help");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("benchmark_model flags taken with another meaning or refused"), std::string::npos) << r.out;
  for (const char* flag : {"--use_gpu=true", "--external_delegate_path", "--gpu_experimental_enable_quant",
                           "--input_layer_shape", "--profiling_output_csv_file", "--use_xnnpack"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
  // How to run gldelegate inside TFLite instead.
  EXPECT_NE(r.out.find("--external_delegate_path=libgldelegate.so"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gldelegate.load_delegate"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gld
