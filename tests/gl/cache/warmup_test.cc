// gld_warmup as a user runs it: warming, reuse, precisions, --verify, a
// failing model, and two processes warming one folder at once.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gl/cache/cache_test_util.h"
#include "gl/cache/binary_cache.h"

#ifndef GLD_WARMUP_PATH
#define GLD_WARMUP_PATH ""
#endif

namespace gld::testing {
namespace {

// One row of the summary table.
struct Row {
  std::string model, precision, status;
  int programs = -1, compiled = -1, reused = -1;
  long long bytes = -1;
};

std::map<std::string, Row> ParseSummary(const std::string& out) {
  std::map<std::string, Row> rows;
  std::istringstream in(out);
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line.rfind("model ", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.empty()) {
      in_table = false;
      continue;
    }
    std::istringstream f(line);
    Row r;
    double seconds = 0;
    f >> r.model >> r.precision >> r.programs >> r.compiled >> r.reused >> r.bytes >> seconds;
    std::getline(f, r.status);
    r.status.erase(0, r.status.find_first_not_of(' '));
    rows[r.model + "/" + r.precision] = r;
  }
  return rows;
}

class WarmupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(GLD_WARMUP_PATH).empty()) GTEST_SKIP() << "gld_warmup not built (GLD_BUILD_TOOLS=OFF)";
    const char* skip = std::getenv("GLD_SKIP_GL_TESTS");
    if (skip != nullptr && *skip != '\0' && std::string(skip) != "0") GTEST_SKIP() << "GLD_SKIP_GL_TESTS is set";
    std::filesystem::create_directories(dir_.Sub("models"));
    WriteAll(dir_.Sub("models/small.tflite"), CacheTestModel(4, 4, 4, 1.0f));
    WriteAll(dir_.Sub("models/wide.tflite"), CacheTestModel(2, 16, 12, 2.0f));
    cache_ = dir_.Sub("cache");
  }

  CommandResult Warmup(const std::string& args) {
    return RunCommand(std::string("'") + GLD_WARMUP_PATH + "' " + args, dir_.path());
  }

  TempDir dir_;
  std::string cache_;
};

