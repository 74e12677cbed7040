// The flat map of in-flight transactions: lookups survive growth and deletion.
#include "models/common/pointer_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

namespace npu {
namespace {

TEST(PointerMap, PutFindTake) {
  int a = 0, b = 0;
  PointerMap<int, int> m;
  EXPECT_EQ(m.find(&a), nullptr);
  m.put(&a, 1);
  m.put(&b, 2);
  m.put(&a, 3); // overwrites
  EXPECT_EQ(m.size(), 2u);
  ASSERT_NE(m.find(&a), nullptr);
  EXPECT_EQ(*m.find(&a), 3);
  EXPECT_EQ(m.take(&b), 2);
  EXPECT_EQ(m.find(&b), nullptr);
  EXPECT_EQ(m.size(), 1u);
}

// Against std::map under random inserts and erases: growth and backward-shift deletion
// must keep every remaining key reachable.
TEST(PointerMap, MatchesStdMap) {
  std::vector<int> keys(3000);
  PointerMap<int, size_t> m;
  std::map<const int*, size_t> ref;
  std::mt19937 rng(7);
  for (int step = 0; step < 200000; ++step) {
    const size_t k = rng() % keys.size();
    const int* key = &keys[k];
    if (ref.count(key) && rng() % 2) {
      EXPECT_EQ(m.take(key), ref[key]);
      ref.erase(key);
    } else {
      m.put(key, static_cast<size_t>(step));
      ref[key] = static_cast<size_t>(step);
    }
  }
  EXPECT_EQ(m.size(), ref.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto it = ref.find(&keys[k]);
    size_t* v = m.find(&keys[k]);
    if (it == ref.end()) {
      EXPECT_EQ(v, nullptr);
    } else {
      ASSERT_NE(v, nullptr);
      EXPECT_EQ(*v, it->second);
    }
  }
}

} // namespace
} // namespace npu
