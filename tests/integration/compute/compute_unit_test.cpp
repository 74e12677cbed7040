// Compute units in a whole platform: per-dataflow tile times against the documented
// formulas, dtype rates, every op from a YAML testbench, clear errors for bad op keys,
// statistics that add up, and DDR contention between units.
#include "models/compute/tiling.h"
#include "testbench/testbench.h"
#include "tests/integration/compute/compute_test_util.h"
#include "tests/integration/platform_yaml.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

namespace npu {
namespace {

using test::run_one;

std::string error_of(const std::string& text) {
  try {
    read_testbench(cfg::parse_yaml_string(text, "tb.yaml"), "tb.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The plan the unit of a run makes.
TilePlan unit_plan(const test::OneLaunch& run, const OpSpec& op) {
  return plan_tiles(op, plan_target_of(run.config, run.partition_bytes), 1, 0);
}

// A 64 x 48 x 40 int8 matmul on a single-buffered unit is one SRAM tile (splitting it
// overlaps nothing); its array time is the dataflow's formula summed over the folds
// of the whole 32 x 32 array (tests/models/compute/tiling_test.cpp derives each).
void check_dataflow(const std::string& dataflow, uint64_t expected_cycles) {
  const std::string yaml = "name: t\ncompute: {units: 1, buffers: 1, dataflow: " + dataflow + "}\n";
  const OpSpec op = test::matmul(64, 48, 40);
  const auto run = run_one(yaml, op, {64 * 40, 40 * 48}, 64 * 48);
  const TilePlan plan = unit_plan(run, op);
  ASSERT_EQ(plan.size(), 1u) << plan.shape();
  EXPECT_EQ(plan.tile(0).cycles, expected_cycles);
  EXPECT_DOUBLE_EQ(run.unit_stat("array_busy_ns"), static_cast<double>(expected_cycles));
  EXPECT_DOUBLE_EQ(run.unit_stat("mac_utilization"),
                   64.0 * 48 * 40 / (static_cast<double>(expected_cycles) * 1024));
  // Execute = setup + loads + compute + store (one tile: nothing to overlap with).
  EXPECT_GE(run.execute_ns(), 100.0 + static_cast<double>(expected_cycles));
  EXPECT_DOUBLE_EQ(run.unit_stat("busy_ns"), 100.0 + static_cast<double>(expected_cycles));
}

TEST(ComputeDataflow, OutputStationaryTileTime) {
  check_dataflow("output_stationary", 4 * (40 + 62)); // 2 x 2 output folds of k + 62
}

TEST(ComputeDataflow, WeightStationaryTileTime) {
  check_dataflow("weight_stationary", 4 * (64 + 94)); // 2 x 2 weight folds of m + 94
}

TEST(ComputeDataflow, InputStationaryTileTime) {
  check_dataflow("input_stationary", 4 * (48 + 94)); // 2 x 2 input folds of n + 94
}

// Every multi-tile matmul: the array time is the sum of its tiles' formula times.
TEST(ComputeDataflow, MultiTileArrayTimeIsTheSumOfTileFormulas) {
  const std::string yaml = "name: t\ncompute: {units: 1, dataflow: weight_stationary}\n";
  const OpSpec op = test::matmul(300, 200, 700);
  const auto run = run_one(yaml, op, {300 * 700, 700 * 200}, 300 * 200);
  const TilePlan plan = unit_plan(run, op);
  ASSERT_GT(plan.size(), 1u);
  EXPECT_DOUBLE_EQ(run.unit_stat("array_busy_ns"),
                   static_cast<double>(plan.totals().compute_cycles));
  EXPECT_EQ(run.unit_stat("tiles"), static_cast<double>(plan.size()));
  EXPECT_EQ(run.unit_stat("macs"), 300.0 * 200 * 700);
}

TEST(ComputeUnit, FloatTypesRunAtHalfAndQuarterRate) {
  // Single-buffered: each is one tile of the same folds, whatever its bytes.
  Simulation sim(test::config_from_yaml("name: t\ncompute: {units: 1, buffers: 1}\n"));
  double busy[3] = {0, 0, 0};
  const DType types[3] = {DType::Int8, DType::Fp16, DType::Fp32};
  sim.run([&](Runtime& rt) {
    for (int i = 0; i < 3; ++i) {
      const Kernel k = rt.load_kernel(test::kernel("k", test::matmul(64, 64, 64, types[i])));
      const double before =
          test::stat({sim.platform().unit(0).stats(rt.now_ps())}, "compute.unit0", "array_busy_ns");
      rt.launch(k);
      busy[i] = test::stat({sim.platform().unit(0).stats(rt.now_ps())}, "compute.unit0",
                           "array_busy_ns") -
                before;
    }
  });
  EXPECT_GT(busy[0], 0);
  EXPECT_DOUBLE_EQ(busy[1], 2 * busy[0]);
  EXPECT_DOUBLE_EQ(busy[2], 4 * busy[0]);
}

TEST(ComputeUnit, CyclesKernelTakesSetupPlusItsCycles) {
  OpSpec op;
  auto& shape = op.shape.emplace<CyclesOp>();
  shape.cycles = 5000;
  const auto run = run_one("name: t\ncompute: {units: 1, frequency: 500MHz}\n", op, {64}, 64);
  EXPECT_EQ(run.record.execute_ps(), (100u + 5000) * 2000); // 2 ns per cycle
  EXPECT_EQ(run.unit_stat("bytes_loaded"), 0);
  EXPECT_EQ(run.unit_stat("tiles"), 0);
}

// All nine ops from one YAML testbench, each with its own dtype, on one unit.
TEST(ComputeOps, EveryOpParsesAndRuns) {
  const char* tb_yaml = R"(name: all-ops
kernels:
  mm:   {op: matmul, m: 200, n: 96, k: 130, dtype: int8}
  conv: {op: conv2d, n: 1, c: 16, h: 20, w: 20, k: 32, r: 3, s: 3, stride: 2, dtype: fp16}
  dw:   {op: depthwise_conv2d, n: 1, c: 32, h: 28, w: 28, r: 3, s: 3, pad: 1, dtype: int8}
  pool: {op: pool, n: 2, c: 16, h: 16, w: 16, r: 2, s: 2, stride: 2, dtype: bf16}
  fc:   {op: fully_connected, n: 4, in: 512, out: 100, dtype: fp32}
  add:  {op: elementwise, elements: 100000, inputs: 2, dtype: fp16}
  relu: {op: elementwise, elements: 4096}
  sm:   {op: softmax, rows: 64, cols: 500, dtype: fp32}
  ln:   {op: layernorm, rows: 10, cols: 768, dtype: bf16}
  tiny: {op: cycles, cycles: 300}
buffers:
  a: {size: 1MiB}
  b: {size: 1MiB}
  c: {size: 1MiB}
program:
  - launch: {kernel: mm, args: [a, b, c]}
  - launch: {kernel: conv, args: [a, b, c]}
  - launch: {kernel: dw, args: [a, b, c]}
  - launch: {kernel: pool, args: [a, c]}
  - launch: {kernel: fc, args: [a, b, c]}
  - launch: {kernel: add, args: [a, b, c]}
  - launch: {kernel: relu}
  - launch: {kernel: sm, args: [a, c]}
  - launch: {kernel: ln, args: [a, b, c]}
  - launch: {kernel: tiny}
)";
  const Testbench tb = read_testbench(cfg::parse_yaml_string(tb_yaml, "tb.yaml"), "tb.yaml");
  const PlatformConfig config = test::config_from_yaml("name: t\ncompute: {units: 1}\n");
  check_testbench(tb, config);
  Simulation sim(config);
  const RunReport report = sim.run([&](Runtime& rt) { run_testbench(rt, tb); });
  ASSERT_EQ(report.launches.size(), tb.kernels.size());
  const uint64_t partition =
      (config.sram.size_bytes - config.sram.buffer_bytes) / config.compute.units / 64 * 64;
  double macs = 0, vector_ops = 0, loaded = 0, stored = 0;
  for (size_t i = 0; i < tb.kernels.size(); ++i) {
    const KernelDesc& d = tb.kernels[i].desc;
    const LaunchRecord& r = report.launches[i];
    SCOPED_TRACE(d.name);
    EXPECT_EQ(r.kernel, d.name);
    EXPECT_GT(r.execute_ps(), 0u);
    const OpWork w = plan_tiles(d.op, plan_target_of(config, partition), 1, 0).totals();
    macs += static_cast<double>(w.macs);
    vector_ops += static_cast<double>(w.vector_ops);
    loaded += static_cast<double>(w.load_bytes);
    stored += static_cast<double>(w.store_bytes);
    // Never faster than its compute, which the plan gives exactly.
    EXPECT_GE(r.execute_ps(), (100 + w.compute_cycles) * 1000);
    std::printf("%-5s %-17s execute %9.1f ns  compute %8llu cycles  %8llu B in  %8llu B out\n",
                d.name.c_str(), op_kind_name(d.op.kind()).c_str(),
                static_cast<double>(r.execute_ps()) / 1000,
                static_cast<unsigned long long>(w.compute_cycles),
                static_cast<unsigned long long>(w.load_bytes),
                static_cast<unsigned long long>(w.store_bytes));
  }
  EXPECT_EQ(test::stat(report.blocks, "compute.unit0", "macs"), macs);
  EXPECT_EQ(test::stat(report.blocks, "compute.unit0", "vector_ops"), vector_ops);
  EXPECT_EQ(test::stat(report.blocks, "compute.unit0", "bytes_loaded"), loaded);
  EXPECT_EQ(test::stat(report.blocks, "compute.unit0", "bytes_stored"), stored);
  EXPECT_GT(test::stat(report.blocks, "compute.unit0", "vector_busy_ns"), 0);
  EXPECT_GT(test::stat(report.blocks, "compute.unit0", "array_busy_ns"), 0);
}

TEST(ComputeOps, BadOpKeysGiveClearErrors) {
  auto kernel_error = [](const std::string& kernel) {
    return error_of("kernels:\n  k: " + kernel + "\nprogram: []\n");
  };
  std::string e = kernel_error("{op: depthwise_conv2d, n: 1, c: 8, h: 8, w: 8, s: 3}");
  EXPECT_TRUE(contains(e, "tb.yaml:2:6")) << e;
  EXPECT_TRUE(contains(e, "kernels.k.r: missing required key")) << e;
  e = kernel_error("{op: pool, n: 1, c: 8, h: 8, w: 8, r: 2, s: 2, pad: 1}");
  EXPECT_TRUE(contains(e, "kernels.k.pad: unknown key")) << e;
  e = kernel_error("{op: elementwise, elements: 64, inputs: 3}");
  EXPECT_TRUE(contains(e, "tb.yaml:2:")) << e;
  EXPECT_TRUE(contains(e, "kernels.k.inputs")) << e;
  EXPECT_TRUE(contains(e, "2")) << e;
  e = kernel_error("{op: fully_connected, n: 1, in: 64}");
  EXPECT_TRUE(contains(e, "kernels.k.out: missing required key")) << e;
  e = kernel_error("{op: fully_connected, n: 1, in: 64, out: 8, m: 3}");
  EXPECT_TRUE(contains(e, "kernels.k.m: unknown key")) << e;
  e = kernel_error("{op: softmx, rows: 4, cols: 4}");
  EXPECT_TRUE(contains(e, "did you mean 'softmax'")) << e;
  e = kernel_error("{op: layernorm, rows: 0, cols: 4}");
  EXPECT_TRUE(contains(e, "kernels.k.rows")) << e;
  e = kernel_error("{op: layernorm, rows: 4, colums: 4}");
  EXPECT_TRUE(contains(e, "kernels.k.cols: missing required key")) << e;
  e = kernel_error("{op: matmul, m: 4, n: 4, k: 4, dtype: fp8}");
  EXPECT_TRUE(contains(e, "kernels.k.dtype")) << e;
  e = kernel_error("{op: matmul, m: 16777216, n: 16777216, k: 16777216}");
  EXPECT_TRUE(contains(e, "kernels.k.op: matmul: too much work")) << e;
  e = kernel_error("{op: pool, n: 1, c: 1, h: 4, w: 4, r: 5, s: 2}");
  EXPECT_TRUE(contains(e, "kernels.k.r: window larger than the input")) << e;
  e = kernel_error("{op: depthwise_conv2d, n: 1, c: 1, h: 4, w: 4, r: 3, s: 9, pad: 1}");
  EXPECT_TRUE(contains(e, "kernels.k.s: filter larger than the padded input")) << e;
  e = kernel_error("{op: elementwise}");
  EXPECT_TRUE(contains(e, "kernels.k.elements: missing required key")) << e;
}

TEST(ComputeConfigErrors, DataflowAndLanesAreChecked) {
  auto config_error = [](const std::string& yaml) {
    try {
      test::config_from_yaml(yaml);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string e = config_error("name: t\ncompute: {dataflow: weight_stationery}\n");
  EXPECT_TRUE(contains(e, "t.yaml:2:")) << e;
  EXPECT_TRUE(contains(e, "compute.dataflow")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'weight_stationary'")) << e;
  e = config_error("name: t\ncompute: {vector_lanes: 0}\n");
  EXPECT_TRUE(contains(e, "compute.vector_lanes")) << e;
  const PlatformConfig c = test::config_from_yaml("name: t\n");
  EXPECT_EQ(c.compute.dataflow, Dataflow::OutputStationary);
  EXPECT_EQ(c.compute.vector_lanes, 64u);
}

TEST(ComputeUnit, TimeSplitsIntoBusyStalledAndIdle) {
  const auto run = run_one("name: t\ncompute: {units: 1}\n", test::matmul(256, 256, 256),
                           {1 << 16, 1 << 16}, 1 << 16);
  const double simulated_ns = static_cast<double>(run.report.simulated_ps) / 1000;
  const double sum = run.unit_stat("busy_ns") + run.unit_stat("stalled_on_memory_ns") +
                     run.unit_stat("stalled_on_instructions_ns") + run.unit_stat("idle_ns");
  EXPECT_NEAR(sum, simulated_ns, 1e-6);
  // Inside the launch: execute = busy + stalled on memory, iload = stalled on instructions.
  EXPECT_NEAR(run.unit_stat("busy_ns") + run.unit_stat("stalled_on_memory_ns"), run.execute_ns(),
              1e-6);
  EXPECT_NEAR(run.unit_stat("stalled_on_instructions_ns"),
              static_cast<double>(run.record.iload_ps()) / 1000, 1e-6);
  EXPECT_GT(run.unit_stat("idle_ns"), 0);
  EXPECT_GT(run.unit_stat("memory_active_ns"), 0);
  EXPECT_LE(run.unit_stat("memory_active_ns"), run.execute_ns());
}

// Two memory-bound kernels on two units share the DDR: each runs about half as fast
// as alone, and the DDR bandwidth counter shows why.
TEST(ComputeUnit, MemoryBoundKernelsOnTwoUnitsShareTheDdr) {
  const PlatformConfig config = test::config_from_yaml("name: t\ncompute: {units: 2}\n");
  Simulation sim(config);
  OpSpec op;
  auto& shape = op.shape.emplace<ElementwiseOp>();
  shape.elements = 4 << 20;
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(test::kernel("copy", op));
    const Buffer a = rt.malloc(4 << 20), b = rt.malloc(4 << 20), c = rt.malloc(4 << 20),
                 d = rt.malloc(4 << 20);
    rt.launch(k, {a, b}); // alone
    const Stream s1 = rt.stream_create("s1"), s2 = rt.stream_create("s2");
    rt.launch_async(k, {a, b}, s1);
    rt.launch_async(k, {c, d}, s2);
    rt.device_synchronize();
  });
  ASSERT_EQ(report.launches.size(), 3u);
  const double alone = static_cast<double>(report.launches[0].execute_ps());
  const LaunchRecord& x = report.launches[1];
  const LaunchRecord& y = report.launches[2];
  EXPECT_NE(x.unit, y.unit);
  EXPECT_LT(std::max(x.at[Stamp::Resident], y.at[Stamp::Resident]),
            std::min(x.at[Stamp::Finished], y.at[Stamp::Finished]))
      << "no overlap";
  std::printf("elementwise 4 MiB: alone %.1f us, together %.1f and %.1f us\n", alone / 1e6,
              static_cast<double>(x.execute_ps()) / 1e6, static_cast<double>(y.execute_ps()) / 1e6);
  EXPECT_GT(static_cast<double>(x.execute_ps()), 1.6 * alone);
  EXPECT_GT(static_cast<double>(y.execute_ps()), 1.6 * alone);
  // The report says why: both units spend their time waiting for operands while the
  // DDR is busy.
  EXPECT_GT(test::stat(report.blocks, "ddr", "utilization"), 0.5);
  for (const char* unit : {"compute.unit0", "compute.unit1"}) {
    SCOPED_TRACE(unit);
    EXPECT_GT(test::stat(report.blocks, unit, "stalled_on_memory_ns"),
              2 * test::stat(report.blocks, unit, "busy_ns"));
  }
}

} // namespace
} // namespace npu
