// A fixed pool of worker threads for CPU kernels' parallel loops.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gld {

class ThreadPool {
 public:
  // num_threads counts the calling thread: a pool of N starts N-1 workers.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(begin, end) on contiguous chunks covering [0, n), at most one
  // chunk per thread, the caller's thread included, and returns when all are
  // done. Calls from several threads at once are serialized; a call from
  // inside fn runs inline on the calling thread.
  //
  // A kernel's parallel loop often lasts tens of microseconds, about what it
  // takes to wake a sleeping thread. So a worker that finished a chunk spins
  // for a while (kSpin) watching for the next loop before it sleeps, and the
  // caller spins for the workers' chunks before it sleeps.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop(int worker);

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one ParallelFor at a time
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  // Written under mutex_; generation_ and pending_ are also read without it
  // while spinning.
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  bool stop_ = false;
};

}  // namespace gld
