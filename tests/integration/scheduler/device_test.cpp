// Device-side behaviour through the runtime API: instruction loading against binary
// size, dispatch policies and cache residency, fetch stalls of hot loops larger than
// the cache, overlap of streams across units and hardware queues, and statistics.
#include "platform/platform.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/compute/compute_test_util.h"
#include "tests/integration/isolated_run.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/kernels.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::cycles_kernel;

double ns(uint64_t ps) {
  return static_cast<double>(ps) / 1000.0;
}

// --- instruction load -------------------------------------------------------------

// Cold phase 4 is a tag scan plus one fill per line, fills_outstanding at a time:
// linear in the number of lines, from 1 KiB to 4x the 32 KiB cache. Each point may be
// off the line by 3% and by one DDR refresh (a refresh can fall into any load).
TEST(InstructionLoad, ColdLoadGrowsLinearlyWithTheBinarysLines) {
  const std::string yaml = "name: t\ncompute: {units: 1}\n";
  const PlatformConfig config = test::config_from_yaml(yaml);
  ASSERT_EQ(config.icache.size_bytes, 32u << 10);
  const double refresh_ns = config.ddr.spec.t.RFC * config.ddr.spec.tck_ps / 1000.0;
  std::vector<uint64_t> sizes;
  for (uint64_t kib = 1; kib <= 128; kib *= 2)
    sizes.push_back(kib << 10);
  const test::IsolatedRun report = test::run_isolated(yaml, [&](Runtime& rt, auto&) {
    for (const uint64_t bytes : sizes) // distinct binaries: each launch is cold
      rt.launch(rt.load_kernel(cycles_kernel("k" + std::to_string(bytes >> 10), 1000, bytes)));
  });
  ASSERT_EQ(report.error, "");
  ASSERT_EQ(report.launches.size(), sizes.size());
  // Least-squares line through (lines, iload); every point within 3% of it.
  std::vector<double> x, y;
  for (size_t i = 0; i < sizes.size(); ++i) {
    x.push_back(static_cast<double>(sizes[i] / config.icache.line_bytes));
    y.push_back(ns(report.launches[i].iload_ps()));
  }
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double offset = (sy - slope * sx) / n;
  std::printf("cold iload: %.2f ns per line + %.1f ns\n", slope, offset);
  EXPECT_GT(slope, 1.0);
  for (size_t i = 0; i < x.size(); ++i) {
    const double fit = offset + slope * x[i];
    std::printf("  %4.0f lines: %9.1f ns (fit %9.1f)\n", x[i], y[i], fit);
    EXPECT_NEAR(y[i], fit, 0.03 * fit + refresh_ns) << x[i] << " lines";
  }
  // Doubling a large binary doubles its load.
  EXPECT_NEAR(y.back() / y[y.size() - 2], 2.0, 0.1);
}

// Kernels a and b (24 KiB each) cannot share one 32 KiB cache. Relaunched in turn:
// fifo puts both on unit 0, so each evicts the other and every launch is cold;
// affinity keeps each on the unit that holds it, so only the first two are cold.
TEST(InstructionLoad, AffinityKeepsRelaunchesWarmWhereFifoThrashes) {
  auto run = [](const std::string& policy) {
    const std::string yaml = "name: t\ncompute: {units: 4}\nscheduler: {policy: " + policy + "}\n";
    return test::run_isolated(yaml, [&](Runtime& rt, auto&) {
      const Kernel a = rt.load_kernel(cycles_kernel("a", 2000, 24 << 10));
      const Kernel b = rt.load_kernel(cycles_kernel("b", 2000, 24 << 10));
      for (int i = 0; i < 5; ++i) {
        rt.launch(a);
        rt.launch(b);
      }
    });
  };
  const test::IsolatedRun fifo = run("fifo");
  const test::IsolatedRun affinity = run("affinity");
  ASSERT_EQ(fifo.error, "");
  ASSERT_EQ(affinity.error, "");
  ASSERT_EQ(fifo.launches.size(), 10u);
  ASSERT_EQ(affinity.launches.size(), 10u);
  const uint64_t cold = affinity.launches[0].iload_ps();
  EXPECT_GT(ns(cold), 1000.0);
  EXPECT_NEAR(static_cast<double>(affinity.launches[1].iload_ps()), static_cast<double>(cold),
              0.1 * static_cast<double>(cold));
  EXPECT_NE(affinity.launches[0].unit, affinity.launches[1].unit);
  for (size_t i = 2; i < 10; ++i) {
    SCOPED_TRACE("launch " + std::to_string(i));
    EXPECT_LT(affinity.launches[i].iload_ps(), cold / 20) << "affinity relaunch not warm";
    EXPECT_EQ(affinity.launches[i].unit, affinity.launches[i % 2].unit);
    // What survives of a binary under fifo is evicted by its own fills (LRU).
    EXPECT_GT(fifo.launches[i].iload_ps(), cold * 9 / 10) << "fifo relaunch not cold";
    EXPECT_EQ(fifo.launches[i].unit, 0);
  }
  EXPECT_EQ(affinity.stat("scheduler", "dispatch_warm"), 8);
  EXPECT_EQ(affinity.stat("scheduler", "dispatch_cold"), 2);
  EXPECT_EQ(fifo.stat("scheduler", "dispatch_warm"), 0);
}

