// Compute and SRAM energies against Accelergy's published per-action figures: the defaults
// the shipped NPU configs get stay within the factors docs/validation.md ("Compute and SRAM
// energy vs Accelergy") measures and justifies. Both sides are at 45 nm: the configs have
// no `technology` section, Accelergy's Aladdin tables are used unscaled at 45 nm and CACTI
// runs at 45 nm.
//
// Provenance of the reference figures:
// - MACs: Accelergy-Project/accelergy-aladdin-plug-in
//   5e2e1263ddcc896ba3b8ce95954d76cdeebe03ab, data/multiplier.csv (32-bit integer
//   multiplier 12.68 pJ), data/adder.csv (32-bit adder 0.21 pJ), data/fp_sp_multiplier.csv
//   (35.3 pJ), data/fp_sp_adder.csv (16.679 pJ), each the 1 ns row (a clock of 1 GHz or
//   faster), scaled by width as aladdin_table.py does: multipliers with the square of the
//   width, adders linearly (fp: exponent + mantissa bits, taken as the format's width).
// - SRAM: CACTI (HewlettPackard/cacti 1ffd8dfb10303d306ecd8d215320aea07651e878) called as
//   Accelergy-Project/accelergy-cacti-plug-in 291018b12cc9cd467168973fc47528670e1480ce calls
//   it (class CactiSRAM: its default_cfg.cfg, one read-write port, one bank, 45 nm), through
//   validation/energy/cacti_sram.py. That script gives the two 45 nm SRAMs of the
//   Timeloop+Accelergy exercises' reference outputs to the digit
//   (Accelergy-Project/timeloop-accelergy-exercises 2d5510807128e9bd5f1cad0705cdf2ec4612fd4e,
//   workspace/example_designs/example_designs/*/ref_outputs/default_problem/
//   timeloop-mapper.accelergy.log: simple_weight_stationary shared_glb 64 bits x 16384
//   read 32.2859 / write 26.065 pJ; simba_like GlobalBuffer 256 bits x 2048 read 51.7987 /
//   write 66.2387 pJ).
#include "models/common/energy_params.h"
#include "platform/platform_config.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

PlatformConfig shipped(const std::string& name) {
  return load_platform_config(std::string(NPU_SOURCE_DIR) + "/configs/" + name + ".yaml", {});
}

/// `ours` / `reference` within [low, high].
void expect_ratio(double ours, double reference, double low, double high, const std::string& what) {
  EXPECT_GE(ours / reference, low)
      << what << ": ours " << ours << " pJ, Accelergy " << reference << " pJ";
  EXPECT_LE(ours / reference, high)
      << what << ": ours " << ours << " pJ, Accelergy " << reference << " pJ";
}

// Accelergy's Aladdin MACs at 45 nm, pJ: the multiplier scaled from 32 bits by the square of
// the width, the adder linearly.
constexpr double kAladdinIntMult32Pj = 12.68;
constexpr double kAladdinIntAdd32Pj = 0.21;
constexpr double kAladdinFpMult32Pj = 35.3;
constexpr double kAladdinFpAdd32Pj = 16.679;
/// int8 x int8 into a 32-bit accumulator, as npusim's int8 MAC: 0.7925 + 0.21.
constexpr double kAladdinInt8MacPj = kAladdinIntMult32Pj / 16 + kAladdinIntAdd32Pj;
/// 16-bit floating point (fp16, bf16): 8.825 + 8.3395.
constexpr double kAladdinFp16MacPj = kAladdinFpMult32Pj / 4 + kAladdinFpAdd32Pj / 2;
constexpr double kAladdinFp32MacPj = kAladdinFpMult32Pj + kAladdinFpAdd32Pj;

// Horowitz's figures are the arithmetic alone, Aladdin's synthesised, pipelined units: a MAC
// default is at most Aladdin's, and no further below it than the measured gaps rounded up,
// 3.3x for int8 and 11.3-11.4x for floating point.
constexpr double kIntMacLow = 1.0 / 4;
constexpr double kFpMacLow = 1.0 / 12;

