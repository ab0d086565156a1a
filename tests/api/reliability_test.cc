// Interpreters under process-level stress: many create/destroy cycles (no
// address space left behind), thread creation refused (an injected failure
// and a real RLIMIT_NPROC), and the documented misuse of one Interpreter
// from two threads at once (a clean error, never a crash or a wrong result).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "common/model_paths.h"
#include "common/process_limits.h"
#include "gldelegate/gldelegate.h"
#include "gldelegate/gldelegate.hpp"
#include "gldelegate/model_builder.hpp"
#include "util/single_user.h"
#include "util/thread_pool.h"

namespace gld {
namespace {

constexpr int kSide = 128, kChannels = 4;
constexpr size_t kElements = size_t{kSide} * kSide * kChannels;  // 256 KiB of float32 per tensor

// y = (x + 1) * x + 2 on [1, 128, 128, 4]: tensors large enough to be
// mappings of their own (util/aligned_buffer), and an intermediate in the
// arena. The model file's bytes.
std::vector<uint8_t> PolynomialBytes() {
  ModelBuilder b;
  int x = b.AddInput("x", ElementType::kFloat32, {1, kSide, kSide, kChannels});
  int one = b.AddConstantFloat("one", {1}, {1});
  int two = b.AddConstantFloat("two", {1}, {2});
  int s = b.AddTensor("s", ElementType::kFloat32, {1, kSide, kSide, kChannels});
  int t = b.AddTensor("t", ElementType::kFloat32, {1, kSide, kSide, kChannels});
  int y = b.AddTensor("y", ElementType::kFloat32, {1, kSide, kSide, kChannels});
  EXPECT_TRUE(b.AddOp("ADD", {x, one}, {s}).ok());
  EXPECT_TRUE(b.AddOp("MUL", {s, x}, {t}).ok());
  EXPECT_TRUE(b.AddOp("ADD", {t, two}, {y}).ok());
  b.SetOutputs({y});
  auto bytes = b.Finish();
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::move(bytes).value() : std::vector<uint8_t>();
}

std::shared_ptr<const Model> PolynomialModel() {
  const std::vector<uint8_t> bytes = PolynomialBytes();
  auto model = Model::FromBuffer(bytes.data(), bytes.size());
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? *model : nullptr;
}

std::vector<float> Input(int seed) {
  std::vector<float> x(kElements);
  for (size_t i = 0; i < kElements; ++i) x[i] = static_cast<float>(static_cast<int>((i + seed) % 7) - 3 * seed);
  return x;
}

std::vector<float> Expected(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = (x[i] + 1.0f) * x[i] + 2.0f;
  return y;
}

Options CpuOptions(int threads = 1) {
  Options o;
  o.backend = Backend::kCpu;
  o.num_threads = threads;
  return o;
}

// One create + invoke + destroy; false (with a failure recorded) when a
// step fails or the output is wrong.
bool Cycle(const Model& model, const Options& options, const std::vector<float>& in, const std::vector<float>& want) {
  auto it = Interpreter::Create(model, options);
  if (!it.ok()) {
    ADD_FAILURE() << it.status().ToString();
    return false;
  }
  std::vector<float> out(kElements);
  Status s = (*it)->SetInput(0, in.data(), in.size() * sizeof(float));
  if (s.ok()) s = (*it)->Invoke();
  if (s.ok()) s = (*it)->GetOutput(0, out.data(), out.size() * sizeof(float));
  if (!s.ok()) {
    ADD_FAILURE() << s.ToString();
    return false;
  }
  if (out != want) {
    ADD_FAILURE() << "wrong output";
    return false;
  }
  return true;
}

// Every Create used to keep the tail of each of its mappings' 2 MiB
// reservations (munmap at an address off a page boundary failed), so the
// address space and the mapping count grew with every cycle.
TEST(Reliability, ThousandCreateDestroyCyclesKeepTheAddressSpaceFlat) {
  if (testing::UnderAddressSanitizer()) GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory mapped";
  auto model = PolynomialModel();
  ASSERT_NE(model, nullptr);
  const std::vector<float> in = Input(0), want = Expected(in);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(Cycle(*model, CpuOptions(), in, want));
  const uint64_t vm_before = testing::VmSizeBytes();
  const int maps_before = testing::MappingCount();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(Cycle(*model, CpuOptions(), in, want)) << "cycle " << i;
  const uint64_t vm_after = testing::VmSizeBytes();
  const int maps_after = testing::MappingCount();
  EXPECT_LE(vm_after, vm_before + (uint64_t{4} << 20)) << "VmSize " << vm_before << " -> " << vm_after;
  EXPECT_LE(maps_after, maps_before + 8) << "mappings " << maps_before << " -> " << maps_after;
}

// A few cycles of a real model: pose_detection made 16 leaking mappings per
// Create (100 cycles: VmSize 71 MB -> 2.3 GB, mappings 107 -> 1,494).
TEST(Reliability, RealModelCreateDestroyCyclesKeepTheAddressSpaceFlat) {
  if (testing::UnderAddressSanitizer()) GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory mapped";
  if (!testing::SharedModelsPresent()) GTEST_SKIP() << testing::MissingModelsMessage();
  auto model = Model::FromFile(testing::ModelPath("pose_detection.tflite"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto cycle = [&] {
    auto it = Interpreter::Create(**model, CpuOptions());
    ASSERT_TRUE(it.ok()) << it.status().ToString();
    ASSERT_TRUE((*it)->Invoke().ok());
  };
  for (int i = 0; i < 2; ++i) cycle();
  const uint64_t vm_before = testing::VmSizeBytes();
  const int maps_before = testing::MappingCount();
  for (int i = 0; i < 8; ++i) cycle();
  EXPECT_LE(testing::VmSizeBytes(), vm_before + (uint64_t{4} << 20)) << "VmSize before " << vm_before;
  EXPECT_LE(testing::MappingCount(), maps_before + 4) << "mappings before " << maps_before;
}

// Runs Create + Invoke with 4 threads through the C++ and the C API; 0 when
// both succeed with the right output, else a code saying which step failed.
int CreateWithFourThreads(const std::vector<uint8_t>& bytes) {
  const std::vector<float> in = Input(1), want = Expected(in);
  const size_t size = kElements * sizeof(float);
  std::vector<float> out(kElements);
  {
    auto model = Model::FromBuffer(bytes.data(), bytes.size());
    if (!model.ok()) return 10;
    auto it = Interpreter::Create(**model, CpuOptions(4));
    if (!it.ok()) return 11;
    if (!(*it)->SetInput(0, in.data(), size).ok() || !(*it)->Invoke().ok() ||
        !(*it)->GetOutput(0, out.data(), size).ok() || out != want) {
      return 12;
    }
  }
  GldModel* model = nullptr;
  if (GldModelCreateFromBuffer(bytes.data(), bytes.size(), &model) != GLD_OK) return 20;
  GldOptions* options = GldOptionsCreate();
  GldOptionsSetBackend(options, GLD_BACKEND_CPU);
  GldOptionsSetNumThreads(options, 4);
  GldInterpreter* interp = nullptr;
  int code = 0;
  if (GldInterpreterCreate(model, options, &interp) != GLD_OK) {
    code = 21;
  } else {
    std::fill(out.begin(), out.end(), 0.0f);
    if (GldInterpreterSetInput(interp, 0, in.data(), size) != GLD_OK || GldInterpreterInvoke(interp) != GLD_OK ||
        GldInterpreterGetOutput(interp, 0, out.data(), size) != GLD_OK || out != want) {
      code = 22;
    }
    GldInterpreterDelete(interp);
  }
  GldOptionsDelete(options);
  GldModelDelete(model);
  return code;
}

// A thread the system refuses: Create succeeds on the threads that started
// (the pool logs a warning) instead of std::terminate escaping Create or a
// hang in the pool's unwinding. In a child under a deadline.
TEST(Reliability, RefusedThreadCreationStillCreatesAndRuns) {
  const std::vector<uint8_t> bytes = PolynomialBytes();
  for (int allowed = 0; allowed <= 2; ++allowed) {
    testing::ChildResult r = testing::RunInChild(
        [&] {
          SetThreadStartLimitForTesting(allowed);
          return CreateWithFourThreads(bytes);
        },
        60);
    EXPECT_TRUE(r.exited && r.exit_code == 0) << "threads allowed " << allowed << ": " << r.Describe();
  }
}

// The same under a real process limit: a child that drops root (which
// RLIMIT_NPROC does not bind) to an unprivileged uid and lowers the limit.
TEST(Reliability, ProcessLimitStillCreatesAndRuns) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run a child as an unprivileged uid under RLIMIT_NPROC";
  const std::vector<uint8_t> bytes = PolynomialBytes();
  for (rlim_t limit = 1; limit <= 3; ++limit) {
    testing::ChildResult r = testing::RunInChild(
        [&] {
          const uid_t nobody = 65534;
          if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) return 20;
          struct rlimit lim = {limit, limit};
          if (::setrlimit(RLIMIT_NPROC, &lim) != 0) return 21;
          return CreateWithFourThreads(bytes);
        },
        60);
    EXPECT_TRUE(r.exited && r.exit_code == 0) << "RLIMIT_NPROC " << limit << ": " << r.Describe();
  }
}

// Two threads on one Interpreter (documented as not allowed): every call
// either succeeds or fails with kInUseOnAnotherThread, a successful
// GetOutput holds exactly what one of the inputs gives, and nothing crashes.
void HammerOneInterpreter(const Options& options, int rounds) {
  auto model = PolynomialModel();
  ASSERT_NE(model, nullptr);
  auto it = Interpreter::Create(*model, options);
  if (!it.ok() && options.backend == Backend::kGl) GTEST_SKIP() << "no GL here: " << it.status().ToString();
  ASSERT_TRUE(it.ok()) << it.status().ToString();
  Interpreter& interp = **it;
  const std::vector<float> inputs[2] = {Input(0), Input(1)};
  const std::vector<float> wants[2] = {Expected(inputs[0]), Expected(inputs[1])};
  std::atomic<int> refused{0}, completed{0}, wrong{0}, other_errors{0};
  std::string first_other;
  std::atomic<bool> other_seen{false};
  auto check = [&](const Status& s) {
    if (s.ok()) return true;
    if (s.code() == StatusCode::kFailedPrecondition &&
        s.message().find(kInUseOnAnotherThread) != std::string::npos) {
      refused++;
    } else {
      if (!other_seen.exchange(true)) first_other = s.ToString();
      other_errors++;
    }
    return false;
  };
  auto worker = [&](int who) {
    std::vector<float> out(kElements);
    for (int i = 0; i < rounds; ++i) {
      if (!check(interp.SetInput(0, inputs[who].data(), kElements * sizeof(float)))) continue;
      if (!check(interp.Invoke())) continue;
      if (!check(interp.GetOutput(0, out.data(), kElements * sizeof(float)))) continue;
      if (out != wants[0] && out != wants[1]) wrong++;
      completed++;
    }
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  EXPECT_EQ(other_errors.load(), 0) << first_other;
  EXPECT_EQ(wrong.load(), 0) << "of " << completed.load() << " completed rounds";
  EXPECT_GT(completed.load(), 0);
  // Alone again, it runs normally.
  std::vector<float> out(kElements);
  ASSERT_TRUE(interp.SetInput(0, inputs[1].data(), kElements * sizeof(float)).ok());
  ASSERT_TRUE(interp.Invoke().ok());
  ASSERT_TRUE(interp.GetOutput(0, out.data(), kElements * sizeof(float)).ok());
  EXPECT_EQ(out, wants[1]);
  std::printf("[ info ] %d rounds completed, %d calls refused\n", completed.load(), refused.load());
}

TEST(Reliability, ConcurrentCallsOnOneCpuInterpreterFailCleanly) { HammerOneInterpreter(CpuOptions(), 3000); }

TEST(Reliability, ConcurrentCallsOnOneCpuInterpreterWithAPoolFailCleanly) {
  HammerOneInterpreter(CpuOptions(2), 1000);
}

TEST(Reliability, ConcurrentCallsOnOneGlInterpreterFailWithTheSameError) {
  Options o;
  o.backend = Backend::kGl;
  HammerOneInterpreter(o, 100);
}

}  // namespace
}  // namespace gld
