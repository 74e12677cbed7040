// Whole-platform launch semantics through the runtime API: sync and async launches,
// stream order, concurrency across hardware queues, events, phase accounting, deadlock.
// Simulation sets the 1 ps time resolution itself; calling sc_set_time_resolution here as
// well would be a SystemC error ("already specified"), so these tests do not.
#include "common/error.h"
#include "platform/platform.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/kernels.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npu {
namespace {

constexpr const char* kTwoUnits = "name: t\ncompute: {units: 2}\n";
constexpr const char* kTwoUnitsPolling =
    "name: t\ncompute: {units: 2}\nhost: {completion: polling}\n";

using test::cycles_kernel;

// Timestamps are set, ordered, and the five phases add up to t6 - t0 exactly.
void expect_consistent(const LaunchRecord& r) {
  SCOPED_TRACE("launch " + std::to_string(r.launch_id) + " (" + r.kernel + ")");
  for (size_t i = 1; i < r.at.size(); ++i)
    EXPECT_LE(r.at.nth(i - 1), r.at.nth(i)) << "t" << i - 1 << " > t" << i;
  EXPECT_GT(r.at[Stamp::Learnt], 0u) << "t6 never set";
  EXPECT_GT(r.at[Stamp::Finished], r.at[Stamp::Resident]) << "the kernel took no time";
  const uint64_t sum = r.prepare_ps() + r.submit_ps() + r.schedule_ps() + r.iload_ps() +
                       r.execute_ps() + r.complete_ps();
  EXPECT_EQ(sum, r.at[Stamp::Learnt] - r.at[Stamp::Called]);
  EXPECT_EQ(sum, r.total_ps());
  EXPECT_LE(r.schedule_dispatch_ps, r.schedule_ps());
  EXPECT_LE(r.ifetch_stall_ps, r.execute_ps());
  EXPECT_GE(r.unit, 0);
}

bool intervals_overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1) {
  return std::max(a0, b0) < std::min(a1, b1);
}

void sync_launch_returns_after_completion(const char* yaml) {
  const PlatformConfig config = test::config_from_yaml(yaml);
  Simulation sim(config);
  std::vector<uint64_t> returned_ps;
  const uint64_t cycles = 50000; // 50 us at 1 GHz
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", cycles));
    rt.launch(k);
    returned_ps.push_back(rt.now_ps());
    rt.launch(k, {}, rt.stream_create("other"));
    returned_ps.push_back(rt.now_ps());
  });
  ASSERT_EQ(report.launches.size(), 2u);
  ASSERT_EQ(returned_ps.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const LaunchRecord& r = report.launches[i];
    expect_consistent(r);
    EXPECT_FALSE(r.async);
    EXPECT_GE(returned_ps[i], r.at[Stamp::Learnt]) << "sync launch " << i << " returned before t6";
    EXPECT_GE(returned_ps[i], r.at[Stamp::Finished])
        << "sync launch " << i << " returned before t5";
    EXPECT_GE(r.execute_ps(), cycles * 1000);
  }
  // The second launch began only after the first returned.
  EXPECT_GE(report.launches[1].at[Stamp::Called], returned_ps[0]);
  if (config.host.completion == CompletionMode::Interrupt) {
    EXPECT_GE(report.launches[0].complete_ps(), config.host.interrupt_latency_ps);
  }
}

TEST(Launch, SimulationRunsAtOnePicosecondResolution) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  EXPECT_EQ(sc_core::sc_get_time_resolution(), sc_core::sc_time(1, sc_core::SC_PS));
  EXPECT_EQ(ps(1234567), sc_core::sc_time(1234567, sc_core::SC_PS));
}

TEST(Launch, SyncLaunchReturnsAfterTheKernelCompletedWithInterrupts) {
  sync_launch_returns_after_completion(kTwoUnits);
}

TEST(Launch, SyncLaunchReturnsAfterTheKernelCompletedWithPolling) {
  sync_launch_returns_after_completion(kTwoUnitsPolling);
}

