// gld_benchmark stopped by SIGINT or SIGTERM, as a user's Ctrl-C: the runs
// end at the next run boundary, the summary of those done is printed (and
// reaches a redirected stdout), --json says it was interrupted and after how
// many runs, and the exit status is 128 + the signal; a second signal ends it
// at once. A signal during a run that would not end (a WHILE that loops
// for hours) cancels that run (Interpreter::Cancel), in gld_benchmark and in
// gld_run. The tool runs as a child process; every wait is bounded, and a
// child still running at the end is killed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/control_flow_models.h"
#include "common/strict_json.h"
#include "common/tool_run.h"
#include "gldelegate/model_builder.hpp"
#include "gldelegate/npy.hpp"

#ifndef GLD_BENCHMARK_PATH  // GLD_BUILD_TOOLS=OFF
#define GLD_BENCHMARK_PATH ""
#endif
#ifndef GLD_RUN_PATH
#define GLD_RUN_PATH ""
#endif

extern char** environ;

namespace gld {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

class BenchmarkInterruptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(GLD_BENCHMARK_PATH).empty()) GTEST_SKIP() << "gld_benchmark not built (GLD_BUILD_TOOLS=OFF)";
    dir_ = testing::FreshTestDir("gld_benchmark_interrupt");
    // y = x + x on [1, 8]: microseconds a run, so the runs are many.
    ModelBuilder b;
    const int x = b.AddInput("x", ElementType::kFloat32, {1, 8});
    const int y = b.AddTensor("y", ElementType::kFloat32, {1, 8});
    ASSERT_TRUE(b.AddOp("ADD", {x, x}, {y}).ok());
    b.SetOutputs({y});
    model_ = (dir_ / "add.tflite").string();
    ASSERT_TRUE(b.WriteFile(model_).ok());
  }
  void TearDown() override {
    if (pid_ > 0) {  // a child the test gave up on
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Starts gld_benchmark on the model with `args`, stdout and stderr to files.
  void Start(const std::vector<std::string>& args) {
    std::vector<std::string> argv_s = {GLD_BENCHMARK_PATH, "--graph=" + model_, "--backend=cpu",
                                       "--json=" + Json().string()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    Spawn(std::move(argv_s));
  }

  // Writes CountingWhileModel and its inputs (i = 0, n = 1e30: a loop of
  // hours); the model's path.
  std::string WriteEndlessLoop() {
    const std::string path = (dir_ / "loop.tflite").string();
    const std::vector<uint8_t> bytes = testing::CountingWhileModel();
    std::FILE* f = std::fopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    if (f == nullptr) return path;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    for (const auto& [name, value] : {std::pair<const char*, float>{"i", 0.f}, {"n", 1e30f}}) {
      NpyArray a;
      a.type = ElementType::kFloat32;
      a.shape = {1};
      a.data.resize(sizeof(float));
      std::memcpy(a.data.data(), &value, sizeof(float));
      EXPECT_TRUE(WriteNpy((dir_ / (std::string(name) + ".npy")).string(), a).ok());
    }
    return path;
  }
  std::string Npy(const char* name) const { return (dir_ / (std::string(name) + ".npy")).string(); }

  // Starts argv_s[0] with argv_s, stdout and stderr to files.
  void Spawn(std::vector<std::string> argv_s) {
    std::vector<char*> argv;
    for (std::string& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = {"GLD_LOG_LEVEL=off"};
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::strncmp(*e, "GLD_LOG_LEVEL=", 14) != 0) env_s.emplace_back(*e);
    }
    std::vector<char*> envp;
    for (std::string& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    const std::string out = (dir_ / "stdout.txt").string(), err = (dir_ / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = posix_spawn(&pid_, argv[0], &files, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&files);
    ASSERT_EQ(rc, 0) << std::strerror(rc);
  }

  // Waits (at most `seconds`) until stdout holds `text`; false when it never did.
  bool WaitForOutput(const std::string& text, double seconds) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < until) {
      if (Out().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // The child's wait status once it ended; -1 when it ran past `seconds`
  // (then it is killed).
  int WaitForExit(double seconds) {
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < until) {
      int status = 0;
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    return -1;
  }

  fs::path Json() const { return dir_ / "report.json"; }
  std::string Out() const { return testing::ReadWholeFile(dir_ / "stdout.txt"); }
  std::string Err() const { return testing::ReadWholeFile(dir_ / "stderr.txt"); }

  // After a stop by `sig`: exit 128 + sig, the summary over the runs done on
  // stdout, and the JSON saying so. Returns the runs done (-1 on failure).
  long ExpectStoppedBy(int sig, const char* name, int status, int num_runs) {
    EXPECT_NE(status, -1) << "gld_benchmark did not end after " << name << "\n" << Out();
    EXPECT_TRUE(WIFEXITED(status)) << "ended by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                   << ", not by its own exit; stdout:\n"
                                   << Out();
    if (!WIFEXITED(status)) return -1;
    EXPECT_EQ(WEXITSTATUS(status), 128 + sig) << Err();
    const std::string out = Out();
    // Lines printed before the signal, then the interruption and the summary.
    EXPECT_NE(out.find("Loaded model in"), std::string::npos) << out;
    EXPECT_NE(out.find(std::string("Interrupted by ") + name), std::string::npos) << out;
    EXPECT_NE(out.find("Inference timings in us:"), std::string::npos) << out;
    EXPECT_NE(out.find("Wrote " + Json().string()), std::string::npos) << out;
    EXPECT_NE(Err().find(std::string("interrupted by ") + name), std::string::npos) << Err();
    auto parsed = testing::ParseStrictJson(testing::ReadWholeFile(Json()));
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (!parsed.ok()) return -1;
    const json& v = *parsed;
    EXPECT_EQ(v.at("interrupted"), true);
    EXPECT_EQ(v.at("interrupt_signal"), name);
    EXPECT_EQ(v.at("num_runs_requested").get<double>(), num_runs);
    const double done = v.at("runs_completed").get<double>();
    EXPECT_LT(done, num_runs);
    EXPECT_EQ(v.at("num_runs").get<double>(), done);
    EXPECT_EQ(static_cast<double>(v.at("run_times_us").size()), done);
    // The printed count is the JSON's.
    EXPECT_NE(out.find("count=" + std::to_string(static_cast<long>(done)) + " "), std::string::npos) << out;
    return static_cast<long>(done);
  }

  fs::path dir_;
  std::string model_;
  pid_t pid_ = -1;
};

TEST_F(BenchmarkInterruptTest, SigintPrintsTheRunsDoneAndWritesJson) {
  const int num_runs = 100000000;
  Start({"--num_runs=" + std::to_string(num_runs), "--max_secs=300", "--run_delay=0.001"});
  // Before the fix the line was never flushed: then the signal goes anyway.
  EXPECT_TRUE(WaitForOutput("Running benchmark", 60)) << Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // some runs
  ASSERT_EQ(kill(pid_, SIGINT), 0);
  const int status = WaitForExit(60);
  ExpectStoppedBy(SIGINT, "SIGINT", status, num_runs);
}

TEST_F(BenchmarkInterruptTest, SigtermEndsTheDelayBetweenRuns) {
  // One run, then an hour's --run_delay: the signal ends the wait.
  Start({"--num_runs=3", "--run_delay=3600"});
  EXPECT_TRUE(WaitForOutput("Running benchmark", 60)) << Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_EQ(kill(pid_, SIGTERM), 0);
  const auto sent = Clock::now();
  const int status = WaitForExit(60);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 30.0);
  EXPECT_LE(ExpectStoppedBy(SIGTERM, "SIGTERM", status, 3), 1);
}

// The first SIGINT cancels the run in progress, a loop that would take
// hours (was: the run went on until max_loop_iterations, 10^7 iterations).
TEST_F(BenchmarkInterruptTest, SigintCancelsARunThatWouldNotEnd) {
  model_ = WriteEndlessLoop();
  Start({"--num_runs=3", "--warmup_runs=0", "--input_layer_value_files=i:" + Npy("i") + ",n:" + Npy("n")});
  EXPECT_TRUE(WaitForOutput("Running benchmark", 60)) << Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // inside the loop
  ASSERT_EQ(kill(pid_, SIGINT), 0);
  const auto sent = Clock::now();
  const int status = WaitForExit(60);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 10.0);
  ASSERT_TRUE(WIFEXITED(status)) << Out() << Err();
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << Err();
  EXPECT_NE(Out().find("Interrupted by SIGINT: 0 of 3 timed runs"), std::string::npos) << Out();
}

TEST_F(BenchmarkInterruptTest, GldRunCancelsItsInvokeOnSigint) {
  if (std::string(GLD_RUN_PATH).empty()) GTEST_SKIP() << "gld_run not built";
  model_ = WriteEndlessLoop();
  Spawn({GLD_RUN_PATH, "--graph=" + model_, "--backend=cpu", "--input=i=" + Npy("i"), "--input=n=" + Npy("n")});
  EXPECT_TRUE(WaitForOutput("input 1", 60)) << Err();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(pid_, SIGINT), 0);
  const auto sent = Clock::now();
  const int status = WaitForExit(60);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - sent).count(), 10.0);
  ASSERT_TRUE(WIFEXITED(status)) << Out() << Err();
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << Err();
  const std::string err = Err();
  EXPECT_NE(err.find("gld_run: interrupted by SIGINT: node 0 (WHILE): invoke cancelled"), std::string::npos) << err;
  EXPECT_EQ(testing::CountLines(err), 1) << err;
}

TEST_F(BenchmarkInterruptTest, SecondSignalEndsAtOnce) {
  Start({"--num_runs=100000000", "--max_secs=300", "--run_delay=0.001"});
  EXPECT_TRUE(WaitForOutput("Running benchmark", 60)) << Err();
  // Both pending together, so the second arrives before the runs can stop:
  // the process ends by the signal, with no summary.
  ASSERT_EQ(kill(pid_, SIGSTOP), 0);
  ASSERT_EQ(kill(pid_, SIGINT), 0);
  ASSERT_EQ(kill(pid_, SIGTERM), 0);
  ASSERT_EQ(kill(pid_, SIGCONT), 0);
  const int status = WaitForExit(60);
  ASSERT_NE(status, -1) << "gld_benchmark did not end after two signals";
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status) << "\n" << Out();
  EXPECT_TRUE(WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM) << WTERMSIG(status);
  EXPECT_FALSE(fs::exists(Json()));
}

}  // namespace
}  // namespace gld
