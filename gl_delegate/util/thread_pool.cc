// The pool behind ThreadPool and behind pthreadpool's interface (which
// XNNPACK calls): see thread_pool.h.
#include "util/thread_pool.h"

#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "util/logging.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace {

// Set while a thread runs part of a loop: a nested loop then runs inline
// instead of waiting for workers that are busy with the outer one.
thread_local bool t_in_loop = false;

class InLoop {
 public:
  InLoop() : outer_(t_in_loop) { t_in_loop = true; }
  ~InLoop() { t_in_loop = outer_; }
  InLoop(const InLoop&) = delete;
  InLoop& operator=(const InLoop&) = delete;

 private:
  bool outer_;
};

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// PTHREADPOOL_FLAG_DISABLE_DENORMALS: flush-to-zero and denormals-are-zero
// on this thread from Flush() until the object goes.
class DenormalMode {
 public:
  DenormalMode() = default;
  DenormalMode(const DenormalMode&) = delete;
  DenormalMode& operator=(const DenormalMode&) = delete;
  void FlushIf(bool wanted) {
#if defined(__x86_64__) || defined(__i386__)
    if (!wanted || set_) return;
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040u);
    set_ = true;
#endif
  }
  ~DenormalMode() {
#if defined(__x86_64__) || defined(__i386__)
    if (set_) _mm_setcsr(saved_);
#endif
  }

 private:
  unsigned saved_ = 0;
  bool set_ = false;
};

// How long an idle worker watches for the next loop before it sleeps (the
// operators of one invoke follow each other within microseconds), and how
// long the calling thread waits for chunks other threads have started
// before it sleeps.
constexpr std::chrono::microseconds kWorkerSpin(50);
constexpr std::chrono::microseconds kCallerSpin(20);

// Spins until done() or `limit`, yielding the CPU every 64 pauses (a few
// microseconds): where another thread waits for this CPU (a neighbour
// process, or the pool's own thread that the spinner is waiting for), it
// runs instead of watching the spin. With one busy neighbour on the 2-core
// machine, yielding took the 2-thread median of selfie_segmentation from
// 4.4-4.8 to 3.2-3.5 ms and pose_detection's from 13.3-13.5 to 11.4 ms
// (paired rounds); calm medians did not move.
template <typename Done>
bool SpinUntil(std::chrono::microseconds limit, Done done) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63) {
      if (std::chrono::steady_clock::now() >= until) return done();
      std::this_thread::yield();
    }
  }
}

// One loop: `batches` chunks of `batch` consecutive items out of `items`.
struct Loop {
  void (*run)(const void* body, size_t begin, size_t end) = nullptr;
  const void* body = nullptr;
  size_t items = 0, batch = 1;
  uint32_t flags = 0;
};

// A thread's share of a loop: generation (32 bits) | front (16 bits) | back
// (16 bits), the chunks [front, back) not yet claimed. Its owner claims from
// the front; the other threads, once their own share is done, from the back.
// A loop has at most kMaxBatches chunks, so that front and back fit.
constexpr size_t kMaxBatches = 0xFFFF;
// Chunks per thread, at most: fine enough that the last chunks even out the
// threads' finishing times (an XNNPACK GEMM's items are tiles of 10-100 us;
// at four per thread the first thread done waited up to a quarter of its
// share for the other, and XNNPACK's 2-thread 1x1 convolutions ran 10-15%
// slower than on pthreadpool's own pool), coarse enough that claiming costs
// nothing measurable.
constexpr size_t kChunksPerThread = 16;
uint64_t Word(uint64_t generation, uint64_t front, uint64_t back) {
  return ((generation & 0xFFFFFFFFu) << 32) | (front << 16) | back;
}
uint32_t GenerationOf(uint64_t w) { return static_cast<uint32_t>(w >> 32); }
uint64_t FrontOf(uint64_t w) { return (w >> 16) & 0xFFFF; }
uint64_t BackOf(uint64_t w) { return w & 0xFFFF; }

