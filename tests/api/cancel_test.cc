// Interpreter::Cancel (C++), GldInterpreterCancel (C): a WHILE that would
// loop for hours (CountingWhileModel with a limit it never reaches, and
// max_loop_iterations at its largest) is cancelled from another thread and
// ends within a bound with "invoke cancelled ..." (kCancelled) naming
// where; the interpreter then runs
// normally. On the CPU and GL backends (the WHILE runs on the CPU either way;
// on GL the ADD after it is a GL segment's when the planner takes it).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/control_flow_models.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"

namespace gld {
namespace {

using Clock = std::chrono::steady_clock;
constexpr float kNever = 1e30f;  // the counter stops growing at 2^24

struct Loop {
  std::vector<uint8_t> bytes = testing::CountingWhileModel();
  std::shared_ptr<const Model> model;
  std::unique_ptr<Interpreter> interp;
};

// False (with a skip reason in *why) when the backend is not available here.
bool MakeLoop(Backend backend, Loop* loop, std::string* why) {
  auto model = Model::FromBuffer(loop->bytes.data(), loop->bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return false;
  loop->model = *model;
  Options options;
  options.backend = backend;
  options.max_loop_iterations = std::numeric_limits<int>::max();
  auto it = Interpreter::Create(*loop->model, options);
  if (!it.ok()) {
    *why = it.status().ToString();
    EXPECT_EQ(backend, Backend::kGl) << *why;
    return false;
  }
  loop->interp = std::move(it).value();
  return true;
}

Status RunTo(Interpreter& it, float limit, float* out) {
  const float zero = 0.f;
  GLD_RETURN_IF_ERROR(it.SetInput(0, &zero, sizeof(zero)));
  GLD_RETURN_IF_ERROR(it.SetInput(1, &limit, sizeof(limit)));
  GLD_RETURN_IF_ERROR(it.Invoke());
  return it.GetOutput(0, out, sizeof(*out));
}

// Runs `invoke` on a thread, lets it loop a while, then calls `cancel` until
// it returns (a Cancel before the invoke began would be for no invoke);
// the seconds from the first cancel to the return.
template <typename Invoke, typename Cancel>
double CancelWhileRunning(Invoke invoke, Cancel cancel) {
  std::atomic<bool> done{false};
  std::thread runner([&] {
    invoke();
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto first = Clock::now();
  while (!done && Clock::now() - first < std::chrono::seconds(60)) {
    cancel();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - first).count();
  // Never cancelled: the failure shows, and the join waits out the loop bound
  // (or CTest's timeout).
  if (!done) ADD_FAILURE() << "the invoke did not end within 60 s of the first Cancel";
  runner.join();
  return seconds;
}

class CancelTest : public ::testing::TestWithParam<Backend> {};

TEST_P(CancelTest, EndsALoopThatNeverEndsAndTheNextInvokeRuns) {
  Loop loop;
  std::string why;
  if (!MakeLoop(GetParam(), &loop, &why)) GTEST_SKIP() << "no GL here: " << why;
  Interpreter& it = *loop.interp;
  float out = 0;
  Status s;
  const double seconds = CancelWhileRunning([&] { s = RunTo(it, kNever, &out); }, [&] { it.Cancel(); });
  EXPECT_EQ(s.code(), StatusCode::kCancelled) << s.ToString();
  EXPECT_EQ(s.ToString().rfind("CANCELLED: ", 0), 0u) << s.ToString();
  EXPECT_NE(s.message().find("invoke cancelled"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("node 0 (WHILE)"), std::string::npos) << s.message();
  EXPECT_LT(seconds, 5.0);
  // Usable afterwards: a run that ends gives its result.
  const Status again = RunTo(it, 5.f, &out);
  ASSERT_TRUE(again.ok()) << again.ToString();
  EXPECT_FLOAT_EQ(out, 5.5f);
}

TEST_P(CancelTest, ACancelWhileIdleDoesNothing) {
  Loop loop;
  std::string why;
  if (!MakeLoop(GetParam(), &loop, &why)) GTEST_SKIP() << "no GL here: " << why;
  loop.interp->Cancel();
  float out = 0;
  const Status s = RunTo(*loop.interp, 3.f, &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FLOAT_EQ(out, 3.5f);
}

INSTANTIATE_TEST_SUITE_P(Backends, CancelTest, ::testing::Values(Backend::kCpu, Backend::kGl),
                         [](const ::testing::TestParamInfo<Backend>& p) {
                           return std::string(p.param == Backend::kCpu ? "cpu" : "gl");
                         });

TEST(CancelCApi, EndsTheInvoke) {
  const std::vector<uint8_t> bytes = testing::CountingWhileModel();
  GldModel* model = nullptr;
  ASSERT_EQ(GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model), GLD_OK) << GldLastErrorMessage();
  GldOptions* options = GldOptionsCreate();
  ASSERT_EQ(GldOptionsSetBackend(options, GLD_BACKEND_CPU), GLD_OK);
  ASSERT_EQ(GldOptionsSetMaxLoopIterations(options, std::numeric_limits<int32_t>::max()), GLD_OK);
  GldInterpreter* interp = nullptr;
  ASSERT_EQ(GldInterpreterCreate(model, options, &interp), GLD_OK) << GldLastErrorMessage();
  const float zero = 0.f, never = kNever, five = 5.f;
  ASSERT_EQ(GldInterpreterSetInput(interp, 0, &zero, sizeof(zero)), GLD_OK);
  ASSERT_EQ(GldInterpreterSetInput(interp, 1, &never, sizeof(never)), GLD_OK);
  GldStatus status = GLD_OK;
  std::string message;
  const double seconds = CancelWhileRunning(
      [&] {
        status = GldInterpreterInvoke(interp);
        message = GldLastErrorMessage();  // the invoking thread's
      },
      [&] { EXPECT_EQ(GldInterpreterCancel(interp), GLD_OK); });
  EXPECT_EQ(status, GLD_CANCELLED);
  EXPECT_STREQ(GldStatusName(status), "CANCELLED");
  EXPECT_EQ(message.rfind("CANCELLED: ", 0), 0u) << message;
  EXPECT_NE(message.find("invoke cancelled"), std::string::npos) << message;
  EXPECT_LT(seconds, 5.0);
  ASSERT_EQ(GldInterpreterSetInput(interp, 1, &five, sizeof(five)), GLD_OK);
  ASSERT_EQ(GldInterpreterInvoke(interp), GLD_OK) << GldLastErrorMessage();
  float out = 0;
  ASSERT_EQ(GldInterpreterGetOutput(interp, 0, &out, sizeof(out)), GLD_OK);
  EXPECT_FLOAT_EQ(out, 5.5f);
  EXPECT_EQ(GldInterpreterCancel(nullptr), GLD_INVALID_ARGUMENT);
  GldInterpreterDelete(interp);
  GldOptionsDelete(options);
  GldModelDelete(model);
}

}  // namespace
}  // namespace gld
