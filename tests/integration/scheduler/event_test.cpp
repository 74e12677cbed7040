// Events across streams: a wait releases its stream exactly when the recorded work
// completed plus the command processor's documented costs; query, synchronise and
// elapsed time read the device timestamps in the completion records.
#include "runtime/runtime.h"
#include "tests/integration/isolated_run.h"
#include "tests/models/kernels.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

using test::cycles_kernel;

// Scheduler clock 1 GHz: one cycle is 1000 ps.
constexpr uint64_t kCyclePs = 1000;

std::string yaml_with(const std::string& completion) {
  return "name: t\ncompute: {units: 2}\nhost: {completion: " + completion +
         "}\nscheduler: {event_cycles: 7, dispatch_cycles: 40}\n";
}

// The consumer's descriptor is fetched long before the producer finishes; from the
// producer's t5 the record takes event_cycles, the wait event_cycles, then the
// consumer is dispatched in dispatch_cycles: t3 = t5 + (2 x 7 + 40) cycles, exactly.
TEST(Events, WaitReleasesTheStreamExactlyAfterTheRecordedKernel) {
  for (const std::string completion : {"interrupt", "polling"}) {
    const test::IsolatedRun r = test::run_isolated(yaml_with(completion), [&](Runtime& rt, auto&) {
      const Kernel producer = rt.load_kernel(cycles_kernel("producer", 200000));
      const Kernel consumer = rt.load_kernel(cycles_kernel("consumer", 1000));
      const Stream a = rt.stream_create("a"), b = rt.stream_create("b");
      const Event done = rt.event_create("done");
      rt.launch_async(producer, {}, a);
      rt.event_record(done, a);
      rt.stream_wait_event(b, done);
      rt.launch_async(consumer, {}, b);
    });
    ASSERT_EQ(r.error, "") << completion;
    ASSERT_EQ(r.launches.size(), 2u);
    const LaunchRecord& p = r.launches[0];
    const LaunchRecord& c = r.launches[1];
    EXPECT_LT(c.at[Stamp::Submitted], p.at[Stamp::Finished])
        << "the consumer must be submitted while the producer runs";
    EXPECT_EQ(c.at[Stamp::Assigned], p.at[Stamp::Finished] + (2 * 7 + 40) * kCyclePs) << completion;
    // No host sync was involved: the host was never blocked before the final sync.
    EXPECT_EQ(r.stat("scheduler", "event_commands"), 2);
  }
}

// Without the wait the consumer would start at once, on the other unit.
TEST(Events, WithoutTheWaitStreamsOverlap) {
  const test::IsolatedRun r = test::run_isolated(yaml_with("interrupt"), [&](Runtime& rt, auto&) {
    const Kernel producer = rt.load_kernel(cycles_kernel("producer", 200000));
    const Kernel consumer = rt.load_kernel(cycles_kernel("consumer", 1000));
    const Stream a = rt.stream_create("a"), b = rt.stream_create("b");
    rt.launch_async(producer, {}, a);
    rt.launch_async(consumer, {}, b);
  });
  ASSERT_EQ(r.error, "");
  EXPECT_LT(r.launches[1].at[Stamp::Finished], r.launches[0].at[Stamp::Finished]);
  EXPECT_NE(r.launches[1].unit, r.launches[0].unit);
}

// Two records on one stream around the second kernel: elapsed = the kernels' t5
// difference, exactly (each record completes event_cycles after its kernel).
// A query before the work is done says not complete; after event_synchronize, complete.
TEST(Events, QuerySynchronizeAndElapsedTime) {
  for (const std::string completion : {"interrupt", "polling"}) {
    const test::IsolatedRun r =
        test::run_isolated(yaml_with(completion), [&](Runtime& rt, std::vector<double>& out) {
          const Kernel k1 = rt.load_kernel(cycles_kernel("k1", 50000));
          const Kernel k2 = rt.load_kernel(cycles_kernel("k2", 120000));
          const Stream s = rt.stream_create("s");
          const Event start = rt.event_create("start"), end = rt.event_create("end");
          const Event unused = rt.event_create("unused");
          out.push_back(rt.event_query(unused) ? 1 : 0); // never recorded: complete
          rt.launch_async(k1, {}, s);
          rt.event_record(start, s);
          rt.launch_async(k2, {}, s);
          rt.event_record(end, s);
          out.push_back(rt.event_query(end) ? 1 : 0);
          const uint64_t before = rt.now_ps();
          rt.event_synchronize(end);
          out.push_back(static_cast<double>(rt.now_ps() - before));
          out.push_back(rt.event_query(end) ? 1 : 0);
          out.push_back(static_cast<double>(rt.report_elapsed("k2 time", start, end)));
        });
    ASSERT_EQ(r.error, "") << completion;
    ASSERT_EQ(r.values.size(), 5u);
    EXPECT_EQ(r.values[0], 1) << completion;
    EXPECT_EQ(r.values[1], 0) << completion;
    EXPECT_GT(r.values[2], 100000.0 * kCyclePs) << "the sync waited for k2";
    EXPECT_EQ(r.values[3], 1) << completion;
    ASSERT_EQ(r.launches.size(), 2u);
    EXPECT_EQ(r.values[4], static_cast<double>(r.launches[1].at[Stamp::Finished] -
                                               r.launches[0].at[Stamp::Finished]))
        << completion;
  }
}

TEST(Events, ElapsedTimeNeedsCompletedRecords) {
  const test::IsolatedRun r = test::run_isolated(yaml_with("interrupt"), [&](Runtime& rt, auto&) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100000));
    const Event a = rt.event_create("a"), b = rt.event_create("b");
    rt.event_record(a, Stream{0});
    rt.launch_async(k, {}, Stream{0});
    rt.event_record(b, Stream{0});
    rt.event_elapsed_ps(a, b); // b is still running
  });
  EXPECT_NE(r.error.find("event 'b' has not completed yet; synchronise on it first"),
            std::string::npos)
      << r.error;
  const test::IsolatedRun never =
      test::run_isolated(yaml_with("interrupt"), [&](Runtime& rt, auto&) {
        const Event a = rt.event_create("a"), b = rt.event_create("b");
        rt.event_record(a, Stream{0});
        rt.event_synchronize(a);
        rt.event_elapsed_ps(a, b);
      });
  EXPECT_NE(never.error.find("event 'b' was never recorded"), std::string::npos) << never.error;
}

} // namespace
} // namespace npu
