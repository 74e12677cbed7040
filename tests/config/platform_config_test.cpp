// The hardware configuration: defaults, strict checking with precise messages,
// extends and `--set` overrides, the shipped configs, and the energy sections.
#include "config/node.h"
#include "platform/energy_config.h"
#include "platform/platform_config.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace npu {
namespace {

using test::contains;
using test::input_error;
using test::TempDir;

PlatformConfig read_text(const std::string& text) {
  return read_platform_config(cfg::parse_yaml_string(text, "cfg.yaml"), "cfg.yaml");
}

// The error a config text gives, read from a real file; `path` receives its name.
InputError file_error(const TempDir& dir, const std::string& text, std::string* path,
                      const std::vector<std::string>& overrides = {}) {
  *path = dir.write("npu.yaml", text);
  return input_error([&] { load_platform_config(*path, overrides); });
}

TEST(PlatformConfigDefaults, EmptySectionsTakeDefaults) {
  for (const char* text : {"name: x\n", "name: x\ndma: {}\nsram:\ncompute: {array: {}}\n"}) {
    const PlatformConfig c = read_text(text);
    EXPECT_EQ(c.name, "x");
    EXPECT_EQ(c.file, "cfg.yaml");
    EXPECT_EQ(c.host.completion, CompletionMode::Interrupt);
    EXPECT_EQ(c.dma.channels, 4u);
    EXPECT_EQ(c.dma.burst_bytes, 256u);
    EXPECT_EQ(c.sram.size_bytes, 512u * 1024);
    EXPECT_EQ(c.sram.banks, 16u);
    EXPECT_EQ(c.icache.size_bytes, 32u * 1024);
    EXPECT_EQ(c.icache.line_bytes, 64u);
    EXPECT_EQ(c.icache.ways, 4u);
    EXPECT_EQ(c.scheduler.hw_queues, 8u);
    EXPECT_EQ(c.scheduler.policy, DispatchPolicyKind::Fifo);
    EXPECT_EQ(c.compute.units, 4u);
    EXPECT_EQ(c.compute.array.rows, 32u);
    EXPECT_EQ(c.compute.array.cols, 32u);
    EXPECT_DOUBLE_EQ(c.compute.frequency_hz, 1e9);
    EXPECT_EQ(c.ddr.preset, "LPDDR4-3200");
    EXPECT_EQ(c.ddr.channels, 1u);
    EXPECT_EQ(c.ddr.mapping, "RoBaCoBg");
    EXPECT_DOUBLE_EQ(c.ddr.data_rate_mts, 3200.0);
    EXPECT_EQ(c.ddr.bus_width_bits, 16u);
  }
}

TEST(PlatformConfigDefaults, EffectiveConfigListsEveryBlock) {
  const PlatformConfig c = read_text("name: x\n");
  ASSERT_TRUE(c.effective.is_object());
  EXPECT_EQ(c.effective["name"], "x");
  for (const auto& block : block_names())
    EXPECT_TRUE(c.effective.contains(block)) << block;
  EXPECT_EQ(c.effective["dma"]["channels"], 4);
  EXPECT_EQ(c.effective["sram"]["size"], "512KiB");
  EXPECT_EQ(c.effective["icache"]["line"], "64B");
  EXPECT_EQ(c.effective["compute"]["frequency"], "1GHz");
  EXPECT_EQ(c.effective["compute"]["array"]["rows"], 32);
  EXPECT_EQ(c.effective["ddr"]["data_rate"], "3.2GT/s");
  EXPECT_EQ(c.effective["host"]["driver_call"], "4us");
}

TEST(PlatformConfigDefaults, BlockNamesInPlatformOrder) {
  EXPECT_EQ(block_names(), (std::vector<std::string>{"host", "interconnect", "ddr", "dma", "sram",
                                                     "icache", "scheduler", "compute"}));
}

TEST(PlatformConfigDefaults, ValuesWithUnitsAreRead) {
  const PlatformConfig c = read_text("dma: {channels: 2, burst: 1KiB, setup_latency: 50ns}\n"
                                     "compute: {units: 8, array: {rows: 16, cols: 8}, "
                                     "frequency: 1.5GHz}\n"
                                     "ddr: {preset: DDR4-3200, channels: 2}\n"
                                     "scheduler: {policy: affinity}\n");
  EXPECT_EQ(c.dma.channels, 2u);
  EXPECT_EQ(c.dma.burst_bytes, 1024u);
  EXPECT_EQ(c.dma.setup_latency_ps, 50000u);
  EXPECT_EQ(c.compute.units, 8u);
  EXPECT_EQ(c.compute.array.rows, 16u);
  EXPECT_EQ(c.compute.array.cols, 8u);
  EXPECT_DOUBLE_EQ(c.compute.frequency_hz, 1.5e9);
  EXPECT_EQ(c.ddr.preset, "DDR4-3200");
  EXPECT_EQ(c.ddr.bus_width_bits, 64u);
  EXPECT_EQ(c.scheduler.policy, DispatchPolicyKind::Affinity);
  EXPECT_EQ(c.effective["compute"]["frequency"], "1.5GHz");
}

TEST(PlatformConfigDefaults, EmptyConfigRejected) {
  const InputError e = input_error([] { read_text(""); });
  EXPECT_TRUE(contains(e.what(), "cfg.yaml:1:1: error: empty config")) << e.what();
}

TEST(PlatformConfigErrors, MisspelledKeyIsOneLineWithPositionAndHint) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "name: t\ndma: {chanels: 4}\n", &path);
  const std::string what = e.what();
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  EXPECT_TRUE(contains(what, path + ":2:7")) << what;
  EXPECT_TRUE(contains(what, "dma.chanels")) << what;
  EXPECT_TRUE(contains(what, "did you mean 'channels'")) << what;
  EXPECT_EQ(e.key(), "dma.chanels");
  EXPECT_EQ(e.loc().line, 2);
  EXPECT_EQ(e.loc().column, 7);
}

