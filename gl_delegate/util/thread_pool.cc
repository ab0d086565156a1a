#include "util/thread_pool.h"

#include <algorithm>

namespace gld {

namespace {
// Set while a thread runs a chunk: a nested ParallelFor then runs inline
// instead of waiting for workers that are busy with the outer loop.
thread_local bool t_in_chunk = false;

struct InChunk {
  InChunk() { t_in_chunk = true; }
  ~InChunk() { t_in_chunk = false; }
};

// Chunk c of `chunks` over [0, n).
void ChunkRange(int64_t n, int chunks, int c, int64_t* begin, int64_t* end) {
  int64_t base = n / chunks, extra = n % chunks;
  *begin = c * base + std::min<int64_t>(c, extra);
  *end = *begin + base + (c < extra ? 1 : 0);
}
}  // namespace

ThreadPool::ThreadPool(int num_threads) {
  int workers = std::max(1, num_threads) - 1;
  workers_.reserve(static_cast<size_t>(workers));
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  int chunks = static_cast<int>(std::min<int64_t>(n, num_threads()));
  if (chunks <= 1 || t_in_chunk) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    n_ = n;
    chunks_ = chunks;
    pending_ = chunks - 1;  // chunk 0 runs here
    ++generation_;
  }
  work_cv_.notify_all();
  int64_t begin, end;
  ChunkRange(n, chunks, 0, &begin, &end);
  {
    InChunk in_chunk;
    fn(begin, end);
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  fn_ = nullptr;
}

void ThreadPool::WorkerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n;
    int chunks;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      fn = fn_;
      n = n_;
      chunks = chunks_;
    }
    int chunk = worker + 1;
    if (chunk < chunks) {
      int64_t begin, end;
      ChunkRange(n, chunks, chunk, &begin, &end);
      {
        InChunk in_chunk;
        (*fn)(begin, end);
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

}  // namespace gld
