// gld_benchmark --trace on a shared real model: the file is a Trace Event
// Format document (what ui.perfetto.dev and chrome://tracing open) with an
// event per GL dispatch (--backend=gl) or per CPU node (--backend=cpu) of
// the timed runs, the program builds of the interpreter's creation, and a
// bytes-moved counter per run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "common/model_paths.h"
#include "common/strict_json.h"
#include "common/tool_run.h"

namespace gld {
namespace {

#ifdef GLD_BENCHMARK_PATH
constexpr char kBenchmark[] = GLD_BENCHMARK_PATH;
#else
constexpr char kBenchmark[] = "";
#endif
constexpr char kModel[] = "hand_landmark_lite.tflite";
using nlohmann::json;
namespace fs = std::filesystem;

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(kBenchmark).empty()) GTEST_SKIP() << "gld_benchmark not built (GLD_BUILD_TOOLS=OFF)";
    if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
    dir_ = testing::FreshTestDir("gld_trace_test");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Runs gld_benchmark with --trace and --json; false (the test skipped or
  // failed) when it could not run.
  bool Run(const std::string& backend, int runs) {
    const std::string args = "--graph=" + testing::ModelPath(kModel) + " --backend=" + backend +
                             " --num_runs=" + std::to_string(runs) + " --warmup_runs=1 --trace=" +
                             (dir_ / "t.json").string() + " --json=" + (dir_ / "r.json").string();
    result_ = testing::RunTool(dir_, kBenchmark, args, "", "", 600);
    if (result_.exit_code != 0) {
      const char* skip = std::getenv("GLD_SKIP_GL_TESTS");
      if (backend == "gl" && skip != nullptr && *skip != '\0' && std::string(skip) != "0") return false;
      ADD_FAILURE() << "gld_benchmark " << args << " exited " << result_.exit_code << ": " << result_.err;
      return false;
    }
    EXPECT_NE(result_.out.find("Wrote " + (dir_ / "t.json").string()), std::string::npos) << result_.out;
    auto trace = testing::ReadStrictJsonFile((dir_ / "t.json").string());
    auto report = testing::ReadStrictJsonFile((dir_ / "r.json").string());
    if (!trace.ok() || !report.ok()) {
      ADD_FAILURE() << trace.status().ToString() << " " << report.status().ToString();
      return false;
    }
    trace_ = *trace;
    report_ = *report;
    return true;
  }

  // The format's rules for every event; returns the 'X' events of `category`.
  std::vector<json> CheckEvents(const std::string& category) {
    std::vector<json> found;
    EXPECT_TRUE(trace_.is_object());
    EXPECT_TRUE(trace_.contains("traceEvents") && trace_["traceEvents"].is_array());
    double last_ts = -1;
    bool seen_non_metadata = false;
    for (const json& e : trace_["traceEvents"]) {
      SCOPED_TRACE(e.dump());
      for (const char* key : {"name", "ph", "pid", "tid", "args"}) EXPECT_TRUE(e.contains(key)) << key;
      EXPECT_TRUE(e["name"].is_string());
      EXPECT_TRUE(e["pid"].is_number_integer());
      EXPECT_TRUE(e["tid"].is_number_integer());
      EXPECT_TRUE(e["args"].is_object());
      const std::string ph = e.value("ph", "");
      if (ph != "X" && ph != "C" && ph != "M") {
        ADD_FAILURE() << "phase " << ph;
        continue;
      }
      if (ph == "M") {
        EXPECT_FALSE(seen_non_metadata) << "metadata after events";
        EXPECT_TRUE(e["args"].contains("name") || e["args"].contains("sort_index"));
        continue;
      }
      seen_non_metadata = true;
      if (!e.contains("ts") || !e["ts"].is_number()) {
        ADD_FAILURE() << "no ts";
        continue;
      }
      const double ts = e["ts"].get<double>();
      EXPECT_GE(ts, last_ts) << "ts not monotonic";
      last_ts = ts;
      EXPECT_TRUE(e.contains("cat") && e["cat"].is_string());
      if (ph == "X") {
        if (!e.contains("dur") || !e["dur"].is_number()) {
          ADD_FAILURE() << "no dur";
          continue;
        }
        EXPECT_GE(e["dur"].get<double>(), 0.0);
        if (e["cat"] == category) found.push_back(e);
      } else {
        EXPECT_FALSE(e.contains("dur"));
        EXPECT_FALSE(e["args"].empty());
        for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << "counter series " << k;
      }
    }
    return found;
  }

  size_t Count(const std::string& ph, const std::string& name_or_cat) const {
    size_t n = 0;
    for (const json& e : trace_["traceEvents"]) {
      if (e.value("ph", "") == ph && (e.value("name", "") == name_or_cat || e.value("cat", "") == name_or_cat)) ++n;
    }
    return n;
  }

  fs::path dir_;
  testing::ToolResult result_;
  json trace_, report_;
};

TEST_F(TraceTest, GlTraceHasAnEventPerDispatchOfEachRun) {
  if (!Run("gl", 2)) GTEST_SKIP() << "no GL (GLD_SKIP_GL_TESTS): " << result_.err;
  std::vector<json> dispatches = CheckEvents("gl_dispatch");
  const std::vector<json> conversions = CheckEvents("gl_conversion");
  dispatches.insert(dispatches.end(), conversions.begin(), conversions.end());
  const int per_run = report_.value("dispatches", 0);
  const int runs = report_.value("runs_completed", 0);
  ASSERT_GT(per_run, 0) << report_.dump();
  ASSERT_EQ(runs, 2);
  // Every dispatch of every timed run (the warm-up's were dropped).
  EXPECT_EQ(dispatches.size(), static_cast<size_t>(per_run * runs));
  std::set<std::pair<std::string, int>> distinct;
  for (const json& d : dispatches) {
    const json& a = d["args"];
    EXPECT_TRUE(a.contains("timing") && a.contains("segment") && a.contains("template"));
    const std::string timing = a.value("timing", "");
    EXPECT_TRUE(timing.rfind("gpu_timer", 0) == 0 || timing.rfind("gl_finish", 0) == 0) << timing;
    distinct.emplace(a.value("segment", ""), static_cast<int>(a.value("dispatch", -1.0)));
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(per_run));
  // Segment edges and creation.
  EXPECT_GE(Count("X", "transfer"), static_cast<size_t>(2 * runs));
  EXPECT_GE(Count("X", "startup"), 2u);
  size_t builds = 0;
  for (const json& e : trace_["traceEvents"]) {
    const std::string name = e.value("name", "");
    if (e.value("cat", "") == "startup" && (name.rfind("compile ", 0) == 0 || name.rfind("restore ", 0) == 0)) ++builds;
  }
  EXPECT_GT(builds, 0u) << "no program compile or cache hit at creation";
  EXPECT_EQ(Count("X", "Invoke"), static_cast<size_t>(runs));
  EXPECT_EQ(Count("C", "bytes moved per run"), static_cast<size_t>(runs));
  EXPECT_GE(Count("M", "thread_name"), 2u);  // the calling thread and the GPU track
  EXPECT_EQ(Count("M", "process_name"), 1u);
}

TEST_F(TraceTest, CpuTraceHasAnEventPerNodeOfEachRun) {
  ASSERT_TRUE(Run("cpu", 2));
  const std::vector<json> steps = CheckEvents("cpu");
  const int nodes = report_.value("total_nodes", 0);
  ASSERT_GT(nodes, 0);
  // Each step is one node or a node with its epilogue chain ("node 3 (CONV_2D)
  // + node 4 (RELU)"): every node is named by the steps of each run.
  std::map<std::string, int> runs_of;
  for (const json& s : steps) {
    const std::string name = s.value("name", "");
    EXPECT_TRUE(s["args"].contains("threads") && s["args"].contains("op")) << s.dump();
    // Each "node <n> (<op>)" of the name (no std::regex: GCC 12 under
    // ASan warns inside it, and CI builds with -Werror).
    for (size_t at = name.find("node "); at != std::string::npos; at = name.find("node ", at + 1)) {
      const size_t open = name.find(" (", at + 5), close = name.find(')', at);
      if (open == std::string::npos || close == std::string::npos || open > close) continue;
      if (name.find_first_not_of("0123456789", at + 5) != open || open == at + 5) continue;
      ++runs_of[name.substr(at, close + 1 - at)];
    }
  }
  EXPECT_EQ(runs_of.size(), static_cast<size_t>(nodes));
  for (const auto& [label, count] : runs_of) EXPECT_EQ(count, 2) << label;
  EXPECT_EQ(Count("X", "Invoke"), 2u);
  EXPECT_EQ(Count("C", "bytes moved per run"), 2u);
  EXPECT_EQ(Count("X", "gl_dispatch"), 0u);
}

}  // namespace
}  // namespace gld
