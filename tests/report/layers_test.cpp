// The per-layer report: each kernel's share of the run, its sums, what bounds it, and
// the summary lines and layers.csv made from them.
#include "report/layers.h"
#include "report/report.h"
#include "tests/text_lines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace npu {
namespace {

LaunchRecord timed(uint64_t id, const std::string& kernel, const std::array<uint64_t, 7>& t_ps) {
  LaunchRecord r;
  r.launch_id = id;
  r.kernel = kernel;
  r.stream = "s";
  r.unit = 0;
  r.async = true;
  r.at = Stamps(t_ps);
  return r;
}

std::vector<uint64_t> times_of(const std::vector<LaunchRecord>& records, uint64_t end_ps) {
  return kernel_time(make_launch_table(records), end_ps);
}

TEST(KernelTime, EachInstantGoesToTheLaunchesOfTheFirstCategoryInFlight) {
  // b waits in schedule while a runs: [0, 20) is a's launch call, [20, 100) a's schedule,
  // iload and execute (b's host call and schedule come after them), [100, 110) b's
  // schedule beats a's complete, then b alone until 150; [150, 200) is idle.
  const std::vector<uint64_t> t = times_of({timed(0, "a", {0, 10, 20, 30, 40, 100, 120}),
                                            timed(1, "b", {20, 30, 40, 110, 115, 130, 150})},
                                           200);
  EXPECT_EQ(t, (std::vector<uint64_t>{100, 50}));
  // With the idle part of breakdown() they add up to the end.
  const TimeBreakdown parts =
      breakdown(make_launch_table({timed(0, "a", {0, 10, 20, 30, 40, 100, 120}),
                                   timed(1, "b", {20, 30, 40, 110, 115, 130, 150})}),
                200);
  EXPECT_EQ(t[0] + t[1] + parts[static_cast<size_t>(TimeCategory::Idle)], 200u);
}

TEST(KernelTime, LaunchesInTheSameCategoryShareItToThePicosecond) {
  // Two kernels execute side by side on two units for 7 ps: 4 + 3, the odd one to the
  // earlier launch; a second launch of `c` adds its own time to the kernel.
  const std::vector<uint64_t> t =
      times_of({timed(0, "c", {0, 0, 0, 0, 0, 7, 7}), timed(1, "d", {0, 0, 0, 0, 0, 7, 7}),
                timed(2, "c", {7, 7, 7, 7, 7, 9, 9})},
               9);
  EXPECT_EQ(t, (std::vector<uint64_t>{6, 3}));
}

// time_shares() by its definition: every instant between two stamps goes to the first
// category with a launch in it, shared among those launches to the picosecond.
TimeShares shares_by_definition(const LaunchTable& table, uint64_t end_ps) {
  constexpr std::array<TimeCategory, 6> category{TimeCategory::Launch,   TimeCategory::Launch,
                                                 TimeCategory::Schedule, TimeCategory::Iload,
                                                 TimeCategory::Execute,  TimeCategory::Complete};
  std::vector<uint64_t> times{0, end_ps};
  for (const LaunchRow& row : table.rows())
    for (size_t k = 0; k < row.at.size(); ++k)
      times.push_back(std::min(row.at.nth(k), end_ps));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  TimeShares shares{{}, std::vector<uint64_t>(table.kernels().size(), 0)};
  for (size_t i = 0; i + 1 < times.size(); ++i) {
    const uint64_t from = times[i], ps = times[i + 1] - times[i];
    for (size_t c = 0; c <= k_time_categories; ++c) {
      std::vector<uint32_t> in;
      for (uint32_t r = 0; r < table.size(); ++r)
        for (size_t k = 0; k < category.size(); ++k) {
          const Stamps& at = table.rows()[r].at;
          if (static_cast<size_t>(category[k]) == c && at.nth(k) <= from && from < at.nth(k + 1) &&
              (in.empty() || in.back() != r))
            in.push_back(r);
        }
      if (c == k_time_categories || !in.empty()) {
        shares.parts[std::min(c, static_cast<size_t>(TimeCategory::Idle))] += ps;
        for (size_t n = 0; n < in.size(); ++n)
          shares.kernel_ps[table.rows()[in[n]].kernel] += ps / in.size() + (n < ps % in.size());
        break;
      }
    }
  }
  return shares;
}

TEST(KernelTime, ManyLaunchesOfSeveralKernelsShareTheRunAsDefined) {
  // Random launches of three kernels on overlapping streams, t0 never decreasing; one in
  // five has stamps out of order after t0 (an interval that would end before it starts
  // counts for nothing).
  std::mt19937_64 random(45);
  std::vector<LaunchRecord> records;
  uint64_t t0 = 0;
  for (uint64_t id = 0; id < 300; ++id) {
    t0 += random() % 4;
    std::array<uint64_t, 7> t{t0};
    for (size_t k = 1; k < t.size(); ++k)
      t[k] = random() % 5 == 0 ? t0 + random() % 40 : t[k - 1] + random() % 6;
    records.push_back(timed(id, std::string(1, static_cast<char>('a' + random() % 3)), t));
  }
  for (const uint64_t end_ps : {uint64_t{2000}, uint64_t{300}}) {
    const LaunchTable table = make_launch_table(records);
    const TimeShares expected = shares_by_definition(table, end_ps);
    const TimeShares shares = time_shares(table, end_ps);
    EXPECT_EQ(shares.parts, expected.parts) << end_ps;
    EXPECT_EQ(shares.kernel_ps, expected.kernel_ps) << end_ps;
    EXPECT_EQ(breakdown(table, end_ps), expected.parts);
    EXPECT_EQ(kernel_time(table, end_ps), expected.kernel_ps);
  }
}

LayerFigures layer(uint64_t host, uint64_t iload, uint64_t execute, uint64_t compute_roof,
                   uint64_t memory_roof, uint64_t ifetch_stall = 0) {
  LayerFigures l;
  l.host_ps = host;
  l.iload_ps = iload;
  l.execute_ps = execute;
  l.ifetch_stall_ps = ifetch_stall;
  l.work.compute_roof_ps = compute_roof;
  l.memory_roof_ps = memory_roof;
  return l;
}

TEST(ClassifyBound, HostThenIloadThenTheHigherRoof) {
  // The host's launch calls take longer than iload + execute: host, whatever the roofs.
  EXPECT_EQ(classify_bound(layer(101, 20, 80, 80, 10)), Bound::Host);
  EXPECT_EQ(classify_bound(layer(100, 20, 80, 80, 10)), Bound::Compute);
  // Instruction loading is at least half of the device time, fetch stalls included.
  EXPECT_EQ(classify_bound(layer(0, 50, 50, 40, 45)), Bound::Iload);
  EXPECT_EQ(classify_bound(layer(0, 49, 51, 40, 45)), Bound::Memory);
  EXPECT_EQ(classify_bound(layer(0, 30, 70, 40, 45, 20)), Bound::Iload);
  // Otherwise the higher roof: DRAM bytes at the DDR's peak against the work at the
  // units' peak.
  EXPECT_EQ(classify_bound(layer(0, 1, 100, 90, 30)), Bound::Compute);
  EXPECT_EQ(classify_bound(layer(0, 1, 100, 30, 90)), Bound::Memory);
  EXPECT_EQ(classify_bound(layer(0, 0, 0, 0, 0)), Bound::Compute);
  EXPECT_STREQ(bound_name(Bound::Iload), "iload");
  EXPECT_STREQ(bound_name(Bound::Host), "host");
}

LaunchRecord worked(LaunchRecord r, uint64_t macs, uint64_t dram_bytes, uint64_t mac_roof_ps) {
  r.work.macs = macs;
  r.work.dram_bytes = dram_bytes;
  r.work.mac_roof_ps = mac_roof_ps;
  r.work.compute_roof_ps = mac_roof_ps;
  return r;
}

// Three kernels run one after another: small (twice), big, tiny; 10 ps idle at the end.
RunReport three_kernels() {
  RunReport report;
  report.config_name = "cfg";
  report.testbench_name = "tb";
  report.launches = {
      worked(timed(0, "small", {0, 1, 2, 3, 4, 14, 15}), 1000, 1000, 5),
      worked(timed(1, "big", {15, 16, 17, 18, 20, 100, 101}), 400000, 100, 60),
      worked(timed(2, "small", {101, 102, 103, 104, 105, 115, 116}), 1000, 1000, 5),
      worked(timed(3, "tiny", {116, 117, 119, 120, 121, 122, 130}), 0, 0, 0),
  };
  report.simulated_ps = 140;
  report.peaks.macs_per_s = 1e12;
  report.peaks.dram_bytes_per_s = 1e13; // ten bytes a picosecond
  return report;
}

TEST(LayerFigures, SumsEachKernelsLaunchesAndSortsByTime) {
  const RunReport report = three_kernels();
  const std::vector<LayerFigures> layers =
      layer_figures(make_launch_table(report.launches), report.simulated_ps, report.peaks);
  ASSERT_EQ(layers.size(), 3u);
  EXPECT_EQ(layers[0].kernel, "big");
  EXPECT_EQ(layers[0].time_ps, 86u); // 15 .. 101
  EXPECT_EQ(layers[1].kernel, "small");
  EXPECT_EQ(layers[1].launches, 2u);
  EXPECT_EQ(layers[1].time_ps, 30u);
  EXPECT_EQ(layers[1].total_ps, 30u);
  EXPECT_EQ(layers[1].host_ps, 4u);
  EXPECT_EQ(layers[2].host_ps, 3u);
  EXPECT_EQ(layers[1].iload_ps, 2u);
  EXPECT_EQ(layers[1].execute_ps, 20u);
  EXPECT_EQ(layers[1].work.macs, 2000u);
  EXPECT_EQ(layers[1].work.dram_bytes, 2000u);
  EXPECT_EQ(layers[1].memory_roof_ps, 200u);
  EXPECT_EQ(layers[2].kernel, "tiny");
  EXPECT_EQ(layers[2].time_ps, 14u);
  uint64_t time_ps = 0;
  for (const LayerFigures& l : layers)
    time_ps += l.time_ps;
  EXPECT_EQ(time_ps, 130u); // the 10 ps after the last completion are idle

  const nlohmann::ordered_json j = to_json(report);
  ASSERT_EQ(j["layers"].size(), 3u);
  const auto& big = j["layers"][0];
  EXPECT_EQ(big["kernel"], "big");
  EXPECT_EQ(big["macs"], 400000);
  EXPECT_EQ(big["mac_utilisation"], 0.75); // 60 of 80 ps of execute
  EXPECT_EQ(big["macs_per_byte"], 4000.0); // 400000 MACs over 100 bytes
  EXPECT_DOUBLE_EQ(big["macs_per_s"].get<double>(), 400000 / 80e-12);
  EXPECT_EQ(big["bound"], "compute");           // roofs: 60 ps of work, 10 ps of bytes
  EXPECT_EQ(j["layers"][1]["bound"], "memory"); // 10 ps of work, 200 ps of bytes
  EXPECT_EQ(j["layers"][2]["bound"], "host");   // 3 ps of launch calls, 2 ps on the device
  EXPECT_TRUE(j["layers"][2]["macs_per_byte"].is_null());
  EXPECT_EQ(j["peaks"]["macs_per_s"], 1e12);
}

TEST(LayersCsv, OneRowPerKernelThenTheIdleTimeAllIn80Columns) {
  const std::string csv = layers_csv(to_json(three_kernels()));
  const auto lines = test::lines_of(csv);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "kernel,launches,time_us,exec_us,iload_us,macs_m,dram_mb,util,macs_per_b,bound");
  EXPECT_EQ(lines[1], "big,1,0.000,0.000,0.000,0.400,0.000,0.750,4000.0,compute");
  EXPECT_EQ(lines[2], "small,2,0.000,0.000,0.000,0.002,0.002,0.500,1.0,memory");
  EXPECT_EQ(lines[3], "tiny,1,0.000,0.000,0.000,0.000,0.000,0.000,,host");
  EXPECT_EQ(lines[4], "(device idle),0,0.000,0.000,0.000,0.000,0.000,0.000,,");
  for (const auto& line : lines)
    EXPECT_LE(line.size(), 80u) << line;
}

