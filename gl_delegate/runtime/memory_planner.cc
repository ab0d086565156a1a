#include "runtime/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace gld {

namespace {
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

ArenaPlan PlanArena(const std::vector<BufferUsage>& usages, uint64_t alignment) {
  ArenaPlan plan;
  const size_t n = usages.size();
  plan.offsets.assign(n, 0);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest first; ties by first use so the result does not depend on sort stability.
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (usages[a].bytes != usages[b].bytes) return usages[a].bytes > usages[b].bytes;
    if (usages[a].first_step != usages[b].first_step) return usages[a].first_step < usages[b].first_step;
    return a < b;
  });
  struct Placed {
    uint64_t offset, end;
    size_t index;
  };
  std::vector<Placed> placed;  // kept sorted by offset
  for (size_t idx : order) {
    const BufferUsage& u = usages[idx];
    const uint64_t size = AlignUp(u.bytes, alignment);
    plan.naive_bytes += size;
    // Gaps between the placed buffers that overlap in time, lowest offset first.
    uint64_t best = 0;
    bool found = false;
    uint64_t cursor = 0;
    for (const Placed& p : placed) {
      const BufferUsage& o = usages[p.index];
      if (o.last_step < u.first_step || u.last_step < o.first_step) continue;
      if (p.offset >= cursor + size) {
        best = cursor;
        found = true;
        break;
      }
      cursor = std::max(cursor, p.end);
    }
    if (!found) best = cursor;
    plan.offsets[idx] = best;
    plan.arena_bytes = std::max(plan.arena_bytes, best + size);
    Placed np{best, best + size, idx};
    placed.insert(std::upper_bound(placed.begin(), placed.end(), np,
                                   [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
                  np);
  }
  return plan;
}

}  // namespace gld