// Worker starts left before each start throws (SetThreadStartLimitForTesting);
// negative: no limit.
std::atomic<int> g_thread_starts_allowed{-1};

// One share per thread, each on its own cache line.
struct alignas(64) Share {
  std::atomic<uint64_t> word{0};
};

// The chunks one thread ran of a loop: generation (48 bits) | count (16
// bits), written by that thread alone, on a line of its own (the caller
// reads them all while it waits, and a claim on the share would otherwise
// have to fetch the line back). 48 bits, because a thread may tell nothing
// for a long time (a pool of many threads running small loops) and a count
// whose generation came round again would be taken for the current loop's;
// a share is never read after its loop, so 32 bits serve there.
constexpr int kTallyCountBits = 16;
constexpr uint64_t kTallyGenerationMask = (uint64_t{1} << (64 - kTallyCountBits)) - 1;
struct alignas(64) Tally {
  std::atomic<uint64_t> value{0};
};

}  // namespace

// The pool. Each loop is cut into up to 16 chunks per thread, and each thread
// owns a contiguous share of them: thread t (the caller is thread 0) starts
// at the t-th part of the range in every loop, so that consecutive ops split
// their tensors alike and each thread mostly reads what it wrote (a chunk
// the other core wrote costs a transfer between the cores' caches). A thread
// done with its share takes the chunks left in the others' shares, from the
// back: a worker that the scheduler keeps off the CPU (another process is
// busy) leaves its share to the threads that run, instead of having them
// wait for it.
struct pthreadpool {
  // Starts num_threads - 1 workers. A thread the system refuses (the
  // process or user limit reached: std::system_error, EAGAIN) ends the
  // starting: the pool runs with the threads it has (`threads`, the caller
  // included) and `start_error` says why. Nothing is thrown once a worker
  // runs, so no std::thread is ever destroyed joinable.
  explicit pthreadpool(int num_threads)
      : threads(std::max(1, num_threads)), shares(new Share[threads]), tallies(new Tally[threads]) {
    workers.reserve(static_cast<size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) {
      try {
        StartWorker(i);
      } catch (const std::exception& e) {
        // No worker reads `threads` before the first loop is published.
        start_error = e.what();
        threads = i;
        break;
      }
    }
  }

