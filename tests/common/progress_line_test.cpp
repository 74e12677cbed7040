// The progress line's text: done of total, simulated time, wall time, time left.
#include "common/progress_line.h"

#include <gtest/gtest.h>

namespace npu {
namespace {

TEST(ProgressLine, SaysDoneOfTotalAndTheTimeLeft) {
  EXPECT_EQ(ProgressLine::text("launches", 250, 1000, 1'500'000'000, 10.0),
            "npusim: 250/1000 launches (25.0%), simulated 1.500 ms, wall 0:10, about 0:30 left");
  EXPECT_EQ(ProgressLine::text("requests", 1 << 20, 4294967296ull, 2'000'000'000'000ull, 3725.0),
            "npusim: 1048576/4294967296 requests (0.0%), simulated 2.000 s, wall 1:02:05, "
            "about 4237:11:15 left");
}

TEST(ProgressLine, WithoutATotalThereIsNoEstimate) {
  EXPECT_EQ(ProgressLine::text("launches", 7, 0, 12'345, 1.2),
            "npusim: 7 launches, simulated 12.345 ns, wall 0:01");
  EXPECT_EQ(ProgressLine::text("launches", 0, 10, 0, 1.0),
            "npusim: 0/10 launches (0.0%), simulated 0 ps, wall 0:01");
}

TEST(ProgressLine, IsOffWhenNotWanted) {
  const ProgressLine line("launches", false);
  EXPECT_FALSE(line.enabled());
  EXPECT_FALSE(line.due());
}

} // namespace
} // namespace npu
