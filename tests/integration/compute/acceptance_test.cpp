// The compute-unit acceptance checks of issue 4, each against the formulas in
// models/compute/README.md: a big int8 matmul keeps the MAC array busy, a tiny one
// is dominated by fill and drain, a big elementwise op runs at the DDR bandwidth, and
// double buffering hides operand traffic behind compute.
#include "models/compute/tiling.h"
#include "tests/integration/compute/compute_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace npu {
namespace {

using test::run_one;

// One unit with 8 MiB of SRAM (tiles of 512 x 256 x 4096 int8 fit, double-buffered) and
// four LPDDR4-3200 channels (25.6 GB/s).
constexpr const char* kBigSram = "name: big\n"
                                 "sram: {size: 8MiB, buffer_space: 64KiB}\n"
                                 "ddr: {channels: 4}\n"
                                 "compute: {units: 1, array: {rows: 32, cols: 32}}\n";

// 16 MiB operands; results 16 MiB.
TEST(ComputeAcceptance, Int8Matmul4096OnA32x32ArrayReachesNinetyPercentMacUtilisation) {
  const OpSpec op = test::matmul(4096, 4096, 4096);
  const uint64_t matrix = 4096ull * 4096;
  const auto run = run_one(kBigSram, op, {matrix, matrix}, matrix);
  const TilePlan plan = plan_tiles(op, plan_target_of(run.config, run.partition_bytes), 1, 0);
  const OpWork work = plan.totals();
  const double macs = 4096.0 * 4096 * 4096;
  EXPECT_EQ(run.unit_stat("macs"), macs);
  // The array's own efficiency: sum over tiles of the systolic formula.
  const double formula = macs / (static_cast<double>(work.compute_cycles) * 32 * 32);
  EXPECT_NEAR(run.unit_stat("mac_utilization"), formula, 1e-9);
  EXPECT_GE(run.unit_stat("mac_utilization"), 0.9);
  // End to end: useful MACs over what the array could do in the whole execute phase
  // (1 GHz, 1024 MACs per cycle): loads and stores are hidden behind compute.
  const double end_to_end = macs / (run.execute_ns() * 1024);
  std::printf("4096^3 int8 on 32x32: plan %s, %llu tiles; MAC utilisation %.4f while "
              "computing, %.4f over execute (%.3f ms); %.0f MB loaded\n",
              plan.shape().c_str(), static_cast<unsigned long long>(plan.size()),
              run.unit_stat("mac_utilization"), end_to_end, run.execute_ns() / 1e6,
              run.unit_stat("bytes_loaded") / 1e6);
  EXPECT_GE(end_to_end, 0.9);
  EXPECT_EQ(run.unit_stat("bytes_loaded"), static_cast<double>(work.load_bytes));
  EXPECT_EQ(run.unit_stat("bytes_stored"), static_cast<double>(matrix));
}

TEST(ComputeAcceptance, Matmul16IsDominatedByFillAndDrain) {
  const auto run = run_one("name: t\n", test::matmul(16, 16, 16), {256, 256}, 256);
  // One fold of the 32 x 32 array with k = 16: 16 + 32 + 32 - 2 = 78 cycles (the whole
  // array fills and drains) for 4096 MACs, 4096 / (78 x 1024) of the array's peak.
  const double formula = 4096.0 / (78.0 * 1024);
  EXPECT_NEAR(run.unit_stat("mac_utilization"), formula, 1e-12);
  EXPECT_LT(run.unit_stat("mac_utilization"), 0.3);
  EXPECT_DOUBLE_EQ(run.unit_stat("array_busy_ns"), 78.0);
  EXPECT_EQ(run.unit_stat("tiles"), 1);
  // The kernel is so small that fetching its operands dwarfs the 78 compute cycles.
  EXPECT_GT(run.unit_stat("stalled_on_memory_ns"), 78.0);
  std::printf("16^3 int8: MAC utilisation %.4f (formula %.4f), execute %.1f ns\n",
              run.unit_stat("mac_utilization"), formula, run.execute_ns());
}

// 64 MiB in, 64 MiB out on the edge-like memory system: 4 LPDDR4-3200 channels, 25.6 GB/s.
TEST(ComputeAcceptance, Elementwise64MiBRunsAtDdrBandwidthNotAtTheVectorRate) {
  const char* yaml = "name: edge\nddr: {channels: 4}\ncompute: {units: 4}\n";
  OpSpec op;
  auto& shape = op.shape.emplace<ElementwiseOp>();
  shape.elements = 64ull << 20;
  shape.inputs = 1;
  const uint64_t bytes = 64ull << 20;
  const auto run = run_one(yaml, op, {bytes}, bytes);
  const double peak = run.config.ddr.channel_bytes_per_s() * run.config.ddr.channels;
  // Every byte crosses DDR twice: read into SRAM, written back from SRAM.
  const double memory_ns = 2.0 * static_cast<double>(bytes) / peak * 1e9;
  const double vector_ns = static_cast<double>(vector_cycles(shape.elements, 64, DType::Int8));
  std::printf("elementwise 64 MiB: execute %.3f ms, bytes/DDR peak %.3f ms (%.1f GB/s of "
              "%.1f), vector unit %.3f ms\n",
              run.execute_ns() / 1e6, memory_ns / 1e6,
              2.0 * static_cast<double>(bytes) / run.execute_ns(), peak / 1e9, vector_ns / 1e6);
  // The unit keeps the DDR data buses busy for most of the execute phase: they are the
  // bottleneck. The DRAM model sustains about 80% of peak on a half-read, half-write
  // stream (refresh takes 7% on LPDDR4, read/write turnarounds and activates the rest),
  // so execute is about 1.25 x bytes / peak; it cannot beat bytes / peak.
  const double ddr_busy = test::stat(run.report.blocks, "ddr", "utilization") *
                          static_cast<double>(run.report.simulated_ps) / 1000.0 / run.execute_ns();
  std::printf("  DDR data buses busy %.1f%% of the execute phase; execute / (bytes / peak) = "
              "%.3f\n",
              100 * ddr_busy, run.execute_ns() / memory_ns);
  EXPECT_GE(ddr_busy, 0.75);
  EXPECT_GE(run.execute_ns(), memory_ns);
  EXPECT_LE(run.execute_ns(), memory_ns * 1.3);
  EXPECT_GT(run.execute_ns(), 4 * vector_ns);
  EXPECT_DOUBLE_EQ(run.unit_stat("vector_busy_ns"), vector_ns);
  EXPECT_EQ(run.unit_stat("bytes_loaded"), static_cast<double>(bytes));
  EXPECT_EQ(run.unit_stat("bytes_stored"), static_cast<double>(bytes));
  EXPECT_GT(run.unit_stat("stalled_on_memory_ns"), 0.5 * run.execute_ns());
}

// A matmul whose operand traffic is a large fraction of its compute time: with
// double buffering the execute phase is close to the larger of the two, not their sum.
TEST(ComputeAcceptance, DoubleBufferingOverlapsOperandTrafficWithCompute) {
  const char* yaml = "name: t\n"
                     "sram: {size: 1MiB, buffer_space: 64KiB}\n"
                     "ddr: {channels: 4}\n"
                     "compute: {units: 1}\n";
  const OpSpec op = test::matmul(1024, 1024, 1024);
  const auto run = run_one(yaml, op, {1 << 20, 1 << 20}, 1 << 20);
  const double compute = run.unit_stat("busy_ns");
  const double memory = run.unit_stat("memory_active_ns");
  const double execute = run.execute_ns();
  std::printf("1024^3 matmul: execute %.1f us, compute %.1f us, DMA active %.1f us, "
              "sum %.1f us; %.0f tiles\n",
              execute / 1e3, compute / 1e3, memory / 1e3, (compute + memory) / 1e3,
              run.unit_stat("tiles"));
  ASSERT_GT(run.unit_stat("tiles"), 4);
  // Both matter: neither is negligible next to the other.
  EXPECT_GT(memory, 0.3 * compute);
  EXPECT_GE(execute, std::max(compute, memory));
  EXPECT_LE(execute, 1.15 * std::max(compute, memory));
  EXPECT_LT(execute, 0.85 * (compute + memory));
}

} // namespace
} // namespace npu
