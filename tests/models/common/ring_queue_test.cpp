// The completion FIFO of a DRAM channel: first in, first out across wrap-around and growth.
#include "models/common/ring_queue.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

namespace npu {
namespace {

TEST(RingQueue, KeepsOrderAcrossWrapAndGrowth) {
  RingQueue<int> q;
  EXPECT_TRUE(q.empty());
  // Fill to 10, drain 8, so the head sits mid-buffer, then grow past the capacity of 16
  // with the live elements wrapped around the end.
  for (int i = 0; i < 10; ++i)
    q.push_back(i);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(q.front(), i);
    q.pop_front();
  }
  for (int i = 10; i < 40; ++i)
    q.push_back(i);
  EXPECT_EQ(q.size(), 32u);
  for (int i = 8; i < 40; ++i) {
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.front(), i);
    q.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

// Against std::deque under random pushes and pops.
TEST(RingQueue, MatchesStdDeque) {
  RingQueue<uint64_t> q;
  std::deque<uint64_t> ref;
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < 100000; ++i) {
    if (ref.empty() || rng() % 3 != 0) {
      q.push_back(i);
      ref.push_back(i);
    } else {
      ASSERT_EQ(q.front(), ref.front());
      q.pop_front();
      ref.pop_front();
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(q[ref.size() - 1], ref.back());
    }
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.front(), ref.front());
    q.pop_front();
    ref.pop_front();
  }
  EXPECT_TRUE(q.empty());
}

// A slot handed out again after a pop still holds what was left in it (its storage can
// be reused), and indexing counts from the front across the wrap.
TEST(RingQueue, PushSlotReusesPoppedSlots) {
  RingQueue<std::vector<int>> q;
  for (int i = 0; i < 16; ++i)
    q.push_slot().assign(1, i);
  q.pop_front();
  std::vector<int>& again = q.push_slot();
  EXPECT_EQ(again, std::vector<int>{0}); // the popped front's slot, contents intact
  again.assign(1, 16);
  for (size_t i = 0; i < q.size(); ++i)
    EXPECT_EQ(q[i], std::vector<int>{static_cast<int>(i) + 1});
  EXPECT_EQ(q.front(), std::vector<int>{1});
}

} // namespace
} // namespace npu