TEST(LayersSummary, TopKernelsThenTheRestTheIdleTimeAndTheRun) {
  RunReport report = three_kernels();
  // Microseconds, so that the lines show figures: scale every time by 10^6.
  for (LaunchRecord& r : report.launches) {
    for (uint64_t& t : r.at)
      t *= 1000000;
    r.work.mac_roof_ps *= 1000000;
    r.work.compute_roof_ps *= 1000000;
  }
  report.simulated_ps *= 1000000;
  report.launches[1].kernel = std::string(40, 'k'); // elided to the kernel column
  const nlohmann::ordered_json j = to_json(report);
  std::ostringstream out;
  print_layers(out, j, 2);
  const auto lines = test::lines_of(out.str());
  ASSERT_EQ(lines.size(), 8u) << out.str();
  EXPECT_EQ(lines[1], "layers: 2 of 3 kernels, most time first, times in us");
  EXPECT_EQ(lines[2],
            "  kernel           n     time   execute     iload  MACs  DRAM util MAC/B bound");
  EXPECT_EQ(lines[3],
            "  kkkkkkkkk...     1   86.000    80.000     2.000  400k   100  75%  4000 compute");
  // Its roofs scaled with the times but its bytes did not: compute bound now.
  EXPECT_EQ(lines[4],
            "  small            2   30.000    20.000     2.000 2.00k 2.00k  50%  1.00 compute");
  EXPECT_EQ(lines[5], "  1 more           1   14.000     1.000     1.000     0     0   0%     -");
  EXPECT_EQ(lines[6], "  device idle          10.000");
  EXPECT_EQ(lines[7], "  run              4  140.000   101.000     5.000  402k 2.10k  69%   191");
  for (const auto& line : lines)
    EXPECT_LE(line.size(), 80u) << line;
  std::ostringstream all;
  print_layers(all, j, 0);
  EXPECT_NE(all.str().find("layers: 3 kernels, most time first"), std::string::npos);
  EXPECT_EQ(all.str().find("more"), std::string::npos);
}

} // namespace
} // namespace npu
