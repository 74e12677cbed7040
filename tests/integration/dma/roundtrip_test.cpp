// Whole platform: bytes survive host -> DDR -> SRAM -> DDR -> host through the DMA.
// Simulation sets the 1 ps time resolution itself; calling sc_set_time_resolution here as
// well would be a SystemC error ("already specified"), so these tests do not.
#include "platform/platform.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npu {
namespace {

// `ddr_reads`: how many times each byte is read from DDR at least.
void round_trip(const std::string& yaml, uint64_t bytes, int ddr_reads = 3) {
  Simulation sim(test::config_from_yaml(yaml));
  const std::vector<uint8_t> input = test::pattern(bytes, bytes);
  std::vector<uint8_t> output(bytes, 0);
  std::vector<uint8_t> in_sram(bytes, 0);
  RunReport report = sim.run([&](Runtime& rt) {
    const Buffer host_in = rt.malloc(bytes, MemoryKind::Host);
    const Buffer ddr_a = rt.malloc(bytes, MemoryKind::Ddr);
    const Buffer sram = rt.malloc(bytes, MemoryKind::Sram);
    const Buffer ddr_b = rt.malloc(bytes, MemoryKind::Ddr);
    const Buffer host_out = rt.malloc(bytes, MemoryKind::Host);
    rt.write(host_in, input.data(), bytes);
    rt.memcpy(ddr_a, host_in, bytes);
    rt.memcpy(sram, ddr_a, bytes);
    rt.read(sram, in_sram.data(), bytes); // the data really is in the SRAM now
    rt.memcpy(ddr_b, sram, bytes);
    rt.memcpy(host_out, ddr_b, bytes);
    rt.read(host_out, output.data(), bytes);
    for (const auto& b : {host_in, ddr_a, sram, ddr_b, host_out})
      rt.free(b);
  });
  EXPECT_TRUE(in_sram == input) << "SRAM copy differs";
  EXPECT_TRUE(output == input) << "round trip is not bit-identical";
  EXPECT_EQ(test::stat(report.blocks, "dma", "bytes"), 4.0 * static_cast<double>(bytes));
  EXPECT_EQ(test::stat(report.blocks, "dma", "transfers"), 4);
  EXPECT_EQ(test::stat(report.blocks, "host", "copies"), 4);
  // Two copies read DDR into or out of SRAM: SRAM saw one write and one read of each byte.
  EXPECT_EQ(test::stat(report.blocks, "sram", "bytes"), 2.0 * static_cast<double>(bytes));
  EXPECT_GE(test::stat(report.blocks, "ddr", "read_bytes"), ddr_reads * static_cast<double>(bytes));
  EXPECT_GT(report.simulated_ps, 0u);
  EXPECT_TRUE(report.launches.empty());
}

TEST(RoundTrip, HostDdrSramDdrHostIsBitIdentical) {
  round_trip("name: t\ncompute: {units: 2}\n", 48 << 10);
}

TEST(RoundTrip, OddSizeIsBitIdentical) {
  // Not a multiple of the DMA burst, the DDR interleave or the SRAM bank width.
  round_trip("name: t\ncompute: {units: 2}\n", 40003);
}

TEST(RoundTrip, SmallBurstsAndTwoDdrChannelsAreBitIdentical) {
  round_trip("name: t\ncompute: {units: 2}\ndma: {burst: 64B, channels: 1}\nddr: {channels: 2}\n",
             30001);
}

// A discrete card: the host's copies cross the PCIe link, DDR is read by the DMA twice.
TEST(RoundTrip, OverPcieIsBitIdentical) {
  round_trip("name: t\ncompute: {units: 2}\ninterconnect: {pcie: {enabled: true}}\n", 48 << 10, 2);
}

// The burst path (non-blocking bursts, DDR answering over the backward path).
TEST(RoundTrip, BurstPathOverPcieIsBitIdentical) {
  round_trip("name: t\ncompute: {units: 2}\n"
             "interconnect: {granularity: burst, pcie: {enabled: true}}\n",
             40003, 2);
}

TEST(RoundTrip, BurstPathWithSmallBurstsAndTwoDdrChannelsIsBitIdentical) {
  round_trip("name: t\ncompute: {units: 2}\ninterconnect: {granularity: burst}\n"
             "dma: {burst: 64B, channels: 1}\nddr: {channels: 2}\n",
             30001);
}

} // namespace
} // namespace npu
