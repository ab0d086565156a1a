#include "util/memory_planner.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace gld {

namespace {
uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
}  // namespace

namespace {

// One greedy placement: buffers in `order`, each at the lowest offset
// (first fit) or in the smallest gap (best fit) that no buffer alive at the
// same time overlaps.
ArenaPlan PlaceInOrder(const std::vector<BufferUsage>& usages, const std::vector<size_t>& order, uint64_t alignment,
                       bool best_fit) {
  ArenaPlan plan;
  plan.offsets.assign(usages.size(), 0);
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
    uint64_t best = 0, best_gap = UINT64_MAX;
    bool found = false;
    uint64_t cursor = 0;
    for (const Placed& p : placed) {
      const BufferUsage& o = usages[p.index];
      if (o.last_step < u.first_step || u.last_step < o.first_step) continue;
      if (p.offset >= cursor + size && (!found || p.offset - cursor < best_gap)) {
        best = cursor;
        best_gap = p.offset - cursor;
        found = true;
        if (!best_fit) break;
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

}  // namespace

ArenaPlan PlanArena(const std::vector<BufferUsage>& usages, uint64_t alignment) {
  const size_t n = usages.size();
  std::vector<size_t> by_size(n);
  std::iota(by_size.begin(), by_size.end(), 0);
  // Largest first; ties by first use so the result does not depend on sort stability.
  std::sort(by_size.begin(), by_size.end(), [&](size_t a, size_t b) {
    if (usages[a].bytes != usages[b].bytes) return usages[a].bytes > usages[b].bytes;
    if (usages[a].first_step != usages[b].first_step) return usages[a].first_step < usages[b].first_step;
    return a < b;
  });
  // Largest size x lifetime first: long-lived big buffers settle low.
  std::vector<size_t> by_area = by_size;
  auto area = [&](size_t i) {
    return usages[i].bytes * static_cast<uint64_t>(usages[i].last_step - usages[i].first_step + 1);
  };
  std::stable_sort(by_area.begin(), by_area.end(), [&](size_t a, size_t b) { return area(a) > area(b); });
  // No greedy order is best for every graph: try a few, keep the smallest.
  ArenaPlan best;
  bool have = false;
  for (const std::vector<size_t>* order : {&by_size, &by_area}) {
    for (bool best_fit : {false, true}) {
      ArenaPlan plan = PlaceInOrder(usages, *order, alignment, best_fit);
      if (!have || plan.arena_bytes < best.arena_bytes) best = std::move(plan);
      have = true;
    }
  }
  return best;
}

}  // namespace gld