TEST_F(WarmupTest, WarmsEveryModelThenReusesEverything) {
  CommandResult first = Warmup("--graph_dir=" + dir_.Sub("models") + " --cache_dir=" + cache_);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  auto rows = ParseSummary(first.out);
  ASSERT_EQ(rows.size(), 2u) << first.out;
  for (const auto& [name, r] : rows) {
    EXPECT_EQ(r.status, "ok") << name;
    EXPECT_GT(r.programs, 0) << name;
    EXPECT_EQ(r.compiled, r.programs) << name;
    EXPECT_EQ(r.reused, 0) << name;
    EXPECT_GT(r.bytes, 0) << name;
  }
  EXPECT_EQ(EntryFiles(cache_).size(), 2u);
  // Not a terminal: one plain progress line per model.
  EXPECT_NE(first.err.find("[1/2]"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("[2/2]"), std::string::npos) << first.err;

  CommandResult second = Warmup("--graph=" + dir_.Sub("models/small.tflite") + "," + dir_.Sub("models/wide.tflite") +
                                " --cache_dir=" + cache_ + " --verify");
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  for (const auto& [name, r] : ParseSummary(second.out)) {
    EXPECT_EQ(r.compiled, 0) << name;
    EXPECT_EQ(r.reused, rows.at(name).programs) << name;
  }
  EXPECT_NE(second.out.find("verify " + cache_ + ": 2 entries"), std::string::npos) << second.out;
}

// "small.tflite (fp32): N dispatches tuned, M timed runs" -> {N, M}; {-1, -1}
// when absent.
std::pair<int, int> TuningLine(const std::string& out, const std::string& what) {
  const size_t at = out.find("  " + what + ": ");
  if (at == std::string::npos) return {-1, -1};
  int tuned = -1, timed = -1;
  std::sscanf(out.c_str() + at + what.size() + 4, "%d dispatches tuned, %d timed runs", &tuned, &timed);
  return {tuned, timed};
}

TEST_F(WarmupTest, TuneStoresWorkgroupsThatALaterRunUsesWithoutTiming) {
  const std::string model = dir_.Sub("models/wide.tflite");
  CommandResult plain = Warmup("--graph=" + model + " --cache_dir=" + dir_.Sub("plain"));
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_EQ(TuningLine(plain.out, "wide.tflite (fp32)").first, -1) << "no tuning without --tune: " << plain.out;

  CommandResult tuned = Warmup("--graph=" + model + " --cache_dir=" + cache_ + " --tune");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.out << tuned.err;
  const auto [n, timed] = TuningLine(tuned.out, "wide.tflite (fp32)");
  EXPECT_GT(n, 0) << tuned.out;
  EXPECT_GT(timed, n) << tuned.out;
  EXPECT_TRUE(std::filesystem::is_regular_file(cache_ + "/workgroups.gldt"));

  CommandResult later = Warmup("--graph=" + model + " --cache_dir=" + cache_);
  ASSERT_EQ(later.exit_code, 0) << later.out << later.err;
  EXPECT_EQ(TuningLine(later.out, "wide.tflite (fp32)"), std::make_pair(n, 0)) << later.out;
  for (const auto& [name, r] : ParseSummary(later.out)) EXPECT_EQ(r.compiled, 0) << name;
}

// On a terminal (util-linux `script` gives it one) the progress is one bar
// line: models done of all, programs compiled, elapsed and ETA; the plain
// per-model lines are for pipes and files.
TEST_F(WarmupTest, ProgressBarOnATerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` to make a terminal";
  const std::string inner = std::string("'") + GLD_WARMUP_PATH + "' --graph_dir=" + dir_.Sub("models") +
                            " --cache_dir=" + cache_;
  CommandResult r = RunCommand("script -qec \"" + inner + "\" /dev/null", dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string all = r.out + r.err;
  EXPECT_NE(all.find("2/2 models, "), std::string::npos) << all;
  EXPECT_NE(all.find(" programs compiled, "), std::string::npos) << all;
  EXPECT_NE(all.find("ETA "), std::string::npos) << all;
  EXPECT_EQ(all.find("[1/2] "), std::string::npos) << all;  // no plain lines
}

TEST_F(WarmupTest, EveryPrecisionGetsItsEntry) {
  CommandResult r = Warmup("--graph=" + dir_.Sub("models/small.tflite") + " --cache_dir=" + cache_ +
                           " --precision=fp32,fp16 --jobs=2");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto rows = ParseSummary(r.out);
  EXPECT_EQ(rows.count("small.tflite/fp32"), 1u) << r.out;
  EXPECT_EQ(rows.count("small.tflite/fp16"), 1u) << r.out;
  EXPECT_EQ(EntryFiles(cache_).size(), 2u);
}

TEST_F(WarmupTest, VerifyFindsABadEntry) {
  ASSERT_EQ(Warmup("--graph_dir=" + dir_.Sub("models") + " --cache_dir=" + cache_).exit_code, 0);
  const std::vector<std::string> files = EntryFiles(cache_);
  ASSERT_EQ(files.size(), 2u);
  std::vector<uint8_t> bytes = ReadAll(files[0]);
  bytes[bytes.size() / 2] ^= 0x01;
  WriteAll(files[0], bytes);
  CommandResult r = Warmup("--cache_dir=" + cache_ + " --verify");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("bad: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 2 entries are stale or bad"), std::string::npos) << r.out;
}

TEST_F(WarmupTest, AFailingModelFailsTheRunWithItsReason) {
  WriteAll(dir_.Sub("broken.tflite"), {1, 2, 3, 4, 5});
  CommandResult r = Warmup("--graph=" + dir_.Sub("broken.tflite") + "," + dir_.Sub("models/small.tflite") +
                           " --cache_dir=" + cache_);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto rows = ParseSummary(r.out);
  ASSERT_EQ(rows.count("broken.tflite/fp32"), 1u) << r.out;
  EXPECT_EQ(rows["broken.tflite/fp32"].status.rfind("FAILED: ", 0), 0u) << r.out;
  EXPECT_GT(rows["broken.tflite/fp32"].status.size(), 10u);
  EXPECT_EQ(rows["small.tflite/fp32"].status, "ok") << r.out;
}

TEST_F(WarmupTest, BadFlagsExitTwo) {
  EXPECT_EQ(Warmup("--cache_dir=" + cache_ + " --bogus").exit_code, 2);
  EXPECT_EQ(Warmup("--graph=x.tflite").exit_code, 2);  // --cache_dir is required
  EXPECT_EQ(Warmup("--cache_dir=" + cache_ + " --graph=x.tflite --precision=fp64").exit_code, 1);
}

TEST_F(WarmupTest, TwoProcessesWarmingOneFolderEndValid) {
  const std::string args = " --graph_dir=" + dir_.Sub("models") + " --cache_dir=" + cache_ +
                           " --precision=fp32,fp16 >/dev/null 2>&1";
  const std::string tool = std::string("'") + GLD_WARMUP_PATH + "'";
  // Both start on an empty folder and write the same four entries.
  CommandResult both = RunCommand(tool + args + " & a=$!; " + tool + args + " & b=$!; wait $a && wait $b",
                                  dir_.path());
  ASSERT_EQ(both.exit_code, 0) << both.out << both.err;
  const std::vector<std::string> files = EntryFiles(cache_);
  EXPECT_EQ(files.size(), 4u);
  for (const std::string& f : files) {
    const std::vector<uint8_t> bytes = ReadAll(f);
    auto entry = gl::DecodeCacheEntry(bytes.data(), bytes.size(), "");
    EXPECT_TRUE(entry.ok()) << f << ": " << entry.status().ToString();
  }
  // No temporary file is left behind.
  for (const auto& e : std::filesystem::directory_iterator(cache_)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
  CommandResult third = Warmup("--graph_dir=" + dir_.Sub("models") + " --cache_dir=" + cache_ +
                               " --precision=fp32,fp16 --verify");
  ASSERT_EQ(third.exit_code, 0) << third.out << third.err;
  for (const auto& [name, r] : ParseSummary(third.out)) EXPECT_EQ(r.compiled, 0) << name;
}

}  // namespace
}  // namespace gld::testing
