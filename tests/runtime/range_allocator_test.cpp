// First-fit range allocator with alignment and coalescing.
#include "runtime/range_allocator.h"

#include <gtest/gtest.h>

#include <vector>

namespace npu {
namespace {

TEST(RangeAllocator, FirstBlockAtBase) {
  RangeAllocator a(0x1000, 0x1000);
  EXPECT_EQ(a.allocate(100, 64), 0x1000u);
  EXPECT_EQ(a.used_bytes(), 100u);
  EXPECT_EQ(a.live_blocks(), 1u);
  EXPECT_EQ(a.block_size(0x1000), 100u);
  EXPECT_EQ(a.block_size(0x1001), 0u);
}

TEST(RangeAllocator, AlignsUpAndKeepsTheGap) {
  RangeAllocator a(0x1000, 0x1000);
  EXPECT_EQ(a.allocate(100, 64), 0x1000u); // [0x1000, 0x1064)
  EXPECT_EQ(a.allocate(16, 256), 0x1100u); // aligned past the gap
  EXPECT_EQ(a.allocate(0x9c, 1), 0x1064u); // first fit uses the gap exactly
  EXPECT_EQ(a.allocate(1, 1), 0x1110u);    // gap is full: right after the 256-aligned block
  EXPECT_EQ(a.used_bytes(), 100u + 16 + 0x9c + 1);
}

TEST(RangeAllocator, UnalignedBase) {
  RangeAllocator a(0x1010, 0x100);
  EXPECT_EQ(a.allocate(16, 64), 0x1040u);
  EXPECT_EQ(a.allocate(0x30, 1), 0x1010u);       // the 0x30-byte gap before it
  EXPECT_EQ(a.allocate(0xd0, 64), std::nullopt); // 0x1050..0x1110 has 0xc0 bytes left
  EXPECT_EQ(a.allocate(0xc0, 16), 0x1050u);
  EXPECT_EQ(a.largest_free(), 0u);
}

TEST(RangeAllocator, ZeroBytesTakesOne) {
  RangeAllocator a(0, 16);
  EXPECT_EQ(a.allocate(0, 1), 0u);
  EXPECT_EQ(a.block_size(0), 1u);
  EXPECT_EQ(a.allocate(1, 1), 1u);
}

TEST(RangeAllocator, OutOfMemoryReturnsNulloptAndChangesNothing) {
  RangeAllocator a(0, 1024);
  EXPECT_EQ(a.allocate(1025, 1), std::nullopt);
  EXPECT_EQ(a.used_bytes(), 0u);
  EXPECT_EQ(a.largest_free(), 1024u);
  EXPECT_EQ(a.allocate(1024, 1), 0u);
  EXPECT_EQ(a.allocate(1, 1), std::nullopt);
  EXPECT_EQ(RangeAllocator(0, 0).allocate(1, 1), std::nullopt);
}

TEST(RangeAllocator, AlignmentCanMakeABlockNotFit) {
  RangeAllocator a(1, 128);                      // [1, 129)
  EXPECT_EQ(a.allocate(128, 128), std::nullopt); // aligned start 128 leaves 1 byte
  EXPECT_EQ(a.allocate(1, 128), 128u);
}

TEST(RangeAllocator, DoubleFreeAndUnknownAddress) {
  RangeAllocator a(0, 1024);
  const auto p = a.allocate(64, 64);
  ASSERT_TRUE(p);
  EXPECT_FALSE(a.free(*p + 1));
  EXPECT_TRUE(a.free(*p));
  EXPECT_FALSE(a.free(*p));
  EXPECT_EQ(a.used_bytes(), 0u);
  EXPECT_EQ(a.live_blocks(), 0u);
  EXPECT_EQ(a.largest_free(), 1024u);
}

TEST(RangeAllocator, CoalescesWithBothNeighbours) {
  RangeAllocator a(0, 4096);
  const auto b0 = a.allocate(1024, 1), b1 = a.allocate(1024, 1), b2 = a.allocate(1024, 1),
             b3 = a.allocate(1024, 1);
  ASSERT_TRUE(b0 && b1 && b2 && b3);
  EXPECT_EQ(*b3, 3072u);
  EXPECT_EQ(a.allocate(1, 1), std::nullopt);
  EXPECT_TRUE(a.free(*b0));
  EXPECT_TRUE(a.free(*b2));
  EXPECT_EQ(a.largest_free(), 1024u);
  EXPECT_EQ(a.allocate(2048, 1), std::nullopt);
  EXPECT_TRUE(a.free(*b1)); // joins b0 before and b2 after
  EXPECT_EQ(a.largest_free(), 3072u);
  EXPECT_EQ(a.allocate(3072, 1), 0u);
  EXPECT_TRUE(a.free(0));
  EXPECT_TRUE(a.free(*b3));
  EXPECT_EQ(a.largest_free(), 4096u);
  EXPECT_EQ(a.allocate(4096, 4096), 0u);
}

TEST(RangeAllocator, CoalescesInAnyFreeOrder) {
  RangeAllocator a(0x100, 0x400);
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 4; ++i)
    blocks.push_back(*a.allocate(0x100, 0x100));
  for (int i : {3, 0, 2, 1})
    EXPECT_TRUE(a.free(blocks[static_cast<size_t>(i)]));
  EXPECT_EQ(a.largest_free(), 0x400u);
  EXPECT_EQ(a.allocate(0x400, 0x100), 0x100u);
}

TEST(RangeAllocator, AlignmentGapIsReturnedOnFree) {
  RangeAllocator a(0, 1024);
  EXPECT_EQ(a.allocate(10, 1), 0u);      // [0, 10)
  EXPECT_EQ(a.allocate(100, 512), 512u); // leaves [10, 512) and [612, 1024)
  EXPECT_TRUE(a.free(0));
  EXPECT_TRUE(a.free(512));
  EXPECT_EQ(a.largest_free(), 1024u);
  EXPECT_EQ(a.allocate(1024, 1), 0u);
}

} // namespace
} // namespace npu
