#include "models/common/stats.h"

#include <gtest/gtest.h>

namespace npu {
namespace {

// A block-like owner: counters and a derived figure declared once, in report order.
struct Counters {
  StatRegistry stats{"block"};
  Stat reads{stats, "reads", "count", "read requests"};
  DerivedStat rate{stats, "read_rate", "1/s", "reads per second of simulated time",
                   [this](uint64_t simulated_ps) {
                     return simulated_ps ? reads.count() / (simulated_ps * 1e-12) : 0;
                   }};
  StatList later{stats}; ///< filled after construction, emitted here
  TimeStat busy{stats, "busy_ns", "time busy"};
};

TEST(Stats, EntriesFollowRegistrationOrder) {
  Counters c;
  Stat late{c.later, "late", "bytes", "registered after construction"};
  const StatGroup g = c.stats.collect(2'000'000);
  EXPECT_EQ(g.block, "block");
  ASSERT_EQ(g.stats.size(), 4u);
  EXPECT_EQ(g.stats[0].name, "reads");
  EXPECT_EQ(g.stats[1].name, "read_rate");
  EXPECT_EQ(g.stats[2].name, "late");
  EXPECT_EQ(g.stats[3].name, "busy_ns");
  EXPECT_EQ(g.stats[2].unit, "bytes");
  EXPECT_EQ(g.stats[2].description, "registered after construction");
}

TEST(Stats, CountersAddAndReport) {
  Counters c;
  ++c.reads;
  c.reads += 4;
  c.busy += 2500;
  EXPECT_EQ(c.reads.count(), 5u);
  EXPECT_EQ(c.busy.ps(), 2500u);
  const StatGroup g = c.stats.collect(1'000'000); // 1 us
  EXPECT_DOUBLE_EQ(g.stats[0].value, 5);
  EXPECT_EQ(g.stats[0].unit, "count");
  EXPECT_DOUBLE_EQ(g.stats[1].value, 5e6);
  EXPECT_DOUBLE_EQ(g.stats[2].value, 2.5); // picoseconds reported as nanoseconds
  EXPECT_EQ(g.stats[2].unit, "ns");
}

TEST(Stats, DerivedFigureSeesTheRunLength) {
  Counters c;
  c.reads += 3;
  EXPECT_DOUBLE_EQ(c.stats.collect(0).stats[1].value, 0);
  EXPECT_DOUBLE_EQ(c.stats.collect(3'000'000'000'000).stats[1].value, 1);
}

} // namespace
} // namespace npu
