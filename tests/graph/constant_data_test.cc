// ConstantData: shared, immutable bytes, owned or viewed.
#include "graph/constant_data.h"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace gld {
namespace {

TEST(ConstantData, CopiesShareTheBytes) {
  ConstantData a;
  a = std::vector<uint8_t>{1, 2, 3};
  ConstantData b = a;
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(b.ToVector(), (std::vector<uint8_t>{1, 2, 3}));
  a = std::vector<uint8_t>{9};
  EXPECT_EQ(b.ToVector(), (std::vector<uint8_t>{1, 2, 3})) << "new contents go to a new buffer";
  EXPECT_EQ(a.ToVector(), (std::vector<uint8_t>{9}));
}

TEST(ConstantData, AMovedFromHolderIsEmpty) {
  ConstantData a = ConstantData::CopyOf("abcd", 4);
  ConstantData b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the state a move leaves is the contract
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.size(), 4u);
  ConstantData c;
  c = std::move(b);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(std::memcmp(c.data(), "abcd", 4), 0);
  ConstantData& self = c;
  c = std::move(self);
  EXPECT_EQ(c.size(), 4u) << "moving into itself keeps the bytes";
}

TEST(ConstantData, AViewKeepsItsOwnerAlive) {
  auto block = std::make_shared<std::vector<uint8_t>>(std::vector<uint8_t>{5, 6, 7, 8});
  std::weak_ptr<std::vector<uint8_t>> watch = block;
  ConstantData view = ConstantData::View(block, block->data() + 1, 2);
  block.reset();
  ASSERT_FALSE(watch.expired());
  EXPECT_EQ(view.ToVector(), (std::vector<uint8_t>{6, 7}));
  ConstantData copy = view;
  view.clear();
  EXPECT_TRUE(view.empty());
  EXPECT_FALSE(watch.expired());
  copy.clear();
  EXPECT_TRUE(watch.expired()) << "freed with its last holder";
}

TEST(ConstantData, EmptyContentsHoldNothing) {
  auto block = std::make_shared<int>(0);
  std::weak_ptr<int> watch = block;
  ConstantData view = ConstantData::View(block, nullptr, 0);
  block.reset();
  EXPECT_TRUE(watch.expired());
  EXPECT_TRUE(view.empty());
  ConstantData none;
  none = std::vector<uint8_t>{};
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(ConstantData::CopyOf(nullptr, 0).empty());
}

}  // namespace
}  // namespace gld
