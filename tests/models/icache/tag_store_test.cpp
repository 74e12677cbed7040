// Set-associative tag array with true LRU.
#include "models/icache/tag_store.h"

#include <gtest/gtest.h>

#include <random>

namespace npu {
namespace {

// 256 B, 64 B lines, 2 ways: 2 sets. Lines 0, 2, 4 (addresses 0, 128, 256) share set 0.
constexpr uint64_t kA = 0, kB = 128, kC = 256, kOtherSet = 64;

TEST(TagStore, Geometry) {
  const TagStore t(32 * 1024, 64, 4);
  EXPECT_EQ(t.sets(), 128u);
  EXPECT_EQ(t.ways(), 4u);
  EXPECT_EQ(t.line_bytes(), 64u);
  EXPECT_EQ(TagStore(256, 64, 2).sets(), 2u);
}

TEST(TagStore, MissThenHitOnWholeLine) {
  TagStore t(256, 64, 2);
  EXPECT_FALSE(t.lookup(kA));
  EXPECT_FALSE(t.insert(kA));
  EXPECT_TRUE(t.lookup(kA));
  EXPECT_TRUE(t.lookup(63));  // same line
  EXPECT_FALSE(t.lookup(64)); // next line, other set
  EXPECT_TRUE(t.contains(10));
  EXPECT_FALSE(t.contains(kB));
}

TEST(TagStore, FillingEmptyWaysEvictsNothing) {
  TagStore t(256, 64, 2);
  EXPECT_FALSE(t.insert(kA));
  EXPECT_FALSE(t.insert(kB));
  EXPECT_FALSE(t.insert(kOtherSet));
  EXPECT_FALSE(t.insert(kOtherSet + 128));
  EXPECT_TRUE(t.contains(kA));
  EXPECT_TRUE(t.contains(kB));
  EXPECT_TRUE(t.contains(kOtherSet));
}

TEST(TagStore, EvictsLeastRecentlyUsed) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kB);
  EXPECT_TRUE(t.insert(kC)); // kA is oldest
  EXPECT_FALSE(t.contains(kA));
  EXPECT_TRUE(t.contains(kB));
  EXPECT_TRUE(t.contains(kC));
}

TEST(TagStore, LookupHitRefreshesAge) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kB);
  EXPECT_TRUE(t.lookup(kA)); // kB is now the LRU way
  EXPECT_TRUE(t.insert(kC));
  EXPECT_TRUE(t.contains(kA));
  EXPECT_FALSE(t.contains(kB));
  EXPECT_TRUE(t.contains(kC));
}

TEST(TagStore, ContainsDoesNotRefreshAge) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kB);
  EXPECT_TRUE(t.contains(kA)); // must not make kA recent
  EXPECT_TRUE(t.insert(kC));
  EXPECT_FALSE(t.contains(kA));
  EXPECT_TRUE(t.contains(kB));
}

TEST(TagStore, ReinsertRefreshesWithoutEviction) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kB);
  EXPECT_FALSE(t.insert(kA + 8)); // already present: no eviction, now most recent
  EXPECT_TRUE(t.insert(kC));
  EXPECT_TRUE(t.contains(kA));
  EXPECT_FALSE(t.contains(kB));
}

TEST(TagStore, SetsAreIndependent) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kB);
  EXPECT_FALSE(t.insert(kOtherSet));
  EXPECT_FALSE(t.insert(kOtherSet + 128));
  EXPECT_TRUE(t.insert(kOtherSet + 256)); // evicts within set 1 only
  EXPECT_TRUE(t.contains(kA));
  EXPECT_TRUE(t.contains(kB));
  EXPECT_FALSE(t.contains(kOtherSet));
}

TEST(TagStore, LruOrderAcrossFourWays) {
  TagStore t(4 * 64, 64, 4); // one set
  for (uint64_t line = 0; line < 4; ++line)
    EXPECT_FALSE(t.insert(line * 64));
  t.lookup(0);
  t.lookup(64);
  // Age order now: 2 (oldest), 3, 0, 1.
  EXPECT_TRUE(t.insert(4 * 64));
  EXPECT_FALSE(t.contains(2 * 64));
  EXPECT_TRUE(t.insert(5 * 64));
  EXPECT_FALSE(t.contains(3 * 64));
  EXPECT_TRUE(t.insert(6 * 64));
  EXPECT_FALSE(t.contains(0));
  EXPECT_TRUE(t.contains(64));
}