// round_robin spreads launches over the units: the same kernel pays the cold load
// once on each of the 4 units, then runs warm everywhere.
TEST(InstructionLoad, RoundRobinPaysTheColdLoadOncePerUnit) {
  const test::IsolatedRun report = test::run_isolated(
      "name: t\ncompute: {units: 4}\nscheduler: {policy: round_robin}\n", [&](Runtime& rt, auto&) {
        const Kernel k = rt.load_kernel(cycles_kernel("k", 2000, 16 << 10));
        for (int i = 0; i < 8; ++i)
          rt.launch(k);
      });
  ASSERT_EQ(report.error, "");
  ASSERT_EQ(report.launches.size(), 8u);
  const uint64_t cold = report.launches[0].iload_ps();
  for (size_t i = 0; i < 8; ++i) {
    SCOPED_TRACE("launch " + std::to_string(i));
    EXPECT_EQ(report.launches[i].unit, static_cast<int>(i % 4));
    if (i < 4) {
      EXPECT_NEAR(static_cast<double>(report.launches[i].iload_ps()), static_cast<double>(cold),
                  0.05 * static_cast<double>(cold));
    } else {
      EXPECT_LT(report.launches[i].iload_ps(), cold / 20);
    }
  }
}

// --- fetch stalls during execution ----------------------------------------------------

struct HotLoopRun {
  LaunchRecord record;
  test::IsolatedRun report;
};

HotLoopRun run_hot_loop(uint64_t loop_bytes, const std::string& extra = "") {
  HotLoopRun out;
  out.report =
      test::run_isolated("name: t\ncompute: {units: 1}\n" + extra, [&](Runtime& rt, auto&) {
        rt.launch(rt.load_kernel(cycles_kernel("loop", 80000, loop_bytes, 8)));
      });
  EXPECT_EQ(out.report.error, "");
  if (!out.report.launches.empty())
    out.record = out.report.launches[0];
  return out;
}

// Lines of a loop over [0, bytes) that miss on every pass through a set-associative
// LRU cache: all lines of each set that the loop maps more than `ways` lines onto.
uint64_t thrashing_lines(uint64_t bytes, const ICacheConfig& c) {
  const uint64_t sets = c.size_bytes / (c.line_bytes * c.ways);
  std::vector<uint64_t> per_set(sets);
  for (uint64_t line = 0; line < bytes / c.line_bytes; ++line)
    ++per_set[line % sets];
  uint64_t n = 0;
  for (const uint64_t count : per_set)
    n += count > c.ways ? count : 0;
  return n;
}

// The whole binary is the hot loop, run 8 times. Up to the cache size it stays resident
// after the preload; beyond it, each set that must hold more lines than it has ways
// evicts each of them (LRU) just before it is needed again: those lines miss on every
// pass, the others never.
TEST(FetchStall, AppearsOnlyOnceTheHotLoopExceedsTheCache) {
  const uint64_t cache = 32 << 10;
  for (const uint64_t bytes : {8ull << 10, 16ull << 10, 32ull << 10}) {
    const HotLoopRun r = run_hot_loop(bytes);
    EXPECT_EQ(r.record.ifetch_stall_ps, 0u) << bytes << " B";
    EXPECT_EQ(r.report.stat("icache", "fetch_misses"), 0);
  }
  double previous = 0;
  for (const uint64_t bytes : {36ull << 10, 48ull << 10, 64ull << 10}) {
    SCOPED_TRACE(std::to_string(bytes) + " B hot loop");
    const HotLoopRun r = run_hot_loop(bytes);
    const ICacheConfig cache_config = test::config_from_yaml("name: t\n").icache;
    const double expected = 8.0 * static_cast<double>(thrashing_lines(bytes, cache_config));
    EXPECT_EQ(r.report.stat("icache", "fetch_misses"), expected);
    const double stall = ns(r.record.ifetch_stall_ps);
    std::printf("hot loop %3llu KiB (cache %llu KiB): fetch stall %.1f ns in %.1f ns execute\n",
                static_cast<unsigned long long>(bytes >> 10),
                static_cast<unsigned long long>(cache >> 10), stall, ns(r.record.execute_ps()));
    EXPECT_GT(stall, previous);
    previous = stall;
    // The stall is part of execute, on top of the kernel's own cycles.
    EXPECT_GE(r.record.execute_ps(), 80000u * 1000u + r.record.ifetch_stall_ps);
    EXPECT_EQ(r.report.stat("compute.unit0", "stalled_on_instructions_ns"),
              ns(r.record.iload_ps() + r.record.ifetch_stall_ps));
  }
}