  void StartWorker(int i) {
    int allowed = g_thread_starts_allowed.load();
    while (allowed >= 0) {
      if (allowed == 0) {
        throw std::system_error(EAGAIN, std::generic_category(), "thread creation refused by a test");
      }
      if (g_thread_starts_allowed.compare_exchange_weak(allowed, allowed - 1)) break;
    }
    workers.emplace_back([this, i] { WorkerLoop(i); });
  }
  ~pthreadpool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    wake.notify_all();
    for (auto& t : workers) t.join();
  }

  void Run(const Loop& loop) {
    if (loop.items == 0) return;
    if (threads == 1 || loop.items == 1 || t_in_loop) {
      InLoop in_loop;
      DenormalMode denormals;
      denormals.FlushIf(loop.flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS);
      loop.run(loop.body, 0, loop.items);
      return;
    }
    std::lock_guard<std::mutex> run_lock(run_mutex);
    current = loop;
    const size_t wanted = std::min<size_t>({loop.items, static_cast<size_t>(threads) * kChunksPerThread, kMaxBatches});
    current.batch = (loop.items + wanted - 1) / wanted;
    const uint64_t batches = (loop.items + current.batch - 1) / current.batch;
    batches_total = static_cast<uint32_t>(batches);
    // Plain stores, made visible to the workers by the release store of
    // `published` (their acquire load of it): a sequentially consistent
    // store waits for its cache line to come back from the core that last
    // wrote it (the worker's share), and the worker would
    // learn of the loop only after those round trips.
    yield_after.store((loop.flags & PTHREADPOOL_FLAG_YIELD_WORKERS) != 0, std::memory_order_relaxed);
    ++generation;
    const uint64_t t_count = static_cast<uint64_t>(threads);
    for (uint64_t t = 0; t < t_count; ++t) {
      shares[t].word.store(Word(generation, t * batches / t_count, (t + 1) * batches / t_count),
                           std::memory_order_relaxed);
    }
    published.store(generation, std::memory_order_release);
    // Only a speed-up: the caller needs no worker to finish a loop (it takes
    // every chunk nobody claimed), so a worker that fell asleep just as the
    // loop was published and is missed here sleeps through it, and the next
    // loop's check (or Release, or the destructor) wakes it.
    if (sleepers.load(std::memory_order_relaxed) > 0) {
      { std::lock_guard<std::mutex> lock(mutex); }
      wake.notify_all();
    }
    Work(generation, 0);
    const uint64_t gen = generation;
    const auto all_done = [this, gen] { return Ran(gen) == batches_total; };
    if (!SpinUntil(kCallerSpin, all_done)) {
      std::unique_lock<std::mutex> lock(mutex);
      caller_waiting.store(true);
      finished.wait(lock, all_done);
      caller_waiting.store(false);
    }
  }

  // Claims one chunk of loop `gen` from thread t's share (its front when
  // t is the calling thread's own share, else its back); false when none
  // is left.
  bool Claim(uint64_t gen, int t, bool front, uint64_t* chunk) {
    std::atomic<uint64_t>& word = shares[t].word;
    uint64_t w = word.load();
    for (;;) {
      if (GenerationOf(w) != static_cast<uint32_t>(gen) || FrontOf(w) >= BackOf(w)) return false;
      const uint64_t next = front ? Word(gen, FrontOf(w) + 1, BackOf(w)) : Word(gen, FrontOf(w), BackOf(w) - 1);
      if (word.compare_exchange_weak(w, next)) {
        *chunk = front ? FrontOf(w) : BackOf(w) - 1;
        return true;
      }
    }
  }

  // Runs chunks of loop `gen`: thread `self`'s share, then what is left of
  // the others'.
  void Work(uint64_t gen, int self) {
    InLoop in_loop;
    DenormalMode denormals;
    // Chunks this thread ran, told (Tell) after its own share and again
    // after what it took from the others; one shared counter took the line
    // from the caller's core, which was waiting on it, at each count.
    uint32_t ran = 0;
    auto run = [&](uint64_t chunk) {
      // A claimed chunk keeps loop `gen` alive (its caller waits for it, and
      // it is told only below), so `current` is that loop's until then.
      denormals.FlushIf(current.flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS);
      const size_t begin = chunk * current.batch;
      const size_t end = std::min(current.items, begin + current.batch);
      current.run(current.body, begin, end);
      ++ran;
    };
    uint64_t chunk = 0;
    while (Claim(gen, self, true, &chunk)) run(chunk);
    // Told before the others' shares are read (their lines come from the
    // other cores): the caller may be waiting for just these.
    if (ran > 0) Tell(gen, self, ran);
    const uint32_t own = ran;
    for (int i = 1; i < threads; ++i) {
      const int t = (self + i) % threads;
      while (Claim(gen, t, false, &chunk)) run(chunk);
    }
    if (ran > own) Tell(gen, self, ran);
  }

  // Thread `self` has run `ran` chunks of loop `gen` so far; wakes a caller
  // that sleeps waiting for them. Nothing of the loop may be read after the
  // store: once every chunk is told, its caller may publish the next one.
  void Tell(uint64_t gen, int self, uint32_t ran) {
    tallies[self].value.store(((gen & kTallyGenerationMask) << kTallyCountBits) | ran);
    if (caller_waiting.load()) {
      { std::lock_guard<std::mutex> lock(mutex); }
      finished.notify_all();
    }
  }

  // The chunks of loop `gen` the threads have told.
  uint32_t Ran(uint64_t gen) const {
    uint32_t sum = 0;
    for (int t = 0; t < threads; ++t) {
      const uint64_t v = tallies[t].value.load();
      if (v >> kTallyCountBits == (gen & kTallyGenerationMask)) {
        sum += static_cast<uint32_t>(v & ((uint64_t{1} << kTallyCountBits) - 1));
      }
    }
    return sum;
  }

  void WorkerLoop(int self) {
    uint64_t seen = 0;
    for (;;) {
      const auto news = [&] { return published.load(std::memory_order_acquire) != seen; };
      if (yield_after || !SpinUntil(kWorkerSpin, news)) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepers.fetch_add(1);
        wake.wait(lock, [&] { return stop || news(); });
        sleepers.fetch_sub(1);
        if (stop) return;
      }
      seen = published.load(std::memory_order_acquire);
      Work(seen, self);
    }
  }

  int threads;  // fixed once the constructor returns
  std::string start_error;  // why fewer threads started than asked for
  std::vector<std::thread> workers;
  std::mutex run_mutex;  // one loop at a time
  std::mutex mutex;
  std::condition_variable wake, finished;
  bool stop = false;
  // The loop in progress; written by its caller before it publishes it.
  Loop current;
  uint64_t generation = 0;
  uint32_t batches_total = 0;
  std::unique_ptr<Share[]> shares;  // one per thread
  std::unique_ptr<Tally[]> tallies;  // one per thread
  std::atomic<uint64_t> published{0};  // the generation of the latest loop
  std::atomic<int> sleepers{0};
  std::atomic<bool> caller_waiting{false};
  std::atomic<bool> yield_after{false};
};

