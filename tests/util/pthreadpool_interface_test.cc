// pthreadpool's interface over the pool (util/thread_pool.cc), as XNNPACK
// calls it: every tile of an N-dimensional range is visited once, with its
// size clipped at the range's end, whether the chunks run on the caller
// alone (no pool) or on several threads.
#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <atomic>
#include <vector>

#include "util/thread_pool.h"

namespace gld {
namespace {

// Ranges 5 x 4 x 7 x 3 x 6 x 9, the last two tiled 4 x 2: counts each
// element each call covers.
struct Coverage {
  static constexpr size_t kR[6] = {5, 4, 7, 3, 6, 9};
  std::vector<std::atomic<int>> hits;
  Coverage() : hits(5 * 4 * 7 * 3 * 6 * 9) {}
  void Mark(const size_t* s, size_t tm, size_t tn) {
    for (size_t m = s[4]; m < s[4] + tm; ++m) {
      for (size_t n = s[5]; n < s[5] + tn; ++n) {
        size_t linear = s[0];
        const size_t index[6] = {s[0], s[1], s[2], s[3], m, n};
        for (int d = 1; d < 6; ++d) linear = linear * kR[d] + index[d];
        hits[linear].fetch_add(1);
      }
    }
  }
};

void Task6d(void* context, size_t i, size_t j, size_t k, size_t l, size_t m, size_t n, size_t tm, size_t tn) {
  auto* c = static_cast<Coverage*>(context);
  // A tile never runs past the range.
  if (m + tm > Coverage::kR[4] || n + tn > Coverage::kR[5] || tm == 0 || tn == 0) {
    c->hits[0].fetch_add(1000);
    return;
  }
  const size_t s[6] = {i, j, k, l, m, n};
  c->Mark(s, tm, tn);
}

void Check6d(pthreadpool_t pool) {
  Coverage c;
  const size_t* r = Coverage::kR;
  pthreadpool_parallelize_6d_tile_2d(pool, Task6d, &c, r[0], r[1], r[2], r[3], r[4], r[5], 4, 2, 0);
  for (size_t i = 0; i < c.hits.size(); ++i) ASSERT_EQ(c.hits[i].load(), 1) << "element " << i;
}

TEST(PthreadpoolInterface, SixDimensionsTiledCoverEachElementOnceWithoutAPool) { Check6d(nullptr); }

TEST(PthreadpoolInterface, SixDimensionsTiledCoverEachElementOnceOnThreeThreads) {
  ThreadPool pool(3);
  for (int round = 0; round < 20; ++round) Check6d(pool.pthreadpool());
}

TEST(PthreadpoolInterface, TwoDimensionsVisitEachPairOnce) {
  ThreadPool pool(2);
  for (pthreadpool_t p : {static_cast<pthreadpool_t>(nullptr), pool.pthreadpool()}) {
    std::vector<std::atomic<int>> hits(13 * 17);
    pthreadpool_parallelize_2d(
        p, [](void* ctx, size_t i, size_t j) { (*static_cast<std::vector<std::atomic<int>>*>(ctx))[i * 17 + j]++; },
        &hits, 13, 17, 0);
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "pair " << i;
  }
}

}  // namespace
}  // namespace gld
