#include "util/thread_pool.h"

#include <algorithm>
#include <chrono>

namespace gld {

namespace {
// Set while a thread runs a chunk: a nested ParallelFor then runs inline
// instead of waiting for workers that are busy with the outer loop.
thread_local bool t_in_chunk = false;

struct InChunk {
  InChunk() { t_in_chunk = true; }
  ~InChunk() { t_in_chunk = false; }
};

// How long a thread spins before it sleeps (see thread_pool.h).
constexpr std::chrono::microseconds kSpin(200);

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// Spins until done() or kSpin has passed; returns done().
template <typename Done>
bool SpinUntil(Done done) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return done();
  }
}

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
    pending_.store(chunks - 1);  // chunk 0 runs here
    generation_.fetch_add(1);
  }
  work_cv_.notify_all();
  int64_t begin, end;
  ChunkRange(n, chunks, 0, &begin, &end);
  {
    InChunk in_chunk;
    fn(begin, end);
  }
  if (!SpinUntil([this] { return pending_.load() == 0; })) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return pending_.load() == 0; });
  }
  std::lock_guard<std::mutex> lock(mutex_);
  fn_ = nullptr;
}

void ThreadPool::WorkerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)>* fn;
    int64_t n;
    int chunks;
    // The fields are read under the mutex together with the generation
    // they belong to.
    SpinUntil([&] { return generation_.load() != seen; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&] { return stop_ || generation_.load() != seen; });
      if (stop_) return;
      seen = generation_.load();
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
      if (pending_.fetch_sub(1) == 1) {
        // Taking the mutex orders this with a caller that is about to wait.
        { std::lock_guard<std::mutex> lock(mutex_); }
        done_cv_.notify_one();
      }
    }
  }
}

}  // namespace gld
