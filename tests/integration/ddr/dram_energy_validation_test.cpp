// DRAM energy against DRAMSys 5.1 with DRAMPower: the same requests through membench's
// engine, our total within 5% of DRAMSys's. docs/validation.md ("DRAM energy vs DRAMSys +
// DRAMPower") has the table and how to repeat it.
//
// Provenance of the reference figures:
// - DRAMSys tag v5.1 = 6b0146713a89b49eb9401fd3d50d36836ba2ab89 with its DRAMPower
//   (ebd9ff7, the classic DRAMPower 4 model), built as validation/ddr/README.md says.
// - memspec validation/ddr/configs/dramsys/memspec/DDR4-3200AA_8Gb_x8.json: the DDR4-3200
//   preset's timings, 8 x8 devices, and the currents of DRAMSys's MICRON_4Gb_DDR4-2400_8bit_A
//   (which npusim runs with here, as ddr.energy keys: the preset's own currents are the
//   Micron 8 Gb DDR4-3200 part's); address mapping am_ddr4_RoBaCoBg.json;
//   mcconfig grpfrfcfswm_rw32.json; simconfig power.json (PowerAnalysis on).
// - Traces: validation/ddr/gen_traces.py, streams e_* (20,000 requests; the generator below
//   is the same), to_stl.py (one request offered per memory clock).
// - Command line: validation/ddr/run_dramsys.sh e_STREAM power WORKDIR; the figure is
//   DRAMSys's "Total Energy" (DRAMPower's total x devices per rank). DRAMSys runs DRAMPower
//   without I/O and termination (libDRAMPower(memSpec, false)), so the comparison sets our
//   I/O energy to 0.
#include "cli/membench.h"
#include "config/node.h"
#include "platform/platform_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace npu {
namespace {

constexpr uint64_t kRequests = 20000;
constexpr uint64_t kSpanLines = (1ull << 30) / 64;

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// gen_traces.py's energy_streams().
std::vector<MembenchAccess> stream(const std::string& name) {
  std::vector<MembenchAccess> out(kRequests);
  for (uint64_t i = 0; i < kRequests; ++i) {
    MembenchAccess& a = out[i];
    if (name == "seq_read" || name == "seq_write") {
      a.addr = i * 64;
      a.is_write = name == "seq_write";
    } else {
      a.addr = splitmix64(i) % kSpanLines * 64;
      a.is_write = name == "mix_rw" && (splitmix64(kRequests + i) & 1) == 1;
    }
  }
  return out;
}

DdrConfig ddr4_without_io() {
  // The memspec's currents (those DRAMSys ran with); DRAMSys passes DRAMPower the VPP
  // rail's IPP0 only.
  const std::string text = "ddr: {preset: DDR4-3200, channels: 1, ranks: 1, mapping: RoBaCoBg,\n"
                           "      energy: {io_read_pj_per_bit: 0, io_write_pj_per_bit: 0,\n"
                           "               IDD0_mA: 60.75, IDD2N_mA: 38.25, IDD3N_mA: 44,\n"
                           "               IDD4R_mA: 184.5, IDD4W_mA: 168.75, IDD5_mA: 118,\n"
                           "               IDD02_mA: 4.05, IDD2N2_mA: 0, IDD3N2_mA: 0,\n"
                           "               IDD4R2_mA: 0, IDD4W2_mA: 0, IDD52_mA: 0}}\n";
  return read_platform_config(cfg::parse_yaml_string(text, "t.yaml"), "t.yaml").ddr;
}

struct Reference {
  const char* stream;
  double dramsys_total_pj;
};

class DramEnergyVsDramsys : public testing::TestWithParam<Reference> {};

TEST_P(DramEnergyVsDramsys, TotalWithinFivePercent) {
  const Reference& ref = GetParam();
  const MembenchResult r = run_membench_engine(ddr4_without_io(), stream(ref.stream));
  ASSERT_EQ(r.requests, kRequests);
  const double ours = r.energy.total_pj();
  EXPECT_NEAR(ours / ref.dramsys_total_pj, 1.0, 0.05)
      << ref.stream << ": ours " << ours << " pJ, DRAMSys " << ref.dramsys_total_pj << " pJ";
}

// DRAMSys 5.1 + DRAMPower "Total Energy", pJ (docs/validation.md).
INSTANTIATE_TEST_SUITE_P(
    Ddr4_3200, DramEnergyVsDramsys,
    testing::Values(Reference{"seq_read", 93224515.50}, Reference{"seq_write", 85719163.50},
                    Reference{"rand_read", 357814107.00}, Reference{"mix_rw", 357325072.50}),
    [](const testing::TestParamInfo<Reference>& info) { return std::string(info.param.stream); });

// The generator is gen_traces.py's: its first lines of e_mix_rw.
TEST(DramEnergyVsDramsysTraces, MatchTheGeneratedTraces) {
  const std::vector<MembenchAccess> mix = stream("mix_rw");
  EXPECT_EQ(mix[0].addr, 0x7736bc0u);
  EXPECT_FALSE(mix[0].is_write);
  EXPECT_EQ(mix[1].addr, 0x973040u);
  EXPECT_EQ(mix[2].addr, 0x25d5b380u);
  EXPECT_TRUE(mix[2].is_write);
  uint64_t writes = 0;
  for (const MembenchAccess& a : mix)
    writes += a.is_write;
  EXPECT_EQ(writes, 10004u);
}

} // namespace
} // namespace npu
