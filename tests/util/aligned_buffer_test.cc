// AlignedBuffer and AllocateAlignedBlock: alignment, zeroing and the readable
// tail, on heap-sized and mapping-sized blocks (the latter advised for huge
// pages, which must change nothing a caller can see but the placement).
#include "util/aligned_buffer.h"

#include <cstring>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace gld
