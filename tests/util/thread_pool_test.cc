#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <mutex>
#include <thread>
#include <vector>

#include <pthreadpool.h>

#include "common/process_limits.h"
#include "util/thread_pool.h"

namespace gld {
namespace {

TEST(ThreadPool, CoversTheRangeExactlyOnce) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.num_threads(), 4);
  for (int64_t n : {1, 2, 3, 4, 5, 17, 1000}) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    pool.ParallelFor(n, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[i]++;
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(3);
  std::mutex m;
  std::vector<std::thread::id> ids;
  std::atomic<int> arrived{0};
  pool.ParallelFor(3, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(m);
      ids.push_back(std::this_thread::get_id());
    }
    // All three chunks must run at once to get past this point.
    arrived++;
    while (arrived.load() < 3) std::this_thread::yield();
  });
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()) - ids.begin(), 3);
}

// Each thread owns a contiguous share of every loop (the caller the first),
// so that consecutive loops split their ranges alike: the first chunk runs
// on the calling thread, whether the worker is awake or not. A worker done
// with its own share may take what the caller has not started, from the
// back, so a caller kept off the CPU (a loaded machine) could lose even the
// first chunk: here the worker's share waits until the first chunk has
// started, which leaves the caller's front to the owner alone.
TEST(ThreadPool, TheCallerOwnsTheFirstShare) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 200; ++round) {
    std::atomic<bool> first_on_caller{false}, first_started{false};
    pool.ParallelFor(8, [&](int64_t b, int64_t) {
      if (b == 0) {
        first_on_caller = std::this_thread::get_id() == caller;
        first_started = true;
      } else if (b >= 4) {  // the worker's share (or what the caller takes of it)
        while (!first_started.load()) std::this_thread::yield();
      }
    });
    ASSERT_TRUE(first_on_caller.load()) << "round " << round;
  }
}

// Up to 16 chunks per thread: fine enough that the threads finish together
// (a loop's items may be XNNPACK tiles of tens of microseconds each).
TEST(ThreadPool, UpToSixteenChunksPerThread) {
  ThreadPool pool(2);
  for (int64_t n : {int64_t{32}, int64_t{1000}}) {
    std::mutex mu;
    std::vector<int64_t> sizes;
    pool.ParallelFor(n, [&](int64_t b, int64_t e) {
      std::lock_guard<std::mutex> lock(mu);
      sizes.push_back(e - b);
    });
    EXPECT_EQ(sizes.size(), 32u) << n;
    EXPECT_EQ(*std::max_element(sizes.begin(), sizes.end()), (n + 31) / 32) << n;
  }
}

// A worker held up inside its first chunk (the scheduler keeps it off the
// CPU) leaves the rest of its share to the caller, which takes it from the
// back instead of waiting.
TEST(ThreadPool, AHeldUpWorkerLeavesItsShareToTheCaller) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> done{0}, on_caller{0};
    pool.ParallelFor(8, [&](int64_t, int64_t) {
      if (std::this_thread::get_id() == caller) {
        on_caller++;
      } else {
        // Held until every other chunk is done (bounded, so a broken pool
        // fails the expectation below instead of hanging).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (done.load() < 7 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
      }
      done++;
    });
    EXPECT_EQ(done.load(), 8);
    EXPECT_GE(on_caller.load(), 7) << "round " << round;
  }
}

// A chunk that throws on a worker (a kernel's allocation failing) must not
// end the process: the exception reaches the thread that called ParallelFor,
// and the pool goes on serving loops.
TEST(ThreadPool, AnExceptionOnAWorkerReachesTheCaller) {
  ThreadPool pool(3);
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> thrown{0};
  for (int round = 0; round < 20; ++round) {
    EXPECT_THROW(pool.ParallelFor(64,
                                  [&](int64_t b, int64_t) {
                                    // Throw from a chunk that runs on a worker when there is one.
                                    if (std::this_thread::get_id() != caller || b == 0) {
                                      thrown++;
                                      throw std::bad_alloc();
                                    }
                                  }),
                 std::bad_alloc);
  }
  EXPECT_GE(thrown.load(), 20);
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(100, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100);
}

TEST(ThreadPool, SingleThreadRunsInline) {
  ThreadPool pool(1);
  std::thread::id id;
  pool.ParallelFor(10, [&](int64_t b, int64_t e) {
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 10);
    id = std::this_thread::get_id();
  });
  EXPECT_EQ(id, std::this_thread::get_id());
}

