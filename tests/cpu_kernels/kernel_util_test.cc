// ParallelForElements: every value once, on the calling thread alone below
// the threshold, in chunks of kElementwiseChunk above it.
#include "cpu_kernels/kernel_helpers.h"

#include <mutex>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "util/thread_pool.h"

namespace gld::testing {
namespace {

// CheckIo finds a buffer too small for its shape, unless the context says
// an earlier run of the same buffers passed (KernelContext::io_checked, set
// by a runtime step whose buffers are fixed).
TEST(CheckIo, ChecksBuffersUntilTheContextSaysTheyPassed) {
  std::vector<float> storage(3);
  cpu::TensorData in, out;
  in.type = out.type = DataType::kFloat32;
  in.shape = out.shape = {1, 4};
  in.data = out.data = storage.data();
  in.bytes = out.bytes = storage.size() * sizeof(float);  // 12 bytes for 16
  cpu::KernelContext ctx;
  ctx.inputs = {&in};
  ctx.outputs = {&out};
  const Status s = cpu::CheckIo(ctx, 1, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("input 0 buffer holds 12 bytes"), std::string::npos) << s.message();
  ctx.io_checked = true;
  EXPECT_TRUE(cpu::CheckIo(ctx, 1, 1, 1).ok());
  in.shape = out.shape = {1, 3};
  ctx.io_checked = false;
  EXPECT_TRUE(cpu::CheckIo(ctx, 1, 1, 1).ok());
}

TEST(ParallelForElements, CoversEachValueOnceInChunksAboveTheThreshold) {
  ThreadPool pool(2);
  cpu::KernelContext ctx;
  ctx.num_threads = 2;
  ctx.parallel_for = [&pool](int64_t n, const std::function<void(int64_t, int64_t)>& fn) { pool.ParallelFor(n, fn); };
  const int64_t min_parallel = 1 << 15;
  for (int64_t n : {int64_t{0}, int64_t{1}, min_parallel - 1, min_parallel, int64_t{150000}}) {
    std::mutex mu;
    std::vector<std::pair<int64_t, int64_t>> spans;
    std::vector<int> seen(static_cast<size_t>(n), 0);
    cpu::ParallelForElements(ctx, n, min_parallel, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(mu);
      spans.emplace_back(b, e);
      for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
    });
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[static_cast<size_t>(i)], 1) << "n " << n << " i " << i;
    if (n == 0) {
      EXPECT_TRUE(spans.empty());
    } else if (n < min_parallel) {
      ASSERT_EQ(spans.size(), 1u) << n;
      EXPECT_EQ(spans[0], std::make_pair(int64_t{0}, n));
    } else {
      // Chunks start on kElementwiseChunk boundaries, so spans of several
      // chunks and the last one short.
      EXPECT_GE(spans.size(), 2u) << n;
      for (const auto& [b, e] : spans) {
        EXPECT_EQ(b % cpu::kElementwiseChunk, 0) << n;
        EXPECT_TRUE(e == n || e % cpu::kElementwiseChunk == 0) << n;
      }
    }
  }
}

}  // namespace
}  // namespace gld::testing
