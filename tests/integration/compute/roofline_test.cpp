// The roofline acceptance of the tile planner on edge-npu as shipped: a 4096^3 int8
// matmul on all four units moves at most 1.2x the bytes of the best tiling that fits
// a unit's SRAM partition (found here by brute force), and executes within 1.3x of its
// roofline bound (the larger of its MACs at the array's peak and those bytes at the
// DDR's peak).
#include "models/compute/tiling.h"
#include "platform/platform.h"
#include "report/report.h"
#include "tests/integration/compute/compute_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace npu {
namespace {

constexpr uint64_t kN = 4096;

PlatformConfig edge() {
  return load_platform_config(std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml", {});
}

uint64_t partition_of(const PlatformConfig& c) {
  return (c.sram.size_bytes - c.sram.buffer_bytes) / c.compute.units / 64 * 64;
}

// DDR bytes of an mt x nt output tiling of the 4096^3 int8 matmul: A is read once per
// column block, B once per row block, C written once.
uint64_t tiling_bytes(uint64_t mt, uint64_t nt) {
  const uint64_t blocks_m = (kN + mt - 1) / mt, blocks_n = (kN + nt - 1) / nt;
  return kN * kN * blocks_n + kN * kN * blocks_m + kN * kN;
}

// The fewest bytes of any tiling whose tiles fit `partition`: double-buffered A and B
// blocks and, when the reduction is split, one result block and a 4-byte accumulator
// (at kt = 1, the smallest such tile); whole-k tiles keep two result blocks. The bytes
// depend only on mt and nt, so every (mt, nt) is tried.
uint64_t best_bytes(uint64_t partition) {
  uint64_t best = UINT64_MAX;
  for (uint64_t mt = 1; mt <= kN; ++mt)
    for (uint64_t nt = 1; nt <= kN; ++nt) {
      const uint64_t split = 2 * (mt + nt) + 5 * mt * nt;
      const uint64_t whole = 2 * (mt + nt) * kN + 2 * mt * nt;
      if (split > partition && whole > partition)
        break; // larger nt only grows the tile
      best = std::min(best, tiling_bytes(mt, nt));
    }
  return best;
}

TEST(Roofline, Matmul4096OnEdgeNpuMovesAtMostOnePointTwoTimesTheBestBytes) {
  const PlatformConfig config = edge();
  const uint64_t partition = partition_of(config);
  const PlanTarget target = plan_target_of(config, partition);
  const OpSpec op = test::matmul(kN, kN, kN);
  uint64_t bytes = 0;
  std::string shape;
  for (uint32_t share = 0; share < config.compute.units; ++share) {
    const TilePlan plan = plan_tiles(op, target, config.compute.units, share);
    EXPECT_LE(plan.footprint_bytes(), partition);
    const OpWork w = plan.totals();
    bytes += w.load_bytes + w.store_bytes;
    shape = plan.shape();
  }
  const uint64_t best = best_bytes(partition);
  std::printf("4096^3 on edge-npu: %s moves %.3f GB, the best tiling that fits %.3f GB "
              "(%.3fx)\n",
              shape.c_str(), bytes / 1e9, best / 1e9, static_cast<double>(bytes) / best);
  EXPECT_LE(static_cast<double>(bytes), 1.2 * static_cast<double>(best));
  EXPECT_GE(bytes, best);
}

TEST(Roofline, Matmul4096OnEdgeNpuExecutesWithinOnePointThreeTimesItsBound) {
  const PlatformConfig config = edge();
  Simulation sim(config);
  const OpSpec op = test::matmul(kN, kN, kN);
  const RunReport report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(test::kernel("mm", op, config.compute.units));
    rt.launch(k, {rt.malloc(kN * kN), rt.malloc(kN * kN), rt.malloc(kN * kN)});
  });
  const nlohmann::ordered_json doc = to_json(report);
  const auto& kernel = doc["kernels"]["mm"];
  const auto& tiling = kernel["tiling"][0];
  // The bound is the larger of the MACs at the four 32 x 32 arrays' peak (1 GHz) and
  // the bytes the tiling moves at the DDR's peak (25.6 GB/s).
  const double compute_ns = 4096.0 * 4096 * 4096 / (4 * 1024) / 1e9 * 1e9;
  EXPECT_NEAR(tiling["compute_bound_ns"].get<double>(), compute_ns, 1e-6 * compute_ns);
  double bytes = tiling["stored_bytes"].get<double>();
  for (const auto& o : tiling["operands"])
    bytes += o["loaded_bytes"].get<double>();
  EXPECT_NEAR(tiling["memory_bound_ns"].get<double>(), bytes / 25.6, 1e-6 * bytes);
  const double ratio = kernel["roofline"]["execute_over_bound"].get<double>();
  std::printf("4096^3 on edge-npu: %s, execute %.3f ms, bound %.3f ms (compute %.3f, "
              "memory %.3f): %.3fx\n",
              tiling["shape"].get<std::string>().c_str(),
              kernel["roofline"]["execute_ns"].get<double>() / 1e6,
              kernel["roofline"]["bound_ns"].get<double>() / 1e6, compute_ns / 1e6,
              bytes / 25.6 / 1e6, ratio);
  EXPECT_LE(ratio, 1.3);
  EXPECT_GE(ratio, 1.0);
}

} // namespace
} // namespace npu