// A shared second level catches the lines the first level keeps losing: the same
// thrashing loop stalls for much less, and its misses hit in the second level.
TEST(FetchStall, SharedSecondLevelShortensTheStalls) {
  const HotLoopRun l1 = run_hot_loop(64 << 10);
  const HotLoopRun l2 = run_hot_loop(64 << 10, "icache: {l2: {size: 256KiB, latency: 10ns}}\n");
  EXPECT_GT(l2.record.ifetch_stall_ps, 0u);
  EXPECT_LT(l2.record.ifetch_stall_ps, l1.record.ifetch_stall_ps / 2);
  // The preload missed every line in both levels; the 8 passes hit in the second.
  EXPECT_EQ(l2.report.stat("icache.l2", "misses"), 1024);
  EXPECT_EQ(l2.report.stat("icache.l2", "hits"), 8 * 1024);
}

// Every unit's cache fills through the one second level: a kernel spread over four
// units reads each line of its binary from memory once.
TEST(FetchStall, SecondLevelIsSharedByEveryUnit) {
  const test::IsolatedRun r = test::run_isolated(
      "name: t\ncompute: {units: 4}\nicache: {l2: {size: 256KiB}}\n", [&](Runtime& rt, auto&) {
        KernelDesc k = cycles_kernel("k", 1000, 16 << 10);
        k.units = 4;
        rt.launch(rt.load_kernel(k));
      });
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.stat("icache", "misses"), 4 * 256);
  EXPECT_EQ(r.stat("icache.l2", "misses"), 256);
  EXPECT_EQ(r.stat("icache.l2", "hits") + r.stat("icache.l2", "merged"), 3 * 256);
}

// --- overlap --------------------------------------------------------------------------

/// Simulated time of `per_stream` kernels on each of `streams` streams, submitted
/// async and waited for with one device sync.
uint64_t streams_time(const std::string& yaml, const KernelDesc& desc, int streams,
                      int per_stream) {
  const test::IsolatedRun run = test::run_isolated(yaml, [&](Runtime& rt, std::vector<double>& v) {
    const Kernel k = rt.load_kernel(desc);
    rt.launch(k); // warm the caches and settle the first-launch costs
    std::vector<Stream> s;
    for (int i = 0; i < streams; ++i)
      s.push_back(rt.stream_create("s" + std::to_string(i)));
    const uint64_t start = rt.now_ps();
    for (int j = 0; j < per_stream; ++j)
      for (int i = 0; i < streams; ++i)
        rt.launch_async(k, {}, s[static_cast<size_t>(i)]);
    rt.device_synchronize();
    v.push_back(static_cast<double>(rt.now_ps() - start));
  });
  EXPECT_EQ(run.error, "");
  return run.values.empty() ? 0 : static_cast<uint64_t>(run.values[0]);
}

// Two streams of `per_stream` kernels: on two units they take about the time of one
// stream; on one unit, or through one hardware queue, about the sum.
void expect_overlap(const KernelDesc& desc, int per_stream, const std::string& ddr = "") {
  const std::string two_units = "name: t\ncompute: {units: 2}\n" + ddr;
  const double one = static_cast<double>(streams_time(two_units, desc, 1, per_stream));
  const double both = static_cast<double>(streams_time(two_units, desc, 2, per_stream));
  const double one_unit = static_cast<double>(
      streams_time("name: t\ncompute: {units: 1}\n" + ddr, desc, 2, per_stream));
  const double one_queue = static_cast<double>(
      streams_time(two_units + "scheduler: {hw_queues: 1}\n", desc, 2, per_stream));
  std::printf("%s: one stream %.1f us; two streams on 2 units %.1f us, on 1 unit %.1f us, "
              "on 1 queue %.1f us\n",
              desc.name.c_str(), one / 1e6, both / 1e6, one_unit / 1e6, one_queue / 1e6);
  EXPECT_NEAR(both, one, 0.15 * one) << "two streams on two units should overlap";
  EXPECT_NEAR(one_unit, 2 * one, 0.15 * 2 * one) << "one unit should serialise them";
  EXPECT_NEAR(one_queue, 2 * one, 0.15 * 2 * one) << "one hardware queue should serialise them";
}

TEST(Overlap, TwoStreamsOfCyclesKernels) {
  expect_overlap(cycles_kernel("cycles", 100000, 4096), 4);
}

TEST(Overlap, TwoStreamsOfComputeBoundMatmuls) {
  // 512^3 int8 on a 32 x 32 array: 131,072 array cycles per kernel. Eight HBM2E channels
  // and eight DMA channels feed both units with room to spare, so the kernels are
  // compute-bound even side by side (on one LPDDR4 channel they are not: see
  // ComputeUnit.MemoryBoundKernelsOnTwoUnitsShareTheDdr).
  expect_overlap(test::kernel("matmul", test::matmul(512, 512, 512)), 4,
                 "ddr: {preset: HBM2E, channels: 8}\ndma: {channels: 8}\n");
}

} // namespace
} // namespace npu
