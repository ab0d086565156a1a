#include "util/thread_pool.h"

#include <pthreadpool.h>

#include <algorithm>
#include <thread>

namespace gld {

namespace {
// Set while a thread runs a chunk: a nested ParallelFor then runs inline
// instead of waiting for workers that are busy with the outer loop.
thread_local bool t_in_chunk = false;

struct InChunk {
  InChunk() { t_in_chunk = true; }
  ~InChunk() { t_in_chunk = false; }
};

struct Loop {
  const std::function<void(int64_t, int64_t)>* fn;
};

void RunChunk(void* context, size_t begin, size_t count) {
  const Loop* loop = static_cast<const Loop*>(context);
  InChunk in_chunk;
  (*loop->fn)(static_cast<int64_t>(begin), static_cast<int64_t>(begin + count));
}

void Nothing(void*, size_t) {}
}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  if (num_threads_ > 1) pool_ = pthreadpool_create(static_cast<size_t>(num_threads_));
  if (pool_ == nullptr) num_threads_ = 1;
}

ThreadPool::~ThreadPool() {
  if (pool_ != nullptr) pthreadpool_destroy(pool_);
}

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (pool_ == nullptr || n == 1 || t_in_chunk) {
    fn(0, n);
    return;
  }
  const int64_t tile = (n + num_threads_ - 1) / num_threads_;
  Loop loop{&fn};
  pthreadpool_parallelize_1d_tile_1d(pool_, RunChunk, &loop, static_cast<size_t>(n), static_cast<size_t>(tile), 0);
}

void ThreadPool::Release() {
  if (pool_ == nullptr) return;
  pthreadpool_parallelize_1d(pool_, Nothing, nullptr, static_cast<size_t>(num_threads_),
                             PTHREADPOOL_FLAG_YIELD_WORKERS);
}

int ResolveNumThreads(int num_threads) {
  if (num_threads != -1) return num_threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

}  // namespace gld