TEST(Launch, AsyncLaunchesOnOneStreamRunInOrder) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  std::vector<uint64_t> returned_ps;
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel long_k = rt.load_kernel(cycles_kernel("long", 40000));
    const Kernel short_k = rt.load_kernel(cycles_kernel("short", 1000));
    const Stream s = rt.stream_create("s");
    for (int i = 0; i < 4; ++i) {
      rt.launch_async(i % 2 ? short_k : long_k, {}, s);
      returned_ps.push_back(rt.now_ps());
    }
    rt.stream_synchronize(s);
  });
  ASSERT_EQ(report.launches.size(), 4u);
  for (size_t i = 0; i < report.launches.size(); ++i) {
    const LaunchRecord& r = report.launches[i];
    expect_consistent(r);
    EXPECT_TRUE(r.async);
    // An async call returns when the doorbell was accepted, long before the kernel ends.
    EXPECT_EQ(returned_ps[i], r.at[Stamp::Submitted]) << "launch " << i;
    EXPECT_LT(returned_ps[i], r.at[Stamp::Finished]) << "launch " << i;
    if (i > 0) {
      EXPECT_GE(r.at[Stamp::Assigned], report.launches[i - 1].at[Stamp::Finished])
          << "launch " << i << " started before launch " << i - 1 << " finished";
    }
  }
  // Two units were free: only stream order kept the short kernels waiting.
  EXPECT_LT(report.launches[1].at[Stamp::Submitted], report.launches[0].at[Stamp::Finished]);
}

TEST(Launch, TwoStreamsOnDifferentQueuesOverlap) {
  const PlatformConfig config = test::config_from_yaml(kTwoUnits);
  ASSERT_GE(config.scheduler.hw_queues, 3u);
  Simulation sim(config);
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100000));
    const Stream a = rt.stream_create("a"); // stream 1 -> queue 1
    const Stream b = rt.stream_create("b"); // stream 2 -> queue 2
    rt.launch_async(k, {}, a);
    rt.launch_async(k, {}, b);
    rt.device_synchronize();
  });
  ASSERT_EQ(report.launches.size(), 2u);
  const LaunchRecord& a = report.launches[0];
  const LaunchRecord& b = report.launches[1];
  expect_consistent(a);
  expect_consistent(b);
  EXPECT_EQ(a.stream, "a");
  EXPECT_EQ(b.stream, "b");
  EXPECT_TRUE(intervals_overlap(a.at[Stamp::Assigned], a.at[Stamp::Finished], b.at[Stamp::Assigned],
                                b.at[Stamp::Finished]))
      << "a [" << a.at[Stamp::Assigned] << ", " << a.at[Stamp::Finished] << "], b ["
      << b.at[Stamp::Assigned] << ", " << b.at[Stamp::Finished] << "]";
  EXPECT_NE(a.unit, b.unit);
}

TEST(Launch, TwoStreamsSerialiseWithOneUnit) {
  Simulation sim(test::config_from_yaml("name: t\ncompute: {units: 1}\n"));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100000));
    rt.launch_async(k, {}, rt.stream_create("a"));
    rt.launch_async(k, {}, rt.stream_create("b"));
    rt.device_synchronize();
  });
  ASSERT_EQ(report.launches.size(), 2u);
  const LaunchRecord& a = report.launches[0];
  const LaunchRecord& b = report.launches[1];
  expect_consistent(a);
  expect_consistent(b);
  EXPECT_FALSE(intervals_overlap(a.at[Stamp::Assigned], a.at[Stamp::Finished],
                                 b.at[Stamp::Assigned], b.at[Stamp::Finished]));
}

TEST(Launch, EveryLaunchsPhasesSumToItsTotal) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel small = rt.load_kernel(cycles_kernel("small", 2000));
    const Kernel big = rt.load_kernel(cycles_kernel("big", 30000, 64 << 10)); // > icache
    KernelDesc mm;
    mm.name = "matmul";
    auto& shape = mm.op.shape.emplace<MatmulOp>();
    shape.m = shape.n = shape.k = 128;
    mm.units = 2;
    const Kernel wide = rt.load_kernel(mm);
    const Stream s1 = rt.stream_create("s1");
    const Stream s2 = rt.stream_create("s2");
    const Buffer in = rt.malloc(128 * 128);
    const Buffer out = rt.malloc(128 * 128);
    rt.launch(small);
    rt.launch_async(big, {}, s1);
    rt.launch_async(small, {}, s2);
    rt.launch_async(wide, {in, in, out}, s2);
    rt.launch(small, {}, s1);
    rt.host_work(5000000);
    rt.launch_async(big, {}, s1);
    rt.device_synchronize();
    rt.free(in);
    rt.free(out);
  });
  ASSERT_EQ(report.launches.size(), 6u);
  for (const LaunchRecord& r : report.launches)
    expect_consistent(r);
  EXPECT_EQ(report.launches[3].units, 2u);
  for (const LaunchRecord& r : report.launches)
    EXPECT_LE(r.at[Stamp::Learnt], report.simulated_ps);
}