namespace gld {

namespace {

// A ParallelFor loop. An exception thrown in a chunk (std::bad_alloc from a
// kernel's scratch buffer) must not leave a worker thread, which would end
// the process: the first one is kept, the chunks not yet started are
// skipped, and ParallelFor throws it again on the calling thread.
struct ChunkBody {
  const std::function<void(int64_t, int64_t)>* fn;
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // written once, by the chunk that set `failed`
};

void RunChunk(const void* body, size_t begin, size_t end) {
  auto* b = const_cast<ChunkBody*>(static_cast<const ChunkBody*>(body));
  if (b->failed.load(std::memory_order_acquire)) return;
  try {
    (*b->fn)(static_cast<int64_t>(begin), static_cast<int64_t>(end));
  } catch (...) {
    bool expected = false;
    if (b->failed.compare_exchange_strong(expected, true)) b->error = std::current_exception();
  }
}

void Nothing(const void*, size_t, size_t) {}

}  // namespace

ThreadPool::ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
  if (num_threads_ == 1) return;
  const int wanted = num_threads_;
  std::string why;
  try {
    pool_ = new ::pthreadpool(wanted);
    num_threads_ = pool_->threads;
    why = pool_->start_error;
  } catch (const std::exception& e) {  // no memory for the pool itself
    pool_ = nullptr;
    num_threads_ = 1;
    why = e.what();
  }
  if (num_threads_ == wanted) return;
  Log().warn("thread pool: {} of the {} threads asked for could be started ({}); running with {}", num_threads_,
             wanted, why, num_threads_);
  if (num_threads_ == 1) {
    delete pool_;  // its workers: none
    pool_ = nullptr;
  }
}

void SetThreadStartLimitForTesting(int allowed) { g_thread_starts_allowed.store(allowed < 0 ? -1 : allowed); }

ThreadPool::~ThreadPool() { delete pool_; }

void ThreadPool::ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  if (pool_ == nullptr) {
    fn(0, n);
    return;
  }
  ChunkBody body;
  body.fn = &fn;
  Loop loop;
  loop.run = RunChunk;
  loop.body = &body;
  loop.items = static_cast<size_t>(n);
  pool_->Run(loop);
  // Every chunk is done (Run waited until the threads told them all), so
  // `error` is visible here.
  if (body.error) std::rethrow_exception(body.error);
}

void ThreadPool::Release() {
  if (pool_ == nullptr) return;
  Loop loop;
  loop.run = Nothing;
  loop.items = static_cast<size_t>(num_threads_);
  loop.flags = PTHREADPOOL_FLAG_YIELD_WORKERS;
  pool_->Run(loop);
}