TEST(EnergyVsAccelergy, MacPerDataType) {
  for (const char* name : {"edge-npu", "datacenter-npu"}) {
    const MacEnergy& mac = shipped(name).compute.energy.mac;
    const std::string n = name;
    expect_ratio(mac.int8_pj, kAladdinInt8MacPj, kIntMacLow, 1, n + " int8 MAC");
    expect_ratio(mac.fp16_pj, kAladdinFp16MacPj, kFpMacLow, 1, n + " fp16 MAC");
    expect_ratio(mac.bf16_pj, kAladdinFp16MacPj, kFpMacLow, 1, n + " bf16 MAC");
    expect_ratio(mac.fp32_pj, kAladdinFp32MacPj, kFpMacLow, 1, n + " fp32 MAC");
  }
}

// CACTI through Accelergy's plug-in at 45 nm, pJ per access: {read, write}.
struct Cacti {
  double read_pj;
  double write_pj;
};
constexpr Cacti k32KibBy16B{20.3074, 27.5274};  ///< 128 bits x 2048: edge-npu's SRAM bank
constexpr Cacti k33KibBy16B{20.6392, 28.0928};  ///< 128 bits x 2112: datacenter-npu's bank
constexpr Cacti k32KibBy8B{17.0418, 15.3975};   ///< 64 bits x 4096: icache lookup
constexpr Cacti k32KibBy64B{39.9081, 100.314};  ///< 512 bits x 512: edge-npu icache fill
constexpr Cacti k32KibBy128B{115.973, 175.677}; ///< 1024 bits x 256: datacenter-npu fill
constexpr Cacti k128KibBy8B{32.2859, 26.065};   ///< the exercises' simple_weight_stationary
constexpr Cacti k64KibBy32B{51.7987, 66.2387};  ///< the exercises' simba_like

// Horowitz's 64-bit reads are 1.07-1.63x CACTI's, so npusim's 64-bit accesses may be up to
// 1.7x CACTI's; it scales them linearly with the width, CACTI less than linearly, and its
// wider accesses reach 2.13x (a 32-byte read): up to 2.5x. None is below CACTI's. A default
// halved or doubled fails in every case.
constexpr double kSramLow = 1;
constexpr double kSram64BitHigh = 1.7;
constexpr double kSramWideHigh = 2.5;

TEST(EnergyVsAccelergy, SramBankAccessOfTheShippedConfigs) {
  const double edge = shipped("edge-npu").sram.energy.access_pj;
  const double dc = shipped("datacenter-npu").sram.energy.access_pj;
  // npusim charges reads and writes alike: both must be in range.
  for (const double cacti : {k32KibBy16B.read_pj, k32KibBy16B.write_pj})
    expect_ratio(edge, cacti, kSramLow, kSramWideHigh, "edge-npu SRAM bank (32 KiB, 16 B)");
  for (const double cacti : {k33KibBy16B.read_pj, k33KibBy16B.write_pj})
    expect_ratio(dc, cacti, kSramLow, kSramWideHigh, "datacenter-npu SRAM bank (33 KiB, 16 B)");
}

TEST(EnergyVsAccelergy, InstructionCacheLookupAndFill) {
  const ICacheEnergy edge = shipped("edge-npu").icache.energy;
  const ICacheEnergy dc = shipped("datacenter-npu").icache.energy;
  expect_ratio(edge.lookup_pj, k32KibBy8B.read_pj, kSramLow, kSram64BitHigh, "edge-npu lookup");
  expect_ratio(dc.lookup_pj, k32KibBy8B.read_pj, kSramLow, kSram64BitHigh, "datacenter-npu lookup");
  expect_ratio(edge.fill_pj, k32KibBy64B.write_pj, kSramLow, kSramWideHigh, "edge-npu fill");
  expect_ratio(dc.fill_pj, k32KibBy128B.write_pj, kSramLow, kSramWideHigh, "datacenter-npu fill");
}

// The exercises' two 45 nm buffers, as npusim would charge an SRAM of their shape.
TEST(EnergyVsAccelergy, PublishedTimeloopExerciseBuffers) {
  for (const double cacti : {k128KibBy8B.read_pj, k128KibBy8B.write_pj})
    expect_ratio(sram_access_pj(128 << 10, 8), cacti, kSramLow, kSram64BitHigh, "128 KiB x 8 B");
  for (const double cacti : {k64KibBy32B.read_pj, k64KibBy32B.write_pj})
    expect_ratio(sram_access_pj(64 << 10, 32), cacti, kSramLow, kSramWideHigh, "64 KiB x 32 B");
}

} // namespace
} // namespace npu