void event_orders_streams(const char* yaml) {
  Simulation sim(test::config_from_yaml(yaml));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel long_k = rt.load_kernel(cycles_kernel("long", 200000)); // 200 us
    const Kernel short_k = rt.load_kernel(cycles_kernel("short", 1000));
    const Stream producer = rt.stream_create("producer");
    const Stream consumer = rt.stream_create("consumer");
    const Event done = rt.event_create("done");
    rt.launch_async(long_k, {}, producer);
    rt.event_record(done, producer);
    rt.stream_wait_event(consumer, done);
    rt.launch_async(short_k, {}, consumer);
    rt.stream_synchronize(consumer);
  });
  ASSERT_EQ(report.launches.size(), 2u);
  const LaunchRecord& producer = report.launches[0];
  const LaunchRecord& consumer = report.launches[1];
  expect_consistent(producer);
  expect_consistent(consumer);
  // The consumer was submitted while the producer ran, on a free unit, yet waited.
  EXPECT_LT(consumer.at[Stamp::Submitted], producer.at[Stamp::Finished]);
  EXPECT_GE(consumer.at[Stamp::Assigned], producer.at[Stamp::Finished])
      << "consumer started at " << consumer.at[Stamp::Assigned] << " ps, producer finished at "
      << producer.at[Stamp::Finished] << " ps";
}

TEST(Launch, StreamWaitingOnAnEventStartsAfterTheRecordedKernel) {
  event_orders_streams(kTwoUnits);
}

TEST(Launch, StreamWaitingOnAnEventStartsAfterTheRecordedKernelWithPolling) {
  event_orders_streams(kTwoUnitsPolling);
}

TEST(Launch, WaitOnAnEventThatIsRecordedLaterWaitsForThatRecord) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel long_k = rt.load_kernel(cycles_kernel("long", 100000));
    const Kernel short_k = rt.load_kernel(cycles_kernel("short", 1000));
    const Stream producer = rt.stream_create("producer");
    const Stream consumer = rt.stream_create("consumer");
    const Event e = rt.event_create("e");
    // The wait is submitted before the record: it refers to the first record.
    rt.stream_wait_event(consumer, e);
    rt.launch_async(short_k, {}, consumer);
    rt.launch_async(long_k, {}, producer);
    rt.event_record(e, producer);
    rt.device_synchronize();
  });
  ASSERT_EQ(report.launches.size(), 2u);
  const LaunchRecord& consumer = report.launches[0];
  const LaunchRecord& producer = report.launches[1];
  EXPECT_GE(consumer.at[Stamp::Assigned], producer.at[Stamp::Finished]);
}

// The wait refers to the latest record issued before it: the second one, after `b`.
TEST(Launch, WaitRefersToTheLatestRecordOfAnEvent) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel a = rt.load_kernel(cycles_kernel("a", 1000));
    const Kernel b = rt.load_kernel(cycles_kernel("b", 100000));
    const Kernel c = rt.load_kernel(cycles_kernel("c", 1000));
    const Stream s1 = rt.stream_create("s1");
    const Stream s2 = rt.stream_create("s2");
    const Event e = rt.event_create("e");
    rt.launch_async(a, {}, s1);
    rt.event_record(e, s1);
    rt.launch_async(b, {}, s1);
    rt.event_record(e, s1);
    rt.stream_wait_event(s2, e);
    rt.launch_async(c, {}, s2);
    rt.device_synchronize();
  });
  ASSERT_EQ(report.launches.size(), 3u);
  const LaunchRecord& b = report.launches[1];
  const LaunchRecord& c = report.launches[2];
  EXPECT_LT(c.at[Stamp::Submitted], b.at[Stamp::Finished]);
  EXPECT_GE(c.at[Stamp::Assigned], b.at[Stamp::Finished]) << "c waited for the first record only";
}

