// A port booked out of order: bookings fill gaps left by earlier bookings for later times.
#include "models/common/busy_calendar.h"

#include <gtest/gtest.h>

namespace npu {
namespace {

TEST(BusyCalendar, InOrderBookingsQueueLikeOneFreeTime) {
  BusyCalendar c;
  EXPECT_EQ(c.reserve(100, 50, 0), 100u);
  EXPECT_EQ(c.reserve(120, 50, 0), 150u); // busy until 150
  EXPECT_EQ(c.reserve(300, 10, 0), 300u);
  EXPECT_EQ(c.busy_ps(), 110u);
}

TEST(BusyCalendar, AnEarlyRequestBookedLateTakesTheGapBeforeALaterBooking) {
  BusyCalendar c;
  EXPECT_EQ(c.reserve(1000, 50, 0), 1000u);
  // A single free time would start it at 1050.
  EXPECT_EQ(c.reserve(100, 50, 0), 100u);
  // Too long for the gap 150..1000 only when it would overlap: 900 + 100 > 1000.
  EXPECT_EQ(c.reserve(900, 150, 0), 1050u);
  EXPECT_EQ(c.reserve(150, 850, 0), 150u); // exactly fills 150..1000
  EXPECT_EQ(c.intervals(), 1u);            // 100..1200 joined
  EXPECT_EQ(c.reserve(120, 10, 0), 1200u);
}

TEST(BusyCalendar, ForgetsBookingsThatEndedAndStillQueuesBehindLiveOnes) {
  BusyCalendar c;
  for (uint64_t t = 0; t < 1000; ++t)
    c.reserve(t * 100, 10, t * 100);
  EXPECT_LE(c.intervals(), 130u);
  EXPECT_EQ(c.reserve(99'905, 10, 99'905), 99'910u); // behind the booking at 99'900
  EXPECT_EQ(c.busy_ps(), 10'010u);
}

TEST(BusyCalendar, ZeroDurationStartsWhenReady) {
  BusyCalendar c;
  c.reserve(0, 100, 0);
  EXPECT_EQ(c.reserve(50, 0, 0), 50u);
  EXPECT_EQ(c.intervals(), 1u);
}

} // namespace
} // namespace npu
