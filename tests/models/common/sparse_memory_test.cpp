// Sparse byte storage: zero until written, 4 KiB pages allocated on first write.
#include "models/common/sparse_memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace npu {
namespace {

TEST(SparseMemory, UntouchedReadsZero) {
  const SparseMemory mem(1 << 20);
  std::vector<uint8_t> buf(8192, 0xAB);
  mem.read(100, buf.data(), buf.size());
  for (uint8_t b : buf)
    ASSERT_EQ(b, 0);
  EXPECT_EQ(mem.touched_bytes(), 0u);
  EXPECT_EQ(mem.size_bytes(), 1u << 20);
}

TEST(SparseMemory, WriteAcrossPageBoundaryReadsBack) {
  SparseMemory mem(1 << 20);
  std::vector<uint8_t> data(10);
  std::iota(data.begin(), data.end(), uint8_t{1});
  mem.write(4090, data.data(), data.size()); // 6 bytes in page 0, 4 in page 1
  EXPECT_EQ(mem.touched_bytes(), 8192u);
  std::vector<uint8_t> back(14, 0xEE);
  mem.read(4088, back.data(), back.size());
  EXPECT_EQ(back, (std::vector<uint8_t>{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0}));
}

TEST(SparseMemory, LargeWriteSpanningPages) {
  SparseMemory mem(1 << 20);
  std::vector<uint8_t> data(3 * 4096 + 96); // [4000, 16384): ends exactly on a page boundary
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7 + 3);
  mem.write(4000, data.data(), data.size());
  EXPECT_EQ(mem.touched_bytes(), 4u * 4096); // pages 0..3, not page 4
  std::vector<uint8_t> back(data.size());
  mem.read(4000, back.data(), back.size());
  EXPECT_EQ(back, data);
}

TEST(SparseMemory, RowsMatchRowByRowCopies) {
  // Rows 1000 bytes apart, 300 long: some within a page, some across a page boundary, some in
  // pages never touched before; the row copies equal one copy per row.
  SparseMemory rows(1 << 20), single(1 << 20);
  std::vector<uint8_t> data(12 * 300);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 13 + 1);
  rows.write_rows(2000, 1000, 300, 12, data.data());
  for (uint64_t i = 0; i < 12; ++i)
    single.write(2000 + i * 1000, data.data() + i * 300, 300);
  EXPECT_EQ(rows.touched_bytes(), single.touched_bytes());
  std::vector<uint8_t> a(20000), b(20000);
  rows.read(0, a.data(), a.size());
  single.read(0, b.data(), b.size());
  EXPECT_EQ(a, b);
  // Read back as rows, including rows in pages never written (zero).
  std::vector<uint8_t> back(40 * 300, 0xEE), expect(40 * 300);
  rows.read_rows(2000, 1000, 300, 40, back.data());
  for (uint64_t i = 0; i < 40; ++i)
    single.read(2000 + i * 1000, expect.data() + i * 300, 300);
  EXPECT_EQ(back, expect);
  EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.begin() + 12 * 300), data);
}

TEST(SparseMemory, PackedRowsAndRowsOfUntouchedPagesBetweenWrittenOnesMatchSingleCopies) {
  // Packed rows (stride = row length) across pages, then rows a page apart read back where
  // untouched pages lie between written ones: each as one copy per row.
  SparseMemory rows(1 << 20), single(1 << 20);
  std::vector<uint8_t> data(10 * 700);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7 + 3);
  rows.write_rows(3000, 700, 700, 10, data.data());
  single.write(3000, data.data(), data.size());
  rows.write(5 * 4096 + 100, data.data(), 64);
  single.write(5 * 4096 + 100, data.data(), 64);
  EXPECT_EQ(rows.touched_bytes(), single.touched_bytes());
  std::vector<uint8_t> back(9 * 500, 0xEE), expect(9 * 500);
  rows.read_rows(64, 4096, 500, 9, back.data());
  for (uint64_t i = 0; i < 9; ++i)
    single.read(64 + i * 4096, expect.data() + i * 500, 500);
  EXPECT_EQ(back, expect);
  EXPECT_NE(std::count(back.begin(), back.end(), uint8_t{0}), static_cast<long>(back.size()));
}

TEST(SparseMemory, TouchedBytesGrowByPages) {
  SparseMemory mem(1 << 20);
  const uint8_t one = 0x5A;
  mem.write(0, &one, 1);
  EXPECT_EQ(mem.touched_bytes(), 4096u);
  mem.write(4095, &one, 1); // same page
  EXPECT_EQ(mem.touched_bytes(), 4096u);
  mem.write(1 << 19, &one, 1);
  EXPECT_EQ(mem.touched_bytes(), 8192u);
  mem.write(4096, &one, 1);
  EXPECT_EQ(mem.touched_bytes(), 12288u);
  uint8_t b = 0;
  mem.read(1 << 19, &b, 1);
  EXPECT_EQ(b, 0x5A);
  mem.read((1 << 19) + 1, &b, 1); // rest of a touched page is zero
  EXPECT_EQ(b, 0);
}

TEST(SparseMemory, OverwriteKeepsNeighbours) {
  SparseMemory mem(1 << 16);
  const std::vector<uint8_t> a(16, 0x11);
  const std::vector<uint8_t> b(4, 0x22);
  mem.write(100, a.data(), a.size());
  mem.write(106, b.data(), b.size());
  std::vector<uint8_t> back(16);
  mem.read(100, back.data(), back.size());
  EXPECT_EQ(back, (std::vector<uint8_t>{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
                                        0x11, 0x11, 0x11, 0x11, 0x11, 0x11}));
}

TEST(SparseMemory, PagesSharingARecentEntryKeepTheirOwnBytes) {
  // Pages 0, 64 and 128 share an entry of the recent-page cache; page 64 is read while
  // untouched (remembered as absent) and written afterwards.
  SparseMemory mem(1 << 20);
  constexpr uint64_t kPage = 4096;
  uint8_t got = 0xff;
  mem.read(64 * kPage, &got, 1);
  EXPECT_EQ(got, 0);
  const uint8_t a = 0xa1, b = 0xb2;
  mem.write(0, &a, 1);
  mem.write(64 * kPage + 5, &b, 1);
  for (int round = 0; round < 2; ++round) {
    mem.read(0, &got, 1);
    EXPECT_EQ(got, 0xa1);
    mem.read(64 * kPage + 5, &got, 1);
    EXPECT_EQ(got, 0xb2);
    mem.read(128 * kPage + 5, &got, 1);
    EXPECT_EQ(got, 0);
  }
  EXPECT_EQ(mem.touched_bytes(), 2 * kPage);
}

TEST(SparseMemory, ContainsChecksBoundsWithoutOverflow) {
  const SparseMemory mem(1 << 20);
  EXPECT_TRUE(mem.contains(0, 1 << 20));
  EXPECT_FALSE(mem.contains(1, 1 << 20));
  EXPECT_TRUE(mem.contains((1 << 20) - 4, 4));
  EXPECT_FALSE(mem.contains((1 << 20) - 4, 5));
  EXPECT_TRUE(mem.contains(1 << 20, 0));
  EXPECT_FALSE(mem.contains((1 << 20) + 1, 0));
  EXPECT_FALSE(mem.contains(UINT64_MAX, 2));
  EXPECT_FALSE(mem.contains(16, UINT64_MAX));
}

} // namespace
} // namespace npu