// More async launches than ring entries: the driver waits for ring space, and
// every launch still runs, in order.
void ring_full(const char* yaml) {
  Simulation sim(test::config_from_yaml(yaml));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 10000));
    const Stream s = rt.stream_create("s");
    for (int i = 0; i < 6; ++i)
      rt.launch_async(k, {}, s);
    rt.stream_synchronize(s);
  });
  ASSERT_EQ(report.launches.size(), 6u);
  for (size_t i = 0; i < report.launches.size(); ++i) {
    expect_consistent(report.launches[i]);
    if (i > 0) {
      EXPECT_GE(report.launches[i].at[Stamp::Assigned], report.launches[i - 1].at[Stamp::Finished]);
    }
    // At most 2 commands of the queue are outstanding: launch i is submitted only
    // after the host learnt that launch i - 2 completed.
    if (i >= 2) {
      EXPECT_GE(report.launches[i].at[Stamp::Submitted], report.launches[i - 2].at[Stamp::Learnt]);
    }
  }
}

TEST(Launch, FullCommandRingMakesTheDriverWaitWithInterrupts) {
  ring_full("name: t\ncompute: {units: 2}\nscheduler: {ring_entries: 2}\n");
}

TEST(Launch, FullCommandRingMakesTheDriverWaitWithPolling) {
  ring_full("name: t\ncompute: {units: 2}\nscheduler: {ring_entries: 2}\nhost: {completion: "
            "polling}\n");
}

// A kernel that can never be dispatched is an input error, not a hang.
void expect_rejected_units(uint32_t units) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  try {
    sim.run([&](Runtime& rt) {
      KernelDesc desc = cycles_kernel("wide", 1000);
      desc.units = units;
      rt.launch(rt.load_kernel(desc));
    });
    FAIL() << "a kernel on " << units << " units of 2 ran";
  } catch (const SimulationError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("unit"), std::string::npos) << msg;
    EXPECT_NE(msg.find("wide"), std::string::npos) << msg;
  }
}

TEST(Launch, KernelNeedingMoreUnitsThanThePlatformHasIsRejected) {
  expect_rejected_units(3);
}

TEST(Launch, KernelOnZeroUnitsIsRejected) {
  expect_rejected_units(0);
}

// SPEC: "a kernel larger than the cache keeps missing while it runs, and that extra
// stall is counted in execute and reported separately".
TEST(Launch, KernelLargerThanTheICacheReportsFetchStallsInExecute) {
  Simulation sim(test::config_from_yaml(kTwoUnits));
  const RunReport report = sim.run([&](Runtime& rt) {
    rt.launch(rt.load_kernel(cycles_kernel("big", 30000, 64 << 10))); // 2x the icache
  });
  ASSERT_EQ(report.launches.size(), 1u);
  EXPECT_GT(report.launches[0].ifetch_stall_ps, 0u);
}

// The brief for tests (and any embedding program) sets 1 ps itself before building
// blocks; Simulation then sets it again.
TEST(Launch, SimulationAcceptsAResolutionAlreadySetToOnePicosecond) {
  test::use_ps_resolution();
  Simulation sim(test::config_from_yaml(kTwoUnits));
  const RunReport report = sim.run([](Runtime&) {});
  EXPECT_TRUE(report.launches.empty());
}

