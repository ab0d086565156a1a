// A fixed pool of worker threads for CPU kernels' parallel loops.
#pragma once

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
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void WorkerLoop(int worker);

  std::vector<std::thread> workers_;
  std::mutex run_mutex_;  // one ParallelFor at a time
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0;
  uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

}  // namespace gld
