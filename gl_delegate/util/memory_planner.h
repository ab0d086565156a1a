// Arena planning: intermediate tensors whose lifetimes do not overlap share
// storage. Greedy by size: the largest tensors are placed first, each at the
// lowest aligned offset that does not collide with an already placed tensor
// whose lifetime overlaps its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gld {

struct BufferUsage {
  uint64_t bytes = 0;
  int first_step = 0;  // written here
  int last_step = 0;   // last read here (inclusive); >= first_step
};

struct ArenaPlan {
  std::vector<uint64_t> offsets;  // one per usage, multiples of the alignment
  uint64_t arena_bytes = 0;       // planned size
  uint64_t naive_bytes = 0;       // sum of every usage's aligned size
};

// `alignment` must be a power of two.
ArenaPlan PlanArena(const std::vector<BufferUsage>& usages, uint64_t alignment = 64);

}  // namespace gld