TEST(PlatformConfigErrors, NegativeSize) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "sram: {size: -4KiB}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:14")) << what;
  EXPECT_TRUE(contains(what, "sram.size")) << what;
  EXPECT_TRUE(contains(what, "must not be negative")) << what;
}

TEST(PlatformConfigErrors, ZeroFrequency) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "compute: {frequency: 0GHz}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:22")) << what;
  EXPECT_TRUE(contains(what, "compute.frequency")) << what;
  EXPECT_TRUE(contains(what, "greater than zero")) << what;
}

TEST(PlatformConfigErrors, CacheLineNotPowerOfTwo) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "icache: {line: 48B}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:16")) << what;
  EXPECT_TRUE(contains(what, "icache.line")) << what;
  EXPECT_TRUE(contains(what, "power of two")) << what;
  EXPECT_TRUE(contains(what, "48B")) << what;
}

TEST(PlatformConfigErrors, UnknownTopLevelBlock) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "name: t\ndmaa: {}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":2:1")) << what;
  EXPECT_TRUE(contains(what, "dmaa")) << what;
  EXPECT_TRUE(contains(what, "did you mean 'dma'")) << what;
}

TEST(PlatformConfigErrors, UnknownKeyFarFromAnyListsChoices) {
  const InputError e = input_error([] { read_text("dma: {zzzzzz: 1}\n"); });
  EXPECT_TRUE(contains(e.what(), "dma.zzzzzz: unknown key; expected one of channels, burst"))
      << e.what();
}

TEST(PlatformConfigErrors, WrongTypeList) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "compute: {units: [1, 2]}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:18")) << what;
  EXPECT_TRUE(contains(what, "compute.units")) << what;
  EXPECT_TRUE(contains(what, "expected a whole number")) << what;
  EXPECT_TRUE(contains(what, "got a list")) << what;
}

TEST(PlatformConfigErrors, WrongTypeText) {
  const InputError e = input_error([] { read_text("compute: {units: four}\n"); });
  EXPECT_TRUE(contains(e.what(), "compute.units: expected a whole number, got 'four'")) << e.what();
}