// A loop returns only once every chunk has finished, whichever threads ran
// them: the threads tell their counts on lines of their own and the caller
// sums them. Loops of every size up to a few chunks a thread, some chunks
// slow (so that the others take over what is left, or the caller waits),
// some gaps long enough for the workers to fall asleep.
TEST(ThreadPool, EveryChunkIsDoneWhenTheLoopReturns) {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    std::vector<std::atomic<int>> done(64);
    for (int k = 0; k < 600; ++k) {
      const int64_t n = 2 + k % 63;
      for (auto& d : done) d.store(0);
      pool.ParallelFor(n, [&](int64_t b, int64_t e) {
        if ((b + k) % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(20));
        for (int64_t i = b; i < e; ++i) done[static_cast<size_t>(i)].store(1);
      });
      int64_t finished = 0;
      for (int64_t i = 0; i < n; ++i) finished += done[static_cast<size_t>(i)].load();
      ASSERT_EQ(finished, n) << threads << " threads, loop " << k;
      if (k % 50 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
  }
}

TEST(ThreadPool, ManyCallsFromTwoThreads) {
  ThreadPool pool(2);
  std::atomic<int64_t> total{0};
  auto work = [&] {
    for (int k = 0; k < 200; ++k) {
      pool.ParallelFor(10, [&](int64_t b, int64_t e) { total += e - b; });
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  EXPECT_EQ(total.load(), 2 * 200 * 10);
}

}  // namespace
}  // namespace gld

namespace gld {
namespace {

TEST(ThreadPool, NestedCallsRunInline) {
  ThreadPool pool(3);
  std::atomic<int64_t> total{0};
  pool.ParallelFor(6, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(10, [&](int64_t ib, int64_t ie) { total += ie - ib; });
    }
  });
  EXPECT_EQ(total.load(), 60);
}

}  // namespace
}  // namespace gld

namespace gld {
namespace {

TEST(ThreadPool, ReleasedWorkersServeTheNextLoop) {
  ThreadPool pool(2);
  EXPECT_NE(pool.pthreadpool(), nullptr);
  for (int k = 0; k < 20; ++k) {
    std::atomic<int64_t> total{0};
    pool.ParallelFor(100, [&](int64_t b, int64_t e) { total += e - b; });
    pool.Release();
    EXPECT_EQ(total.load(), 100);
  }
}

TEST(ThreadPool, OneThreadHasNoPthreadpool) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.pthreadpool(), nullptr);
  pool.Release();  // nothing to release
  EXPECT_EQ(pool.num_threads(), 1);
}

TEST(ThreadPool, MinusOneIsEveryCore) {
  EXPECT_EQ(ResolveNumThreads(-1), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  EXPECT_EQ(ResolveNumThreads(1), 1);
  EXPECT_EQ(ResolveNumThreads(4), 4);
}

// A worker the system refuses to start (the process limit reached): the
// pool runs with the threads that started instead of throwing out of its
// constructor with joinable threads (std::terminate) or hanging in the
// unwinding. Each case runs in a child under a deadline, so that an abort or
// a hang fails the test instead of ending or blocking the binary.
TEST(ThreadPool, RefusedThreadsLeaveAPoolOfTheThreadsThatStarted) {
  for (int allowed = 0; allowed <= 3; ++allowed) {
    testing::ChildResult r = testing::RunInChild(
        [allowed] {
          SetThreadStartLimitForTesting(allowed);
          int bad = 0;
          {
            ThreadPool pool(4);  // asks for 3 workers
            if (pool.num_threads() != std::min(4, allowed + 1)) bad |= 1;
            if ((pool.pthreadpool() == nullptr) != (pool.num_threads() == 1)) bad |= 2;
            for (int round = 0; round < 50; ++round) {
              std::vector<std::atomic<int>> hits(1000);
              pool.ParallelFor(1000, [&](int64_t b, int64_t e) {
                for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)]++;
              });
              for (auto& h : hits) {
                if (h.load() != 1) bad |= 4;
              }
            }
            pool.Release();
          }
          // XNNPACK's pools too.
          pthreadpool_t xp = pthreadpool_create(4);
          if (xp != nullptr && pthreadpool_get_threads_count(xp) > 4) bad |= 8;
          pthreadpool_destroy(xp);
          SetThreadStartLimitForTesting(-1);
          return bad;
        },
        60);
    EXPECT_TRUE(r.exited && r.exit_code == 0) << "allowed " << allowed << ": " << r.Describe();
  }
}

}  // namespace
}  // namespace gld
