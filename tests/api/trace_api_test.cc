// Options::enable_trace through the C++ and C APIs: nothing without it;
// with it, creation's events and each Invoke's, ResetProfile dropping the
// runs' events only, and GldInterpreterGetTrace giving the same events;
// the bound (Options::trace_max_invokes, default 256; C
// GldOptionsSetTraceMaxInvokes): the last N invokes' events, and a
// "trace_dropped" metadata event counting what went.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "test_models.h"

namespace gld {
namespace {

size_t CountNamed(const std::vector<TraceEvent>& events, const std::string& name) {
  size_t n = 0;
  for (const TraceEvent& e : events) n += e.name == name ? 1 : 0;
  return n;
}

std::unique_ptr<Interpreter> MakeInterpreter(bool trace, int max_invokes = Options{}.trace_max_invokes) {
  const std::vector<uint8_t> bytes = testing::AddReluModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return nullptr;
  Options options;
  options.backend = Backend::kCpu;
  options.enable_trace = trace;
  options.trace_max_invokes = max_invokes;
  auto interp = Interpreter::Create(**model, options);
  EXPECT_TRUE(interp.ok()) << interp.status().ToString();
  return interp.ok() ? std::move(*interp) : nullptr;
}

// The arg `name` of the "trace_dropped" event (-1: no such event or arg).
double DroppedArg(const std::vector<TraceEvent>& events, const std::string& name) {
  for (const TraceEvent& e : events) {
    if (e.phase != 'M' || e.name != "trace_dropped") continue;
    for (const TraceArg& a : e.args) {
      if (a.name == name) return a.number;
    }
  }
  return -1;
}

// Was: every invoke's events kept (2.6 GB of RSS after 10^6 invokes).
TEST(TraceApi, KeepsTheLastInvokesAndSaysWhatWasDropped) {
  auto interp = MakeInterpreter(true, 10);
  ASSERT_NE(interp, nullptr);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(interp->Invoke().ok());
  const size_t full = interp->trace().size();
  EXPECT_EQ(DroppedArg(interp->trace(), "dropped_invokes"), -1);  // nothing dropped yet
  for (int i = 0; i < 990; ++i) ASSERT_TRUE(interp->Invoke().ok());
  const std::vector<TraceEvent> events = interp->trace();
  EXPECT_EQ(CountNamed(events, "Invoke"), 10u);
  EXPECT_EQ(CountNamed(events, "create the interpreter"), 1u);  // Create's events stay
  EXPECT_EQ(events.size(), full + 1);  // the same, and the drop's event
  EXPECT_EQ(DroppedArg(events, "dropped_invokes"), 990);
  EXPECT_EQ(DroppedArg(events, "kept_invokes"), 10);
  EXPECT_GT(DroppedArg(events, "dropped_events"), 990);
  // The default keeps 256.
  auto by_default = MakeInterpreter(true);
  ASSERT_NE(by_default, nullptr);
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(by_default->Invoke().ok());
  EXPECT_EQ(CountNamed(by_default->trace(), "Invoke"), 256u);
  EXPECT_EQ(DroppedArg(by_default->trace(), "dropped_invokes"), 44);
  // ResetProfile starts the count again.
  by_default->ResetProfile();
  EXPECT_EQ(DroppedArg(by_default->trace(), "dropped_invokes"), -1);
  // A bad number is refused, naming the option, through C++ and C.
  const std::vector<uint8_t> bytes = testing::AddReluModel();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  ASSERT_TRUE(model.ok());
  Options options;
  options.backend = Backend::kCpu;
  options.enable_trace = true;
  options.trace_max_invokes = 0;
  auto refused = Interpreter::Create(**model, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "trace_max_invokes must be >= 1, got 0");
  GldOptions* c = GldOptionsCreate();
  EXPECT_EQ(GldOptionsSetTraceMaxInvokes(c, -4), GLD_INVALID_ARGUMENT);
  EXPECT_NE(std::string(GldLastErrorMessage()).find("trace_max_invokes must be >= 1, got -4"), std::string::npos)
      << GldLastErrorMessage();
  ASSERT_EQ(GldOptionsSetTraceMaxInvokes(c, 3), GLD_OK);
  int32_t back = 0;
  ASSERT_EQ(GldOptionsGetTraceMaxInvokes(c, &back), GLD_OK);
  EXPECT_EQ(back, 3);
  GldOptionsDelete(c);
}

TEST(TraceApi, EmptyWithoutTheOption) {
  auto interp = MakeInterpreter(false);
  ASSERT_NE(interp, nullptr);
  ASSERT_TRUE(interp->Invoke().ok());
  EXPECT_TRUE(interp->trace().empty());
}

TEST(TraceApi, CreationAndRunsAndReset) {
  auto interp = MakeInterpreter(true);
  ASSERT_NE(interp, nullptr);
  const size_t at_create = interp->trace().size();
  EXPECT_EQ(CountNamed(interp->trace(), "create the interpreter"), 1u);
  ASSERT_TRUE(interp->Invoke().ok());
  ASSERT_TRUE(interp->Invoke().ok());
  const std::vector<TraceEvent> events = interp->trace();
  EXPECT_EQ(CountNamed(events, "Invoke"), 2u);
  EXPECT_EQ(CountNamed(events, "bytes moved per run"), 2u);
  size_t cpu = 0;
  double last = -1;
  bool metadata = true;
  for (const TraceEvent& e : events) {
    if (e.phase == 'M') {
      EXPECT_TRUE(metadata) << "metadata after events";
      continue;
    }
    metadata = false;
    EXPECT_GE(e.ts_us, last) << e.name;
    last = e.ts_us;
    EXPECT_GE(e.dur_us, 0.0);
    EXPECT_GT(e.tid, 0);
    if (e.category == "cpu") ++cpu;
  }
  // ADD and RELU, in one step or two, each run.
  EXPECT_GE(cpu, 2u);
  interp->ResetProfile();
  EXPECT_EQ(interp->trace().size(), at_create);
  EXPECT_EQ(CountNamed(interp->trace(), "Invoke"), 0u);
}

TEST(TraceApi, CApiGivesTheSameEvents) {
  const std::vector<uint8_t> bytes = testing::AddReluModel();
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  ASSERT_EQ(GldOptionsSetTracing(options, 1), GLD_OK);
  int32_t on = 0;
  ASSERT_EQ(GldOptionsGetTracing(options, &on), GLD_OK);
  EXPECT_EQ(on, 1);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK);
  const GldTraceEvent* events = nullptr;
  int32_t count = 0;
  ASSERT_EQ(GldInterpreterGetTrace(interp, &events, &count), GLD_OK);
  ASSERT_GT(count, 0);
  int invokes = 0, counters = 0;
  for (int32_t i = 0; i < count; ++i) {
    const GldTraceEvent& e = events[i];
    ASSERT_NE(e.name, nullptr);
    ASSERT_NE(e.category, nullptr);
    if (std::string(e.name) == "Invoke") ++invokes;
    if (e.phase == 'C') {
      ++counters;
      ASSERT_GT(e.arg_count, 0);
      for (int32_t a = 0; a < e.arg_count; ++a) EXPECT_EQ(e.args[a].text, nullptr);  // numbers
    }
  }
  EXPECT_EQ(invokes, 1);
  EXPECT_EQ(counters, 1);
  EXPECT_EQ(GldInterpreterGetTrace(nullptr, &events, &count), GLD_INVALID_ARGUMENT);
  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
