// membench's four streams on DDR4-3200 through the whole DDR block and membench's engine:
// the transaction-level DRAM (ddr.model: transaction) against the cycle-approximate
// controller.
#include "cli/membench.h"
#include "config/node.h"
#include "platform/platform_config.h"

#include <gtest/gtest.h>

#include <string>

namespace npu::test {
namespace {

DdrConfig ddr_config(const std::string& model, const std::string& extra = "") {
  const std::string text = "ddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: RoBaCoBg, "
                           "model: " +
                           model + extra + "}\n";
  return read_platform_config(cfg::parse_yaml_string(text, "t.yaml"), "t.yaml").ddr;
}

class MembenchAgreement : public ::testing::TestWithParam<std::string> {};

// membench's four streams on DDR4-3200: the transaction model within 5% of the cycle
// controller's bandwidth and DRAM energy.
TEST_P(MembenchAgreement, BandwidthAndEnergyWithinFivePercentOfTheCycleModel) {
  constexpr uint64_t kRequests = 100000;
  const MembenchResult cycle =
      run_membench_engine(ddr_config("cycle"), membench_pattern(GetParam(), kRequests));
  const MembenchResult tx =
      run_membench_engine(ddr_config("transaction"), membench_pattern(GetParam(), kRequests));
  EXPECT_EQ(tx.requests, cycle.requests);
  EXPECT_EQ(tx.reads, cycle.reads);
  EXPECT_EQ(tx.writes, cycle.writes);
  EXPECT_NEAR(tx.bandwidth_gbps, cycle.bandwidth_gbps, 0.05 * cycle.bandwidth_gbps);
  EXPECT_NEAR(tx.energy.total_pj(), cycle.energy.total_pj(), 0.05 * cycle.energy.total_pj());
  EXPECT_NEAR(tx.refreshes, cycle.refreshes, 0.05 * cycle.refreshes + 1);
}

INSTANTIATE_TEST_SUITE_P(Streams, MembenchAgreement,
                         ::testing::Values("seq_read", "rand_read", "seq_write", "mix_rw"),
                         [](const auto& info) { return info.param; });

} // namespace
} // namespace npu::test
