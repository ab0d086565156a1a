#include <gtest/gtest.h>

#include <cstdint>

#include "util/memory_planner.h"

namespace gld {
namespace {

bool Overlap(const BufferUsage& a, const BufferUsage& b) {
  return !(a.last_step < b.first_step || b.last_step < a.first_step);
}

// Every pair of buffers alive at the same time must not share bytes.
void ExpectValid(const std::vector<BufferUsage>& u, const ArenaPlan& p) {
  ASSERT_EQ(p.offsets.size(), u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    EXPECT_EQ(p.offsets[i] % 64, 0u);
    EXPECT_LE(p.offsets[i] + u[i].bytes, p.arena_bytes);
    for (size_t j = i + 1; j < u.size(); ++j) {
      if (!Overlap(u[i], u[j]) || u[i].bytes == 0 || u[j].bytes == 0) continue;
      bool disjoint = p.offsets[i] + u[i].bytes <= p.offsets[j] || p.offsets[j] + u[j].bytes <= p.offsets[i];
      EXPECT_TRUE(disjoint) << "buffers " << i << " and " << j << " overlap";
    }
  }
}

TEST(MemoryPlanner, ChainReusesStorage) {
  // a(0..1) -> b(1..2) -> c(2..3): a and c never live together.
  std::vector<BufferUsage> u = {{1000, 0, 1}, {1000, 1, 2}, {1000, 2, 3}};
  ArenaPlan p = PlanArena(u);
  ExpectValid(u, p);
  EXPECT_EQ(p.naive_bytes, 3u * 1024);
  EXPECT_EQ(p.arena_bytes, 2u * 1024);
  EXPECT_EQ(p.offsets[0], p.offsets[2]);
}

TEST(MemoryPlanner, SmallBufferFitsInAGapLeftByALargeOne) {
  // Big lives 0..1; medium 2..3 takes its place; small 0..3 must avoid both.
  std::vector<BufferUsage> u = {{4096, 0, 1}, {1024, 2, 3}, {64, 0, 3}};
  ArenaPlan p = PlanArena(u);
  ExpectValid(u, p);
  EXPECT_EQ(p.arena_bytes, 4096u + 64u);
}

TEST(MemoryPlanner, OffsetsAre64ByteAligned) {
  std::vector<BufferUsage> u = {{3, 0, 0}, {5, 0, 0}, {7, 0, 0}};
  ArenaPlan p = PlanArena(u);
  ExpectValid(u, p);
  EXPECT_EQ(p.arena_bytes, 3u * 64);
}

TEST(MemoryPlanner, EmptyAndZeroSized) {
  EXPECT_EQ(PlanArena({}).arena_bytes, 0u);
  std::vector<BufferUsage> u = {{0, 0, 5}, {128, 1, 2}};
  ArenaPlan p = PlanArena(u);
  ExpectValid(u, p);
  EXPECT_EQ(p.arena_bytes, 128u);
}

TEST(MemoryPlanner, RandomLifetimesNeverCollideAndNeverExceedNaive) {
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state >> 33);
  };
  for (int round = 0; round < 50; ++round) {
    std::vector<BufferUsage> u;
    int n = 1 + static_cast<int>(next() % 40);
    for (int i = 0; i < n; ++i) {
      int first = static_cast<int>(next() % 30);
      int len = static_cast<int>(next() % 6);
      u.push_back({1 + next() % 5000, first, first + len});
    }
    ArenaPlan p = PlanArena(u);
    ExpectValid(u, p);
    EXPECT_LE(p.arena_bytes, p.naive_bytes);
    // Lower bound: the bytes alive at the busiest step.
    uint64_t peak = 0;
    for (int s = 0; s < 40; ++s) {
      uint64_t live = 0;
      for (const auto& b : u) {
        if (b.first_step <= s && s <= b.last_step) live += (b.bytes + 63) / 64 * 64;
      }
      peak = std::max(peak, live);
    }
    EXPECT_GE(p.arena_bytes, peak);
  }
}

}  // namespace
}  // namespace gld
