// Command lists: launches recorded once and submitted with one driver call and one
// doorbell (the driver-level way to merge launches, as in the chapter's advice).
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

namespace npu {
namespace {

KernelDesc tiny() {
  KernelDesc d;
  d.name = "tiny";
  auto& shape = d.op.shape.emplace<CyclesOp>();
  shape.cycles = 200;
  d.binary_bytes = 2048;
  return d;
}

// One simulation per process: both ways run in it, one after the other.
TEST(CommandList, OneDoorbellAndFarLessHostTimeForTheSameLaunches) {
  Simulation sim(test::config_from_yaml("name: t\n"));
  uint64_t single_ps = 0, list_ps = 0, single_doorbells = 0;
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(tiny());
    const Stream a = rt.stream_create("single");
    const Stream b = rt.stream_create("list");
    uint64_t start = rt.now_ps();
    for (int i = 0; i < 32; ++i)
      rt.launch_async(k, {}, a);
    single_ps = rt.now_ps() - start;
    rt.stream_synchronize(a);
    single_doorbells = 32;
    CommandList list = rt.command_list_create();
    for (int i = 0; i < 32; ++i)
      rt.command_list_launch(list, k);
    start = rt.now_ps();
    rt.command_list_submit(list, b);
    list_ps = rt.now_ps() - start;
    rt.stream_synchronize(b);
  });
  ASSERT_EQ(report.launches.size(), 64u);
  EXPECT_EQ(test::stat(report.blocks, "host", "doorbells"), single_doorbells + 1);
  EXPECT_EQ(test::stat(report.blocks, "host", "command_lists"), 1);
  EXPECT_EQ(test::stat(report.blocks, "scheduler", "kernels_dispatched"), 64);
  EXPECT_GE(single_ps, 5 * list_ps) << single_ps / 1000 << " ns vs " << list_ps / 1000 << " ns";
  for (size_t i = 32; i < 64; ++i) {
    const LaunchRecord& r = report.launches[i];
    EXPECT_EQ(r.stream, "list");
    EXPECT_EQ(r.prepare_ps(), 0u) << "arguments are packed when the list is recorded";
    EXPECT_EQ(r.total_ps(), r.prepare_ps() + r.submit_ps() + r.schedule_ps() + r.iload_ps() +
                                r.execute_ps() + r.complete_ps());
    if (i > 32) { // still in stream order
      EXPECT_GE(r.at[Stamp::Assigned], report.launches[i - 1].at[Stamp::Finished]);
    }
  }
}

TEST(CommandList, ListLongerThanTheRingIsPublishedInPartsInsteadOfDeadlocking) {
  Simulation sim(test::config_from_yaml("name: t\nscheduler: {ring_entries: 4}\n"));
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(tiny());
    CommandList list = rt.command_list_create();
    for (int i = 0; i < 10; ++i)
      rt.command_list_launch(list, k);
    rt.command_list_submit(list, rt.stream_create("s"), false);
  });
  EXPECT_EQ(report.launches.size(), 10u);
  EXPECT_GE(test::stat(report.blocks, "host", "doorbells"), 3);
}

} // namespace
} // namespace npu