int ResolveNumThreads(int num_threads) {
  if (num_threads != -1) return num_threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? static_cast<int>(cores) : 1;
}

}  // namespace gld

// pthreadpool's interface, for XNNPACK: the calls it makes, over the pool
// above. A loop over an N-dimensional range of (tiled) items runs as one
// loop over the items' linear index.
namespace {

constexpr int kMaxDims = 6;

struct NdLoop {
  int dims = 0;
  size_t range[kMaxDims] = {}, tile[kMaxDims] = {}, tiles[kMaxDims] = {};
  void (*call)(const NdLoop& loop, const size_t* start, const size_t* size) = nullptr;
  void* function = nullptr;
  void* context = nullptr;
};

// Runs items [begin, end) in row-major order: the tile indices of `begin`
// come from divisions, the next ones from stepping the last dimension and
// carrying (a division per item costs as much as a small kernel's tile).
void RunNd(const void* body, size_t begin, size_t end) {
  const NdLoop& loop = *static_cast<const NdLoop*>(body);
  if (begin >= end) return;
  size_t index[kMaxDims], start[kMaxDims], size[kMaxDims];
  size_t rest = begin;
  for (int d = loop.dims - 1; d >= 0; --d) {
    index[d] = rest % loop.tiles[d];
    rest /= loop.tiles[d];
  }
  auto place = [&](int d) {
    start[d] = index[d] * loop.tile[d];
    size[d] = std::min(loop.tile[d], loop.range[d] - start[d]);
  };
  for (int d = 0; d < loop.dims; ++d) place(d);
  for (size_t linear = begin;;) {
    loop.call(loop, start, size);
    if (++linear == end) return;
    int d = loop.dims - 1;
    while (++index[d] == loop.tiles[d]) {
      index[d] = 0;
      place(d);
      --d;
    }
    place(d);
  }
}

void ParallelizeNd(pthreadpool_t pool, NdLoop& loop, uint32_t flags) {
  size_t items = 1;
  for (int d = 0; d < loop.dims; ++d) {
    if (loop.range[d] == 0) return;
    loop.tile[d] = std::max<size_t>(1, std::min(loop.tile[d], loop.range[d]));
    loop.tiles[d] = (loop.range[d] + loop.tile[d] - 1) / loop.tile[d];
    items *= loop.tiles[d];
  }
  Loop run;
  run.run = RunNd;
  run.body = &loop;
  run.items = items;
  run.flags = flags;
  if (pool == nullptr) {
    // No pool: the calling thread runs everything, as pthreadpool does.
    InLoop in_loop;
    DenormalMode denormals;
    denormals.FlushIf(flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    RunNd(&loop, 0, items);
    return;
  }
  pool->Run(run);
}

template <typename Fn>
Fn As(const NdLoop& loop) {
  return reinterpret_cast<Fn>(loop.function);
}

NdLoop MakeNd(void* function, void* context, std::initializer_list<size_t> ranges,
              std::initializer_list<size_t> tiles) {
  NdLoop loop;
  loop.function = function;
  loop.context = context;
  loop.dims = static_cast<int>(ranges.size());
  int d = 0;
  for (size_t r : ranges) loop.range[d++] = r;
  // Tiles apply to the last dimensions; the others have tile 1.
  for (int i = 0; i < loop.dims; ++i) loop.tile[i] = 1;
  d = loop.dims - static_cast<int>(tiles.size());
  for (size_t t : tiles) loop.tile[d++] = t;
  return loop;
}

}  // namespace

// Exported whatever the build's default visibility, so that XNNPACK's calls
// bind to these.
#define GLD_PTHREADPOOL_API __attribute__((visibility("default")))

extern "C" {

GLD_PTHREADPOOL_API pthreadpool_t pthreadpool_create(size_t threads_count) {
  const size_t n = threads_count != 0 ? threads_count : std::max(1u, std::thread::hardware_concurrency());
  try {
    return new pthreadpool(static_cast<int>(std::min<size_t>(n, 1024)));
  } catch (const std::exception&) {
    return nullptr;  // no memory or no threads: pthreadpool's callers then run alone
  }
}

GLD_PTHREADPOOL_API void pthreadpool_destroy(pthreadpool_t pool) { delete pool; }

GLD_PTHREADPOOL_API size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  return pool != nullptr ? static_cast<size_t>(pool->threads) : 1;
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t f, void* ctx,
                                                    size_t range, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {range}, {});
  l.call = [](const NdLoop& n, const size_t* s, const size_t*) { As<pthreadpool_task_1d_t>(n)(n.context, s[0]); };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t f,
                                                            void* ctx, size_t range, size_t tile, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {range}, {tile});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_1d_tile_1d_t>(n)(n.context, s[0], z[0]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_2d(pthreadpool_t pool, pthreadpool_task_2d_t f, void* ctx,
                                                    size_t ri, size_t rj, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj}, {});
  l.call = [](const NdLoop& n, const size_t* s, const size_t*) {
    As<pthreadpool_task_2d_t>(n)(n.context, s[0], s[1]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t tj,
                                                            uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj}, {tj});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_2d_tile_1d_t>(n)(n.context, s[0], s[1], z[1]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t ti, size_t tj,
                                                            uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj}, {ti, tj});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_2d_tile_2d_t>(n)(n.context, s[0], s[1], z[0], z[1]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_3d(pthreadpool_t pool, pthreadpool_task_3d_t f, void* ctx,
                                                    size_t ri, size_t rj, size_t rk, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk}, {});
  l.call = [](const NdLoop& n, const size_t* s, const size_t*) {
    As<pthreadpool_task_3d_t>(n)(n.context, s[0], s[1], s[2]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t pool, pthreadpool_task_3d_tile_2d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t rk, size_t tj,
                                                            size_t tk, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk}, {tj, tk});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_3d_tile_2d_t>(n)(n.context, s[0], s[1], s[2], z[1], z[2]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_4d(pthreadpool_t pool, pthreadpool_task_4d_t f, void* ctx,
                                                    size_t ri, size_t rj, size_t rk, size_t rl, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk, rl}, {});
  l.call = [](const NdLoop& n, const size_t* s, const size_t*) {
    As<pthreadpool_task_4d_t>(n)(n.context, s[0], s[1], s[2], s[3]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t rk, size_t rl,
                                                            size_t tk, size_t tl, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk, rl}, {tk, tl});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_4d_tile_2d_t>(n)(n.context, s[0], s[1], s[2], s[3], z[2], z[3]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_5d(pthreadpool_t pool, pthreadpool_task_5d_t f, void* ctx,
                                                    size_t ri, size_t rj, size_t rk, size_t rl, size_t rm,
                                                    uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk, rl, rm}, {});
  l.call = [](const NdLoop& n, const size_t* s, const size_t*) {
    As<pthreadpool_task_5d_t>(n)(n.context, s[0], s[1], s[2], s[3], s[4]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t rk, size_t rl,
                                                            size_t rm, size_t tl, size_t tm, uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk, rl, rm}, {tl, tm});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_5d_tile_2d_t>(n)(n.context, s[0], s[1], s[2], s[3], s[4], z[3], z[4]);
  };
  ParallelizeNd(pool, l, flags);
}

GLD_PTHREADPOOL_API void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t f,
                                                            void* ctx, size_t ri, size_t rj, size_t rk, size_t rl,
                                                            size_t rm, size_t rn, size_t tm, size_t tn,
                                                            uint32_t flags) {
  NdLoop l = MakeNd(reinterpret_cast<void*>(f), ctx, {ri, rj, rk, rl, rm, rn}, {tm, tn});
  l.call = [](const NdLoop& n, const size_t* s, const size_t* z) {
    As<pthreadpool_task_6d_tile_2d_t>(n)(n.context, s[0], s[1], s[2], s[3], s[4], s[5], z[4], z[5]);
  };
  ParallelizeNd(pool, l, flags);
}

}  // extern "C"
