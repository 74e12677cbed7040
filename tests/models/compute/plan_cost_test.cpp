// The planner's cost model (plain logic): which DDR channels and bank groups a pattern
// reaches, how a share's tiles pipeline through a unit's loader, array and storer, and
// what the busy units share.
#include "models/compute/plan_internal.h"

#include <gtest/gtest.h>

namespace npu {
namespace {

// 32 channels of 64-byte lines interleaved first, then 4 bank groups: 128 ways, one
// every 64 bytes, the pattern repeating every 8 KiB.
PlanTarget interleaved(bool hashed = false) {
  PlanTarget t;
  t.ddr_access_bytes = 64;
  t.ddr_channel_shift = 6;
  t.ddr_channel_bits = 5;
  t.ddr_group_shift = 11;
  t.ddr_group_bits = 2;
  t.ddr_interleave = 128;
  t.ddr_hashed = hashed;
  t.ddr_bytes_per_s = 1e12;
  t.ddr_activates_per_s = 1e12; // not the limit here, nor the DMA:
  t.latency_s = 1e-12;
  t.dma_channels = 64;
  return t;
}

TEST(PlanCost, RowsOneInterleaveApartReachOnlyTheWaysOfOneRow) {
  const CostModel cost(interleaved(), 1);
  // 128 bytes every 8 KiB: every row lands on the same two channels of one bank group.
  EXPECT_DOUBLE_EQ(cost.reach({2048, 128, 8192}), 2.0 / 128);
  // 128 bytes every 192: the rows walk over every channel and bank group.
  EXPECT_DOUBLE_EQ(cost.reach({2048, 128, 192}), 1.0);
  // Contiguous: 4 KiB reaches 64 lines' ways, 8 KiB all of them.
  EXPECT_DOUBLE_EQ(cost.reach({1, 4096, 4096}), 0.5);
  EXPECT_DOUBLE_EQ(cost.reach({1, 8192, 8192}), 1.0);
  // Hashed channels spread the rows; only their one bank group of four is left.
  EXPECT_DOUBLE_EQ(CostModel(interleaved(true), 1).reach({2048, 128, 8192}), 0.25);
}

TEST(PlanCost, APatternReachingFewWaysMovesAtTheirShareOfThePeak) {
  const AccessPattern narrow{2048, 128, 8192}, wide{2048, 128, 192};
  const double bytes = 2048.0 * 128;
  // One unit: two of 128 ways; the wide pattern is at the peak (its DMA is not the limit).
  const CostModel one(interleaved(), 1);
  EXPECT_NEAR(one.transfer_seconds(narrow, 1), bytes / (1e12 * 2 / 128), 1e-12);
  EXPECT_LT(one.transfer_seconds(wide, 1), 2 * bytes / 1e12);
  // 16 units run 16 such tiles at once, at other addresses: 32 of the 128 ways.
  const CostModel sixteen(interleaved(), 16);
  EXPECT_NEAR(sixteen.transfer_seconds(narrow, 16), 16 * bytes / (1e12 * 32 / 128), 1e-12);
}

// An estimate of `tiles` tiles in `blocks` blocks, all traffic DDR loads.
Estimate estimate(double tiles, double blocks, double compute_cycles, double ddr_s, double bytes) {
  Estimate e;
  e.tiles = tiles;
  e.blocks = blocks;
  e.compute_cycles = compute_cycles;
  e.ddr_s = ddr_s;
  e.load_bytes = e.ddr_bytes = bytes;
  e.descriptors = tiles;
  return e;
}

PlanTarget fast_dma() {
  PlanTarget t;
  t.unit_hz = 1e9;
  t.ddr_bytes_per_s = 1e11;
  t.port_bytes_per_s = 1e15;
  t.dma_channels = 64;
  t.descriptor_s = 0;
  t.latency_s = 1e-9;
  return t;
}

TEST(PlanCost, FewerBlocksThanUnitsShareTheMemoryOnlyAmongTheBusyOnes) {
  // Two blocks of 10 us of traffic in all on eight units: the two busy units take it
  // at the whole bandwidth, not as if eight shared it (40 us).
  const CostModel cost(fast_dma(), 8);
  const Timing t = cost.timing(estimate(2, 2, 0, 10e-6, 1e6));
  EXPECT_NEAR(t.total, 10e-6, 0.5e-6);
  // Sixteen blocks on eight units: two each, the same 10 us shared by all eight.
  EXPECT_NEAR(cost.timing(estimate(16, 16, 0, 10e-6, 1e6)).total, 10e-6, 0.5e-6);
}

TEST(PlanCost, BufferedTilesOverlapAfterTheFirstLoad) {
  const CostModel cost(fast_dma(), 1);
  // Compute-bound: 10 tiles of 1000 cycles; the first load and last store add to them.
  Estimate e = estimate(10, 10, 10000, 1e-6, 1e5);
  e.first_load_s = 2e-6;
  e.last_store_s = 3e-6;
  EXPECT_NEAR(cost.timing(e).total, 2e-6 + 10e-6 + 3e-6, 0.1e-6);
  // Memory-bound: 40 us of traffic, then the last tile's compute. The first load is part
  // of the traffic, not added to it.
  e.ddr_s = 40e-6;
  EXPECT_NEAR(cost.timing(e).total, 40e-6 + 1e-6, 0.1e-6);
  // Single-buffered, nothing overlaps.
  PlanTarget single = fast_dma();
  single.buffers = 1;
  EXPECT_GT(CostModel(single, 1).timing(e).total, 50e-6);
}

TEST(PlanCost, TheSlowestShareOwnsTheLargestBlocks) {
  // Four blocks on four units; one holds 60% of the work (an uneven cut).
  const CostModel cost(fast_dma(), 4);
  Estimate e = estimate(4, 4, 40000, 0, 0);
  EXPECT_NEAR(cost.timing(e).compute, 10e-6, 1e-9);
  e.peak_share = 0.6;
  EXPECT_NEAR(cost.timing(e).compute, 24e-6, 1e-9);
}

} // namespace
} // namespace npu
