// Workgroup tuning kept in the cache folder (gl/workgroup_tuning.h,
// Options::tune_workgroups): a tuning run stores winners that a later run
// uses without timing; foreign, corrupt or unreadable files are ignored with
// a warning; plans take a stored workgroup without GL.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gl/cache/binary_cache.h"
#include "gl/cache/cache_test_util.h"
#include "gl/segment_plan.h"
#include "gl/workgroup_tuning.h"
#include "gl/gl_test_util.h"
#include "partition/partition.h"

namespace gld::testing {
namespace {

Options GlCacheOptions(const std::string& dir, bool tune) {
  Options o;
  o.backend = Backend::kGl;
  o.cache_dir = dir;
  o.tune_workgroups = tune;
  return o;
}

std::string ReadText(const std::string& path) {
  std::vector<uint8_t> b = ReadAll(path);
  return std::string(b.begin(), b.end());
}

void WriteText(const std::string& path, const std::string& text) {
  WriteAll(path, std::vector<uint8_t>(text.begin(), text.end()));
}

TEST(WorkgroupTuningTest, LaterRunUsesTheStoredTuningWithoutTiming) {
  GLD_REQUIRE_GL(env);
  TempDir dir;
  const std::vector<uint8_t> model = CacheTestModel(6, 10, 8, 0.5f);
  const InterpreterReport tuned = RunAndCheck(model, GlCacheOptions(dir.path(), true), 0.5f);
  EXPECT_GT(tuned.workgroup_timing_runs, 0);
  EXPECT_GT(tuned.tuned_dispatches, 0);
  const std::string text = ReadText(gl::TuningPath(dir.path()));
  EXPECT_EQ(text.rfind("gldelegate workgroup tuning 1\n", 0), 0u) << text;

  const int64_t timed_before = gl::WorkgroupTimingRuns();
  WarningCounter warnings;
  const InterpreterReport later = RunAndCheck(model, GlCacheOptions(dir.path(), false), 0.5f);
  EXPECT_EQ(later.workgroup_timing_runs, 0);
  EXPECT_EQ(gl::WorkgroupTimingRuns(), timed_before) << "a run without --tune timed workgroups";
  EXPECT_EQ(later.tuned_dispatches, tuned.tuned_dispatches);
  EXPECT_EQ(later.cache_misses, 0) << "the tuned programs should be in the program cache";
  EXPECT_EQ(warnings.Count("workgroup tuning"), 0) << warnings.text();
  // Without the cache folder: the default workgroups.
  Options plain;
  plain.backend = Backend::kGl;
  EXPECT_EQ(RunAndCheck(model, plain, 0.5f).tuned_dispatches, 0);
}

TEST(WorkgroupTuningTest, ForeignCorruptOrUnreadableFilesAreIgnoredWithAWarning) {
  GLD_REQUIRE_GL(env);
  TempDir dir;
  const std::vector<uint8_t> model = CacheTestModel(4, 4, 4, 1.0f);
  RunAndCheck(model, GlCacheOptions(dir.path(), true), 1.0f);
  const std::string path = gl::TuningPath(dir.path());
  const std::string good = ReadText(path);
  const size_t renderer = good.find("renderer=");
  ASSERT_NE(renderer, std::string::npos);
  std::string foreign = good;
  foreign.replace(renderer, good.find('\n', renderer) - renderer, "renderer=Some Other GPU");
  std::string bad_entry = good + "0123456789abcdef 4096 4096 4096\n";
  struct Case {
    std::string name, text, needle;
  };
  for (const Case& c : {Case{"foreign", foreign, "foreign"}, Case{"garbage", "\x01\x02 not a tuning", "corrupt"},
                        Case{"too large a workgroup", bad_entry, "outside the driver's limits"},
                        Case{"truncated", good.substr(0, good.find("--\n")), "corrupt"}}) {
    WriteText(path, c.text);
    WarningCounter warnings;
    const InterpreterReport r = RunAndCheck(model, GlCacheOptions(dir.path(), false), 1.0f);
    EXPECT_EQ(r.tuned_dispatches, 0) << c.name;
    EXPECT_EQ(r.workgroup_timing_runs, 0) << c.name;
    EXPECT_EQ(warnings.Count("workgroup tuning"), 1) << c.name << ": " << warnings.text();
    EXPECT_EQ(warnings.Count(c.needle), 1) << c.name << ": " << warnings.text();
  }
  // A FIFO in its place: refused without blocking.
  std::remove(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  WarningCounter warnings;
  EXPECT_EQ(RunAndCheck(model, GlCacheOptions(dir.path(), false), 1.0f).tuned_dispatches, 0);
  EXPECT_EQ(warnings.Count("workgroup tuning"), 1) << warnings.text();
}

TEST(WorkgroupTuningTest, PlanTakesTheStoredWorkgroup) {
  GlOpTest t;
  int x = t.Input({1, 9, 9, 8});
  t.Op(OpType::kAbs, {x});
  ASSERT_TRUE(t.RunCpu().ok());
  const Segment segment = SegmentOf(t.graph, {0});
  auto plain = gl::PlanSegment(t.graph, segment, Precision::kFp32, gl::MinimumGlLimits());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  const gl::PlannedDispatch& d = plain->dispatches[1];
  ASSERT_TRUE(d.tunable);
  EXPECT_FALSE(d.tuned);
  gl::WorkgroupTuning tuning;
  tuning.best[d.tuning_key] = {2, 2, 2};
  gl::SegmentPlanOptions options;
  options.tuning = &tuning;
  auto tuned = gl::PlanSegment(t.graph, segment, Precision::kFp32, gl::MinimumGlLimits(), options);
  ASSERT_TRUE(tuned.ok()) << tuned.status().ToString();
  const gl::PlannedDispatch& e = tuned->dispatches[1];
  EXPECT_TRUE(e.tuned);
  EXPECT_EQ(tuned->tuned_dispatches, 1);
  EXPECT_EQ(e.workgroup, (gl::Workgroup{2, 2, 2}));
  EXPECT_NE(e.source.find("#define WG_X 2\n#define WG_Y 2\n#define WG_Z 2\n"), std::string::npos);
  EXPECT_EQ(e.groups, (std::array<uint32_t, 3>{5, 5, 1}));
  EXPECT_EQ(e.tuning_key, d.tuning_key) << "the key must not depend on the workgroup";
  EXPECT_EQ(gl::WithWorkgroup(e.source, d.workgroup), d.source);
}

TEST(WorkgroupTuningTest, EncodeDecodeRoundTripAndCandidates) {
  const gl::GlInfo limits = gl::MinimumGlLimits();
  gl::WorkgroupTuning tuning;
  tuning.best[0x0123456789abcdefull] = {8, 8, 1};
  tuning.best[42] = {4, 4, 4};
  const std::string text = gl::EncodeTuning(tuning, "driver=a\n");
  auto back = gl::DecodeTuning(text, "driver=a\n", limits);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->best, tuning.best);
  auto foreign = gl::DecodeTuning(text, "driver=b\n", limits);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.status().message().find("foreign: made for 'driver=a', this driver has 'driver=b'"),
            std::string::npos)
      << foreign.status().message();
  EXPECT_FALSE(gl::DecodeTuning(text + "zz 1 1 1\n", "driver=a\n", limits).ok());
  EXPECT_FALSE(gl::DecodeTuning(text + "0000000000000001 1 1\n", "driver=a\n", limits).ok());
  const auto candidates = gl::CandidateWorkgroups({100, 100, 3}, {8, 4, 2}, limits);
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates.front(), (gl::Workgroup{8, 4, 2}));
  for (const auto& wg : candidates) EXPECT_TRUE(gl::WorkgroupFits(wg, limits));
  // A grid one wide gets no shapes wide along x.
  for (const auto& wg : gl::CandidateWorkgroups({1, 1, 500}, {1, 1, 64}, limits)) EXPECT_LE(wg[0], 2u);
}

}  // namespace
}  // namespace gld::testing