TEST(PlatformConfigErrors, OutOfRange) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "compute: {units: 0}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:18")) << what;
  EXPECT_TRUE(contains(what, "compute.units: must be at least 1, got 0")) << what;
  const InputError high = input_error([] { read_text("dma: {channels: 65}\n"); });
  EXPECT_TRUE(contains(high.what(), "dma.channels: must be at most 64, got 65")) << high.what();
}

TEST(PlatformConfigErrors, UnknownEnumValue) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "scheduler: {policy: fifoo}\n", &path);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":1:21")) << what;
  EXPECT_TRUE(contains(what, "scheduler.policy")) << what;
  EXPECT_TRUE(contains(what, "unknown value 'fifoo'")) << what;
  EXPECT_TRUE(contains(what, "did you mean 'fifo'")) << what;
  EXPECT_TRUE(contains(what, "fifo, round_robin, least_loaded, affinity, priority")) << what;
}

TEST(PlatformConfigErrors, UnknownDdrPreset) {
  const InputError e = input_error([] { read_text("ddr: {preset: LPDDR4-3300}\n"); });
  EXPECT_TRUE(contains(e.what(), "ddr.preset")) << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean 'LPDDR4-3200'")) << e.what();
}

TEST(PlatformConfigErrors, SectionMustBeAMap) {
  const InputError e = input_error([] { read_text("name: t\ndma: 4\n"); });
  EXPECT_TRUE(
      contains(e.what(), "cfg.yaml:2:6: error: dma: expected a map of settings, got a value"))
      << e.what();
}

TEST(PlatformConfigErrors, NestedUnknownKey) {
  const InputError e = input_error([] { read_text("compute: {array: {rows: 8, colls: 8}}\n"); });
  EXPECT_TRUE(contains(e.what(), "compute.array.colls")) << e.what();
  EXPECT_TRUE(contains(e.what(), "did you mean 'cols'")) << e.what();
}

TEST(PlatformConfigErrors, InconsistentCombinations) {
  InputError e = input_error([] { read_text("sram: {size: 64KiB, buffer_space: 64KiB}\n"); });
  EXPECT_TRUE(contains(e.what(), "sram.buffer_space")) << e.what();
  EXPECT_TRUE(contains(e.what(), "must leave room")) << e.what();
  e = input_error([] { read_text("icache: {size: 128B, line: 64B, ways: 4}\n"); });
  EXPECT_TRUE(contains(e.what(), "icache.size: must hold at least one set")) << e.what();
  e = input_error([] { read_text("ddr: {write_high: 0.1, write_low: 0.5}\n"); });
  EXPECT_TRUE(contains(e.what(), "ddr.write_")) << e.what();
  e = input_error(
      [] { read_text("sram: {size: 16KiB, buffer_space: 8KiB}\ncompute: {units: 16}\n"); });
  EXPECT_TRUE(contains(e.what(), "compute.units")) << e.what();
  EXPECT_TRUE(contains(e.what(), "less than 1KiB of SRAM")) << e.what();
}

TEST(PlatformConfigOverrides, SetOverrideApplied) {
  TempDir dir;
  const std::string path = dir.write("npu.yaml", "name: t\ndma: {channels: 2}\n");
  const PlatformConfig c =
      load_platform_config(path, {"dma.channels=8", "compute.array.rows=16", "name=over"});
  EXPECT_EQ(c.dma.channels, 8u);
  EXPECT_EQ(c.compute.array.rows, 16u);
  EXPECT_EQ(c.name, "over");
  EXPECT_EQ(c.effective["dma"]["channels"], 8);
  EXPECT_EQ(c.file, path);
}

TEST(PlatformConfigOverrides, SetIntoEmptySection) {
  TempDir dir;
  const std::string path = dir.write("npu.yaml", "name: t\ndma:\n  # channels: 2\n");
  EXPECT_EQ(load_platform_config(path, {}).dma.channels, 4u); // empty section: defaults
  const PlatformConfig c = load_platform_config(path, {"dma.channels=8"});
  EXPECT_EQ(c.dma.channels, 8u);
}

