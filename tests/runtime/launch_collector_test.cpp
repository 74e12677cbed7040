// The launch collector: records built from what the driver and the scheduler publish,
// released in launch-id order once the host has learnt of each launch's completion.
#include "report/report.h"
#include "runtime/launch_collector.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu {
namespace {

LaunchCollector collector() {
  return LaunchCollector([](uint32_t k) { return "kernel" + std::to_string(k); },
                         [](uint32_t s) { return "stream" + std::to_string(s); });
}

// Launch `id` of kernel 1 on stream 2, called at `base` ps, submitted and dispatched.
void call_and_dispatch(LaunchCollector& c, uint64_t id, uint64_t base, uint32_t units) {
  c.called(id, LaunchCall{1, 2, units, true, -1}, base);
  c.stamped(id, Stamp::Packed, base + 100);
  c.stamped(id, Stamp::Submitted, base + 300);
  c.dispatched(id, LaunchDispatch{base + 1000, 900, units, 7, base + 200});
}

TEST(LaunchCollector, BuildsTheRecordFromTheBlocksEvents) {
  LaunchCollector c = collector();
  call_and_dispatch(c, 0, 0, 2);
  // Unit 3 finishes last: it is the critical unit, whose instants the launch takes.
  c.unit_done(0, UnitPart{3, 1500, 4000, 20, 100, 10, 64, 1000.4, 2000.6});
  c.unit_done(0, UnitPart{1, 1200, 5000, 30, 100, 10, 64, 1000.4, 2000.6});
  c.stamped(0, Stamp::Learnt, 6000);
  ASSERT_EQ(c.records().size(), 1u);
  const LaunchRecord& r = c.records()[0];
  EXPECT_EQ(r.kernel, "kernel1");
  EXPECT_EQ(r.stream, "stream2");
  EXPECT_EQ(r.at.all(), (std::array<uint64_t, kStamps>{0, 100, 300, 1000, 1200, 5000, 6000}));
  EXPECT_EQ(r.unit, 1);
  EXPECT_EQ(r.units, 2u);
  ASSERT_EQ(r.unit_spans.size(), 2u);
  EXPECT_EQ(r.unit_spans[0].unit, 1u); // in unit order
  EXPECT_EQ(r.unit_spans[1].finished_ps, 4000u);
  EXPECT_EQ(r.work.macs, 200u);
  EXPECT_EQ(r.work.mac_roof_ps, 1000u); // summed over the units, shared between them
  EXPECT_EQ(r.work.compute_roof_ps, 2001u);
  EXPECT_EQ(r.schedule_dispatch_ps, 700u); // no more than the whole schedule phase
  EXPECT_EQ(r.ifetch_stall_ps, 30u);
  EXPECT_EQ(r.released_by, 7);
  EXPECT_EQ(r.released_ps, 200u);
  EXPECT_EQ(r.total_ps(), r.prepare_ps() + r.submit_ps() + r.schedule_ps() + r.iload_ps() +
                              r.execute_ps() + r.complete_ps());
}

// Records leave in launch-id order, however they complete; the streamed CSV is the CSV of
// the kept records.
TEST(LaunchCollector, ReleasesRecordsInLaunchOrderToItsSink) {
  LaunchCollector c = collector();
  std::vector<uint64_t> order;
  std::vector<LaunchRecord> seen;
  c.set_sink(
      [&](const LaunchRecord& r) {
        order.push_back(r.launch_id);
        seen.push_back(r);
      },
      false);
  for (uint64_t id = 0; id < 3; ++id) {
    call_and_dispatch(c, id, 10000 * id, 1);
    c.unit_done(id, UnitPart{0, 10000 * id + 1100, 10000 * id + 2000});
  }
  EXPECT_THROW(c.called(5, LaunchCall{}, 0), std::logic_error); // ids count from 0
  c.stamped(2, Stamp::Learnt, 30000);
  EXPECT_TRUE(order.empty()); // 0 and 1 are still open
  c.stamped(0, Stamp::Learnt, 31000);
  EXPECT_EQ(order, (std::vector<uint64_t>{0}));
  EXPECT_THROW(c.stamped(0, Stamp::Learnt, 0), std::out_of_range); // released
  c.stamped(1, Stamp::Learnt, 32000);
  EXPECT_EQ(order, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_TRUE(c.records().empty());
  EXPECT_EQ(c.count(), 3u);
  EXPECT_EQ(seen[2].at[Stamp::Learnt], 30000u);
  std::ostringstream streamed, whole;
  write_launches_csv_header(streamed);
  for (const LaunchRecord& r : seen)
    write_launches_csv_row(streamed, r);
  write_launches_csv(whole, seen);
  EXPECT_EQ(streamed.str(), whole.str());
}

} // namespace
} // namespace npu