TEST(TagStore, ClearEmptiesEverything) {
  TagStore t(256, 64, 2);
  t.insert(kA);
  t.insert(kOtherSet);
  t.clear();
  EXPECT_FALSE(t.contains(kA));
  EXPECT_FALSE(t.lookup(kOtherSet));
  EXPECT_FALSE(t.insert(kA));
  EXPECT_FALSE(t.insert(kB)); // the set is empty again, so no eviction
}

TEST(TagStore, HighAddressesMapByLineNumber) {
  TagStore t(256, 64, 2);
  const uint64_t high = (uint64_t{1} << 40) + 128; // line 2^34 + 2: set 0
  EXPECT_FALSE(t.insert(high));
  EXPECT_TRUE(t.contains(high + 63));
  EXPECT_FALSE(t.contains(128)); // same set, different tag
}

// touch_all() is lookup() on each line when all are present, memoised or not: the LRU
// victim afterwards is the same; with a line missing it changes nothing.
TEST(TagStore, TouchAllRefreshesLikeLookupsAndChangesNothingOnAMiss) {
  TagStore a(256, 64, 2), b(256, 64, 2);
  for (TagStore* t : {&a, &b}) {
    t->insert(kA); // set 0: A then B, so A is the LRU way
    t->insert(kB);
  }
  // Lines 2..4 (B, a line never inserted, kC): one is missing, so nothing changes.
  EXPECT_FALSE(a.touch_all(kB, 3));
  EXPECT_TRUE(a.insert(kC)); // evicts A, still the LRU way
  EXPECT_FALSE(a.contains(kA));
  EXPECT_TRUE(a.contains(kB));

  // Lines 0 and 1 (A and kOtherSet) present: touching them makes B the LRU of set 0,
  // the first time (searched) and the second (memoised) alike.
  b.insert(kOtherSet);
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(b.touch_all(kA, 2));
    b.lookup(kB); // B most recent again
    EXPECT_TRUE(b.touch_all(kA, 2));
  }
  EXPECT_TRUE(b.insert(kC)); // evicts B, the LRU way after the last touch
  EXPECT_FALSE(b.contains(kB));
  EXPECT_TRUE(b.contains(kA));
  // The insert invalidated the memo: A's range is found again, not replayed.
  EXPECT_TRUE(b.touch_all(kA, 2));
  EXPECT_FALSE(b.touch_all(kB, 1));
}

// Random relaunches (a range touched, or its missing lines inserted as the cache does),
// lookups, inserts and clears against a store that looks every line up instead of
// touching ranges: the same answers and the same lines resident throughout, so the
// memoised touches (whose ages are written late) keep the LRU order exact.
TEST(TagStore, RepeatedTouchesKeepTheOrderOfLookups) {
  TagStore fast(1024, 64, 4), ref(1024, 64, 4); // 4 sets
  std::mt19937 rng(5);
  const uint64_t starts[] = {0, 64 * 3, 64 * 9, 64 * 14};
  for (int step = 0; step < 50000; ++step) {
    const uint32_t op = rng() % 20;
    const uint64_t addr = 64 * (rng() % 24);
    if (op < 16) {
      const uint32_t kernel = rng() % 4; // each kernel's binary: a fixed range
      const uint64_t first = starts[kernel];
      const uint64_t lines = 2 + kernel;
      bool all = true;
      for (uint64_t i = 0; i < lines; ++i)
        all = all && ref.contains(first + 64 * i);
      for (uint64_t i = 0; all && i < lines; ++i)
        ref.lookup(first + 64 * i);
      ASSERT_EQ(fast.touch_all(first, lines), all) << step;
      for (uint64_t i = 0; !all && i < lines; ++i)
        ASSERT_EQ(fast.insert(first + 64 * i), ref.insert(first + 64 * i)) << step;
    } else if (op < 18) {
      ASSERT_EQ(fast.lookup(addr), ref.lookup(addr)) << step;
    } else if (op < 19 || step % 97 != 0) {
      ASSERT_EQ(fast.insert(addr), ref.insert(addr)) << step;
    } else {
      fast.clear();
      ref.clear();
    }
    for (uint64_t a = 0; a < 64 * 24; a += 64)
      ASSERT_EQ(fast.contains(a), ref.contains(a)) << step << " " << a;
  }
}

} // namespace
} // namespace npu