TEST(PlatformConfigOverrides, LaterOverrideWins) {
  TempDir dir;
  const std::string path = dir.write("npu.yaml", "name: t\n");
  const PlatformConfig c = load_platform_config(path, {"dma.channels=8", "dma.channels=3"});
  EXPECT_EQ(c.dma.channels, 3u);
}

TEST(PlatformConfigOverrides, BadOverrideKeyReported) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "name: t\n", &path, {"dma.chanels=4"});
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "--set dma.chanels=4")) << what;
  EXPECT_TRUE(contains(what, "dma.chanels")) << what;
  EXPECT_TRUE(contains(what, "did you mean 'channels'")) << what;
}

TEST(PlatformConfigOverrides, BadOverrideValueReported) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "name: t\n", &path, {"compute.units=0"});
  EXPECT_TRUE(contains(e.what(), "--set compute.units=0")) << e.what();
  EXPECT_TRUE(contains(e.what(), "must be at least 1")) << e.what();
}

TEST(PlatformConfigOverrides, OverrideInsideScalarReported) {
  TempDir dir;
  std::string path;
  const InputError e = file_error(dir, "name: t\n", &path, {"name.x=1"});
  EXPECT_TRUE(contains(e.what(), "is not a section")) << e.what();
}

TEST(PlatformConfigExtends, ChildOfShippedConfig) {
  TempDir dir;
  const std::string base = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml";
  const std::string path =
      dir.write("mine.yaml", "extends: " + base + "\nname: mine\ncompute: {units: 2}\n");
  const PlatformConfig c = load_platform_config(path, {});
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.compute.units, 2u);
  EXPECT_EQ(c.compute.array.rows, 32u); // from the parent
  EXPECT_EQ(c.ddr.channels, 4u);        // from the parent
  EXPECT_FALSE(c.effective.contains("extends"));
}

// Every clocked block's frequency, in registry order: dma, sram, icache, scheduler, compute.
std::vector<double> block_clocks_hz(const PlatformConfig& c) {
  return {c.dma.frequency_hz, c.sram.frequency_hz, c.icache.frequency_hz, c.scheduler.frequency_hz,
          c.compute.frequency_hz};
}

TEST(PlatformConfigClock, BlocksFollowTheTopLevelClock) {
  EXPECT_DOUBLE_EQ(read_text("name: x\n").clock_hz, 1e9);
  for (const double hz : block_clocks_hz(read_text("name: x\n")))
    EXPECT_DOUBLE_EQ(hz, 1e9);
  const PlatformConfig c = read_text("name: x\nclock: 2.5GHz\n");
  EXPECT_DOUBLE_EQ(c.clock_hz, 2.5e9);
  for (const double hz : block_clocks_hz(c))
    EXPECT_DOUBLE_EQ(hz, 2.5e9);
  // The effective config carries the clock and each block's frequency.
  EXPECT_EQ(c.effective["clock"], "2.5GHz");
  for (const char* block : {"dma", "sram", "icache", "scheduler", "compute"})
    EXPECT_EQ(c.effective[block]["frequency"], "2.5GHz") << block;
}

TEST(PlatformConfigClock, AnExplicitFrequencyWins) {
  const PlatformConfig c =
      read_text("name: x\nclock: 2GHz\ncompute: {frequency: 1.5GHz}\nsram: {frequency: 800MHz}\n");
  EXPECT_DOUBLE_EQ(c.compute.frequency_hz, 1.5e9);
  EXPECT_DOUBLE_EQ(c.sram.frequency_hz, 0.8e9);
  EXPECT_DOUBLE_EQ(c.dma.frequency_hz, 2e9);
  EXPECT_DOUBLE_EQ(c.icache.frequency_hz, 2e9);
  EXPECT_DOUBLE_EQ(c.scheduler.frequency_hz, 2e9);
}

