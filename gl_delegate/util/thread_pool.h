// The CPU backend's thread pool, shared by the CPU kernels' parallel loops
// and XNNPACK's operators: thread_pool.cc implements pthreadpool's interface
// (the pthreadpool_* calls XNNPACK makes) over it, so one set of workers
// serves both, and its behaviour under load is ours.
//
// A loop is cut into up to 16 chunks per thread, and each thread owns a
// contiguous share of them (the calling thread the first), so consecutive
// loops split their tensors alike and a thread mostly reads what it wrote.
// A thread done with its share takes what is left of the others' from the
// back: when another process keeps a worker off the CPU, the threads that
// run take its share instead of waiting for it. A thread that waits for
// chunks others started, or for the next loop, spins for tens of
// microseconds, yielding the CPU every few (so that a thread waiting for
// that CPU runs instead), and then sleeps.
#pragma once

#include <cstdint>
#include <functional>

typedef struct pthreadpool* pthreadpool_t;

namespace gld {

class ThreadPool {
 public:
  // num_threads counts the calling thread: a pool of N starts N-1 workers.
  // Never throws: when the system refuses a thread (the process limit,
  // RLIMIT_NPROC, reached) or memory, the pool runs with the threads that
  // started, one warning says how many and why, and num_threads() tells
  // (1: every loop on the calling thread).
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }
  // For XNNPACK; nullptr for a single thread (every loop then runs on the
  // calling thread).
  pthreadpool_t pthreadpool() const { return pool_; }

  // Calls fn(begin, end) on contiguous chunks covering [0, n), at most 16
  // per thread, on the caller's thread and the workers, and returns when all
  // are done. Calls from several threads at once are serialized; a call from
  // inside fn runs inline on the calling thread.
  //
  // Between loops the workers spin for up to 50 us watching for the next one
  // (a loop often lasts tens of microseconds, about what waking a sleeping
  // thread takes); Release puts them to sleep at once.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

  // Sends the workers to sleep until the next loop at once, instead of after
  // their spin (the runtime lets them spin: back-to-back invokes then find
  // them awake).
  void Release();

 private:
  pthreadpool_t pool_ = nullptr;
  int num_threads_ = 1;
};

// For tests: the next `allowed` worker starts of any pool succeed and every
// later one throws std::system_error (EAGAIN), as under a process limit;
// negative lifts the limit.
void SetThreadStartLimitForTesting(int allowed);

// Options::num_threads as TFLite reads it: -1 is every core of the machine,
// otherwise the value itself.
int ResolveNumThreads(int num_threads);

}  // namespace gld
