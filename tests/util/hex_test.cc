#include <gtest/gtest.h>

#include "util/hex.h"

namespace gld {
namespace {

// The program cache's file names and the tuning file's keys are these
// strings: 16 lowercase digits, zero-padded.
TEST(Hex64, SixteenLowercaseDigits) {
  EXPECT_EQ(Hex64(0), "0000000000000000");
  EXPECT_EQ(Hex64(0xff), "00000000000000ff");
  EXPECT_EQ(Hex64(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(Hex64(0xFEDCBA9876543210ull), "fedcba9876543210");
  EXPECT_EQ(Hex64(~0ull), "ffffffffffffffff");
}

}  // namespace
}  // namespace gld