TEST(PlatformConfigClock, SetClockMovesEveryBlockWithoutItsOwnFrequency) {
  TempDir dir;
  const std::string path =
      dir.write("npu.yaml", "name: t\nclock: 1GHz\nscheduler: {frequency: 500MHz}\n");
  const PlatformConfig c = load_platform_config(path, {"clock=2GHz"});
  EXPECT_EQ(block_clocks_hz(c), (std::vector<double>{2e9, 2e9, 2e9, 0.5e9, 2e9}));
  const PlatformConfig one = load_platform_config(path, {"compute.frequency=3GHz"});
  EXPECT_EQ(block_clocks_hz(one), (std::vector<double>{1e9, 1e9, 1e9, 0.5e9, 3e9}));
}

TEST(PlatformConfigClock, BadClockIsLocated) {
  TempDir dir;
  std::string path;
  const InputError unit = file_error(dir, "name: t\nclock: 1.2GZ\n", &path);
  EXPECT_TRUE(contains(unit.what(), path + ":2:8: error: clock: unknown unit 'GZ'")) << unit.what();
  const InputError typo = file_error(dir, "name: t\nclok: 1GHz\n", &path);
  EXPECT_TRUE(contains(typo.what(), path + ":2:1: error: clok: unknown key")) << typo.what();
  EXPECT_TRUE(contains(typo.what(), "did you mean 'clock'")) << typo.what();
  const InputError set = file_error(dir, "name: t\n", &path, {"clock=0GHz"});
  EXPECT_TRUE(contains(set.what(), "--set clock=0GHz")) << set.what();
  EXPECT_TRUE(contains(set.what(), "greater than zero")) << set.what();
}

// The shipped configs keep the clocks they had as per-block frequencies.
TEST(PlatformConfigShipped, ClocksOfTheShippedConfigs) {
  const std::string dir = std::string(NPU_SOURCE_DIR) + "/configs/";
  const PlatformConfig edge = load_platform_config(dir + "edge-npu.yaml", {});
  EXPECT_EQ(block_clocks_hz(edge), std::vector<double>(5, 1e9));
  const PlatformConfig gpu = load_platform_config(dir + "datacenter-gpu.yaml", {});
  EXPECT_EQ(block_clocks_hz(gpu), std::vector<double>(5, 1.83e9));
  const PlatformConfig npu = load_platform_config(dir + "datacenter-npu.yaml", {});
  EXPECT_EQ(block_clocks_hz(npu), (std::vector<double>{1.83e9, 1.83e9, 1.83e9, 1.83e9, 1.8e9}));
}

TEST(PlatformConfigShipped, EdgeNpuLoads) {
  const std::string path = std::string(NPU_SOURCE_DIR) + "/configs/edge-npu.yaml";
  const PlatformConfig c = load_platform_config(path, {});
  EXPECT_EQ(c.name, "edge-npu");
  EXPECT_EQ(c.ddr.preset, "LPDDR4-3200");
  EXPECT_EQ(c.ddr.channels, 4u);
  EXPECT_EQ(c.sram.size_bytes, 512u * 1024);
  EXPECT_EQ(c.icache.size_bytes, 32u * 1024);
  EXPECT_EQ(c.compute.units, 4u);
  EXPECT_EQ(c.host.interrupt_latency_ps, 25000000u);
  EXPECT_EQ(c.effective["ddr"]["preset"], "LPDDR4-3200");
  EXPECT_TRUE(contains(c.effective.dump(), "\"preset\":\"LPDDR4-3200\""));
}

// The `technology` and `energy` sections: defaults from Horowitz's 45 nm table, scaling
// to a node and supply, values given taken as they are, located errors.
TEST(EnergyConfig, NoTechnologySectionGivesTheDefaultsAndSaysSo) {
  const PlatformConfig c = read_text("name: x\n");
  EXPECT_FALSE(c.technology.from_config);
  EXPECT_EQ(describe_technology(c.technology), "defaults (45 nm, 0.9 V)");
  EXPECT_DOUBLE_EQ(c.compute.energy.mac.int8_pj, 0.3); // 0.2 mult + 0.1 int32 add
  EXPECT_DOUBLE_EQ(c.compute.energy.mac.fp32_pj, 4.6); // 3.7 + 0.9
  EXPECT_DOUBLE_EQ(c.host.energy.busy_w, 2);
  EXPECT_TRUE(c.energy_enabled);
  EXPECT_TRUE(c.effective.contains("technology"));
  EXPECT_TRUE(c.effective["energy"].contains("compute"));
}

