// AlignedBuffer and AllocateAlignedBlock: alignment, zeroing and the readable
// tail, on heap-sized and mapping-sized blocks (the latter advised for huge
// pages, which must change nothing a caller can see but the placement).
#include "util/aligned_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "common/process_limits.h"

namespace gld {
namespace {

TEST(AlignedBuffer, ZeroedAlignedAndReadablePastTheEnd) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{300} << 10, uint64_t{1900} << 10, uint64_t{5} << 20}) {
    AlignedBuffer b;
    ASSERT_TRUE(b.Allocate(bytes, "a test block").ok()) << bytes;
    ASSERT_NE(b.data(), nullptr) << bytes;
    EXPECT_EQ(b.size(), bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % AlignedBuffer::kAlignment, 0u) << bytes;
    uint8_t any = 0;
    for (uint64_t i = 0; i < bytes + AlignedBuffer::kAlignment; i += 997) any |= b.data()[i];
    any |= b.data()[bytes + AlignedBuffer::kAlignment - 1];
    EXPECT_EQ(any, 0) << bytes;
    if (bytes >= (uint64_t{256} << 10)) {
      // A mapping of its own, from a huge-page boundary.
      EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (uintptr_t{2} << 20), 0u) << bytes;
      EXPECT_GE(b.mapped(), bytes + AlignedBuffer::kAlignment) << bytes;
      if (bytes == (uint64_t{1900} << 10)) {
        EXPECT_EQ(b.mapped(), uint64_t{2} << 20);  // the huge page rounded up
      }
    } else {
      EXPECT_EQ(b.mapped(), 0u) << bytes;
    }
    if (bytes > 0) {
      std::memset(b.data(), 0x5a, static_cast<size_t>(bytes));
      EXPECT_EQ(b.data()[bytes - 1], 0x5a);
    }
  }
}

TEST(AllocateAlignedBlock, AlignedWritableAndReusable) {
  for (int round = 0; round < 2; ++round) {  // the second reuses what the first freed
    for (uint64_t bytes : {uint64_t{8}, uint64_t{200} << 10, uint64_t{1536} << 10, uint64_t{6} << 20}) {
      auto block = AllocateAlignedBlock(bytes);
      ASSERT_NE(block, nullptr) << bytes;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(block.get()) % AlignedBuffer::kAlignment, 0u) << bytes;
      if (bytes >= (uint64_t{1} << 20)) {
        // A mapping of its own, from a huge-page boundary.
        EXPECT_NE(block.get_deleter().mapped, 0u) << bytes;
        EXPECT_EQ(reinterpret_cast<uintptr_t>(block.get()) % (uintptr_t{2} << 20), 0u) << bytes;
        EXPECT_GE(block.get_deleter().mapped, bytes + AlignedBuffer::kAlignment) << bytes;
      } else {
        EXPECT_EQ(block.get_deleter().mapped, 0u) << bytes;
      }
      std::memset(block.get(), 0x11, static_cast<size_t>(bytes + AlignedBuffer::kAlignment));
      EXPECT_EQ(block[bytes + AlignedBuffer::kAlignment - 1], 0x11);
    }
  }
}

// A size past what the address space holds is a null block, never a wrap:
// bytes + the readable tail once overflowed uint64_t (a few bytes
// allocated for an enormous request), and on a 32-bit target anything past
// 4 GiB once wrapped in the size_t of the mapping or the heap call.
TEST(AllocateAlignedBlock, SizesBeyondTheAddressSpaceFail) {
  for (uint64_t bytes : {UINT64_MAX, UINT64_MAX - AlignedBuffer::kAlignment + 1, UINT64_MAX - (uint64_t{3} << 20)}) {
    EXPECT_EQ(AllocateAlignedBlock(bytes), nullptr) << bytes;
  }
  if (sizeof(size_t) < 8) {
    EXPECT_EQ(AllocateAlignedBlock((uint64_t{1} << 32) + 4096), nullptr);  // would wrap to 4 KiB
    EXPECT_EQ(AllocateAlignedBlock(uint64_t{1} << 32), nullptr);
  }
}

// True when the page at `p` is mapped (mincore fails with ENOMEM on an
// unmapped range).
bool PageMapped(uintptr_t p) {
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  unsigned char v = 0;
  return ::mincore(reinterpret_cast<void*>(p & ~(page - 1)), page, &v) == 0 || errno != ENOMEM;
}

// The mapping keeps nothing of its reservation but itself: whole pages from
// a 2 MiB boundary, the page after its end unmapped, and nothing left once
// freed. With sizes off a page boundary, the tail's munmap used to fail
// (EINVAL) and leave up to 2 MiB mapped per block.
TEST(MapOnHugePageBoundary, WholePagesAndNoTailLeftMapped) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t mib = uint64_t{1} << 20;
  for (uint64_t bytes : {uint64_t{1}, uint64_t{300} * 1024 + 13, mib + 64, mib + 5 * page, 2 * mib - 1, 2 * mib,
                         2 * mib + 100, 5 * mib + 1, 7 * mib / 2 + 3}) {
    uint64_t mapped = 0;
    uint8_t* p = MapOnHugePageBoundary(bytes, &mapped);
    ASSERT_NE(p, nullptr) << bytes;
    const uintptr_t begin = reinterpret_cast<uintptr_t>(p);
    EXPECT_EQ(begin % (2 * mib), 0u) << bytes;
    EXPECT_GE(mapped, bytes);
    EXPECT_EQ(mapped % page, 0u) << bytes << " mapped " << mapped;
    EXPECT_LT(mapped - bytes, 2 * mib) << bytes;
    p[0] = 1;
    p[mapped - 1] = 1;  // every byte of it is usable
    EXPECT_TRUE(PageMapped(begin + mapped - 1)) << bytes;
    EXPECT_FALSE(PageMapped(begin + mapped)) << bytes << ": the reservation's tail is still mapped";
    AlignedDelete{mapped}(p);
    EXPECT_FALSE(PageMapped(begin)) << bytes << ": still mapped after the free";
  }
}

// Many blocks made and freed leave the address space where it was.
TEST(MapOnHugePageBoundary, ThousandsOfBlocksLeaveNoMappingBehind) {
  if (testing::UnderAddressSanitizer()) GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory mapped";
  auto cycle = [] {
    for (uint64_t bytes : {uint64_t{300} * 1024 + 7, uint64_t{1} << 20 | 1, uint64_t{3} << 20 | 5}) {
      uint64_t mapped = 0;
      uint8_t* p = MapOnHugePageBoundary(bytes, &mapped);
      if (p != nullptr) AlignedDelete{mapped}(p);
      AlignedBuffer b;
      (void)b.Allocate(bytes, "a test block");
    }
  };
  cycle();
  const uint64_t vm_before = testing::VmSizeBytes();
  const int maps_before = testing::MappingCount();
  for (int i = 0; i < 2000; ++i) cycle();
  EXPECT_LE(testing::VmSizeBytes(), vm_before + (uint64_t{4} << 20)) << "VmSize grew from " << vm_before;
  EXPECT_LE(testing::MappingCount(), maps_before + 4);
}

}  // namespace
}  // namespace gld