/// Runs `program`, which must deadlock, and returns the report's message.
std::string deadlock_message(const char* yaml, const std::function<void(Runtime&)>& program) {
  Simulation sim(test::config_from_yaml(yaml));
  bool returned = false;
  try {
    sim.run([&](Runtime& rt) {
      program(rt);
      returned = true;
    });
    ADD_FAILURE() << "sim.run returned although the host waits forever";
  } catch (const SimulationError& e) {
    EXPECT_FALSE(returned);
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// (a) A wait on an event that is never recorded: the stream never moves.
void expect_never_recorded_deadlock(const char* yaml) {
  const std::string msg = deadlock_message(yaml, [](Runtime& rt) {
    const Stream s = rt.stream_create("stuck");
    const Event never = rt.event_create("never");
    rt.stream_wait_event(s, never);
    rt.stream_synchronize(s);
  });
  EXPECT_TRUE(has(msg, "deadlock at ")) << msg;
  EXPECT_TRUE(has(msg, "the host waits for sync of stream 'stuck', but no block can make "
                       "progress"))
      << msg;
  EXPECT_TRUE(has(msg, "stream 'stuck' has 1 unfinished command(s) on hardware queue 1 and waits "
                       "for event 'never', which the host has not recorded yet"))
      << msg;
  EXPECT_TRUE(has(msg, "hardware queue 1: 1 command(s) pending, head waits for event 'never' "
                       "record #1 (recorded 0 times)"))
      << msg;
  EXPECT_FALSE(has(msg, "stream 'default'")) << "the default stream has no work: " << msg;
}

TEST(Launch, WaitOnAnEventNeverRecordedIsADeadlockWithInterrupts) {
  expect_never_recorded_deadlock(kTwoUnits);
}

TEST(Launch, WaitOnAnEventNeverRecordedIsADeadlockWithPolling) {
  expect_never_recorded_deadlock(kTwoUnitsPolling);
}

// (b) The host synchronises a stream whose kernel waits for an event the host records
// only after that sync.
void expect_host_cycle_deadlock(const char* yaml) {
  const std::string msg = deadlock_message(yaml, [](Runtime& rt) {
    const Kernel k = rt.load_kernel(cycles_kernel("k", 100));
    const Stream s = rt.stream_create("consumer");
    const Event ready = rt.event_create("ready");
    rt.stream_wait_event(s, ready);
    rt.launch_async(k, {}, s);
    rt.stream_synchronize(s);
    rt.event_record(ready, Stream{0});
  });
  EXPECT_TRUE(has(msg, "the host waits for sync of stream 'consumer'")) << msg;
  EXPECT_TRUE(has(msg, "stream 'consumer' has 2 unfinished command(s) on hardware queue 1 and "
                       "waits for event 'ready', which the host has not recorded yet"))
      << msg;
}

TEST(Launch, SyncOnAStreamWaitingForTheHostIsADeadlockWithInterrupts) {
  expect_host_cycle_deadlock(kTwoUnits);
}

TEST(Launch, SyncOnAStreamWaitingForTheHostIsADeadlockWithPolling) {
  expect_host_cycle_deadlock(kTwoUnitsPolling);
}

// Every blocked stream is named with its own reason: a wait on a record that sits behind
// another stuck stream, and a stream that shares a hardware queue with a stuck one.
TEST(Launch, DeadlockReportNamesEveryBlockedStreamAndWhatItWaitsFor) {
  // Two hardware queues: streams a (1) and c (3) share queue 1, b (2) is on queue 0.
  const std::string msg = deadlock_message(
      "name: t\ncompute: {units: 2}\nscheduler: {hw_queues: 2}\n", [](Runtime& rt) {
        const Kernel k = rt.load_kernel(cycles_kernel("k", 100));
        const Stream a = rt.stream_create("a");
        const Stream b = rt.stream_create("b");
        const Stream c = rt.stream_create("c");
        rt.stream_wait_event(a, rt.event_create("never"));
        const Event handoff = rt.event_create("handoff");
        rt.event_record(handoff, a);
        rt.stream_wait_event(b, handoff);
        rt.launch_async(k, {}, c);
        rt.device_synchronize();
      });
  EXPECT_TRUE(has(msg, "the host waits for device synchronize")) << msg;
  EXPECT_TRUE(has(msg, "stream 'a' has 2 unfinished command(s) on hardware queue 1 and waits for "
                       "event 'never', which the host has not recorded yet"))
      << msg;
  EXPECT_TRUE(has(msg, "stream 'b' has 1 unfinished command(s) on hardware queue 0 and waits for "
                       "event 'handoff', recorded on stream 'a' behind that stream's unfinished "
                       "work"))
      << msg;
  EXPECT_TRUE(has(msg, "stream 'c' has 1 unfinished command(s) on hardware queue 1 and is queued "
                       "behind stream 'a' on hardware queue 1"))
      << msg;
}

TEST(Launch, DeadlockBehindARunningKernelIsStillDetectedWithPolling) {
  Simulation sim(test::config_from_yaml(kTwoUnitsPolling));
  try {
    sim.run([&](Runtime& rt) {
      const Kernel k = rt.load_kernel(cycles_kernel("k", 20000));
      const Stream s = rt.stream_create("stuck");
      rt.launch_async(k, {}, rt.stream_create("busy"));
      rt.stream_wait_event(s, rt.event_create("never"));
      rt.stream_synchronize(s);
    });
    FAIL() << "sim.run returned although the host waits forever";
  } catch (const SimulationError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("stream 'stuck' has 1 unfinished command(s) on hardware queue 1 and waits "
                       "for event 'never', which the host has not recorded yet"),
              std::string::npos)
        << msg;
    EXPECT_EQ(msg.find("stream 'busy'"), std::string::npos) << "'busy' finished: " << msg;
  }
}

} // namespace
} // namespace npu