TEST(EnergyConfig, SramEnergyFollowsHorowitzPoints) {
  EXPECT_NEAR(sram_access_pj(8 << 10, 8), 10, 1e-9);
  EXPECT_NEAR(sram_access_pj(32 << 10, 8), 20, 1e-9);
  EXPECT_NEAR(sram_access_pj(1 << 20, 8), 100, 1e-9);
  EXPECT_NEAR(sram_access_pj(32 << 10, 16), 40, 1e-9); // twice as wide
  // edge-npu's default SRAM: 512 KiB in 16 banks of 32 KiB, 16 B wide.
  EXPECT_NEAR(read_text("name: x\n").sram.energy.access_pj, 40, 1e-9);
}

TEST(EnergyConfig, TechnologyScalesDefaultsButNotGivenValues) {
  const PlatformConfig c = read_text("technology: {node_nm: 22.5, voltage_v: 0.45}\n"
                                     "energy: {compute: {mac_fp16_pj: 1.0}}\n");
  EXPECT_TRUE(c.technology.from_config);
  EXPECT_DOUBLE_EQ(c.technology.scale(), 0.125); // 0.5 x 0.5^2
  EXPECT_EQ(describe_technology(c.technology), "22.5 nm, 0.45 V");
  EXPECT_DOUBLE_EQ(c.compute.energy.mac.int8_pj, 0.3 * 0.125);
  EXPECT_DOUBLE_EQ(c.compute.energy.mac.fp16_pj, 1.0);
  EXPECT_DOUBLE_EQ(c.host.energy.busy_w, 2); // the host is another chip: not scaled
  EXPECT_DOUBLE_EQ(c.interconnect.pcie.energy.per_bit_pj, 5);
}

TEST(EnergyConfig, EnabledSwitch) {
  EXPECT_FALSE(read_text("energy: {enabled: false}\n").energy_enabled);
}

TEST(EnergyConfigErrors, MisspelledKeyHasPositionAndHint) {
  TempDir dir;
  const std::string path = dir.write("npu.yaml", "name: t\nenergy:\n  dma: {per_bite_pj: 2}\n");
  const InputError e = input_error([&] { load_platform_config(path, {}); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, path + ":3:9")) << what;
  EXPECT_EQ(e.key(), "energy.dma.per_bite_pj");
  EXPECT_TRUE(contains(what, "did you mean 'per_byte_pj'")) << what;
}

TEST(EnergyConfigErrors, UnknownTechnologyKey) {
  const InputError e = input_error([] { read_text("technology: {nod_nm: 7}\n"); });
  EXPECT_EQ(e.key(), "technology.nod_nm");
  EXPECT_TRUE(contains(e.what(), "did you mean 'node_nm'")) << e.what();
}

TEST(EnergyConfigErrors, WrongTypeAndRange) {
  const InputError text = input_error([] { read_text("energy: {host: {busy_w: lots}}\n"); });
  EXPECT_EQ(text.key(), "energy.host.busy_w");
  EXPECT_TRUE(contains(text.what(), "expected a number")) << text.what();
  const InputError negative = input_error([] { read_text("energy: {sram: {access_pj: -1}}\n"); });
  EXPECT_EQ(negative.key(), "energy.sram.access_pj");
  const InputError node = input_error([] { read_text("technology: {node_nm: 1000}\n"); });
  EXPECT_EQ(node.key(), "technology.node_nm");
  const InputError section = input_error([] { read_text("energy: {compute: 3}\n"); });
  EXPECT_EQ(section.key(), "energy.compute");
}

} // namespace
} // namespace npu
