// The `ddr` section's controller keys: presets, timing overrides, mapping lists, errors.
#include "models/ddr/ddr_config.h"
#include "tests/models/block_config.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace npu {
namespace {

/// The `ddr` section of a config and the effective values read from it.
struct DdrRead {
  DdrConfig ddr;
  nlohmann::ordered_json effective = nlohmann::ordered_json::object();
};

DdrRead read_text(const std::string& text) {
  DdrRead r;
  r.ddr = test::block_config(text, "ddr", read_ddr_config, &r.effective);
  return r;
}

std::string error_of(const std::string& text) {
  try {
    read_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DdrConfig, DefaultsGiveTheControllerItsSpecMappingAndQueues) {
  const DdrConfig c = read_text("name: t\n").ddr;
  EXPECT_EQ(c.spec.name, "LPDDR4-3200");
  EXPECT_EQ(c.spec.bus_width_bits, 16u);
  EXPECT_EQ(c.spec.burst_length, 32u);
  EXPECT_EQ(c.mapping, "RoBaCoBg");
  EXPECT_EQ(c.mapping_fields, *dram_mapping_scheme("RoBaCoBg"));
  EXPECT_EQ(c.controller.read_queue, 32u);
  EXPECT_EQ(c.controller.write_queue, 32u);
  EXPECT_DOUBLE_EQ(c.controller.write_high, 0.8);
  EXPECT_DOUBLE_EQ(c.controller.write_low, 0.2);
  EXPECT_EQ(c.controller.page_policy, DramControllerConfig::PagePolicy::Open);
  EXPECT_EQ(c.controller.scheduler, DramControllerConfig::Scheduler::FrFcfs);
  EXPECT_TRUE(c.controller.refresh);
  EXPECT_EQ(read_text("ddr: {scheduler: fcfs}\n").ddr.controller.scheduler,
            DramControllerConfig::Scheduler::Fcfs);
  // The older keys keep their values.
  EXPECT_EQ(c.row_bytes, 2048u);
  EXPECT_EQ(c.banks, 8u);
}

TEST(DdrConfig, PresetsKeepTheirDataRateAndBusWidth) {
  struct Want {
    const char* preset;
    double mts;
    uint32_t bits;
  };
  for (const Want& w : {Want{"DDR4-3200", 3200, 64}, Want{"LPDDR4-3200", 3200, 16},
                        Want{"LPDDR5-6400", 6400, 16}, Want{"HBM2E", 3200, 128}}) {
    const DdrConfig c = read_text(std::string("ddr: {preset: ") + w.preset + "}\n").ddr;
    EXPECT_DOUBLE_EQ(c.data_rate_mts, w.mts) << w.preset;
    EXPECT_EQ(c.bus_width_bits, w.bits) << w.preset;
    EXPECT_DOUBLE_EQ(c.spec.channel_bytes_per_s(), c.channel_bytes_per_s()) << w.preset;
    EXPECT_EQ(c.spec.row_bytes(), c.row_bytes) << w.preset;
    EXPECT_EQ(c.spec.banks(), c.banks) << w.preset;
  }
}

TEST(DdrConfig, ControllerKeysAndTimingOverrides) {
  const DdrRead p = read_text("ddr:\n"
                              "  preset: DDR4-3200\n"
                              "  channels: 2\n"
                              "  ranks: 2\n"
                              "  page_policy: closed\n"
                              "  read_queue: 16\n"
                              "  write_queue: 64\n"
                              "  write_high: 0.75\n"
                              "  write_low: 0.25\n"
                              "  refresh: false\n"
                              "  mapping: [Ro, Ba, Bg, Ra, Co, Ch]\n"
                              "  timing: {CL: 24, RCD: 20, FAW: 30}\n");
  const DdrConfig& c = p.ddr;
  EXPECT_EQ(c.controller.page_policy, DramControllerConfig::PagePolicy::Closed);
  EXPECT_EQ(c.controller.read_queue, 16u);
  EXPECT_EQ(c.controller.write_queue, 64u);
  EXPECT_DOUBLE_EQ(c.controller.write_high, 0.75);
  EXPECT_DOUBLE_EQ(c.controller.write_low, 0.25);
  EXPECT_FALSE(c.controller.refresh);
  EXPECT_EQ(c.mapping_fields, *dram_mapping_scheme("RoBaRaCoCh"));
  EXPECT_EQ(c.mapping, "RoBaBgRaCoCh");
  EXPECT_EQ(c.spec.t.CL, 24u);
  EXPECT_EQ(c.spec.t.RCD, 20u);
  EXPECT_EQ(c.spec.t.FAW, 30u);
  EXPECT_EQ(c.spec.t.RP, 22u); // untouched
  EXPECT_EQ(c.spec.channels, 2u);
  EXPECT_EQ(c.spec.ranks, 2u);
  // The effective config shows the list and every timing.
  EXPECT_EQ(p.effective["ddr"]["mapping"],
            nlohmann::ordered_json({"Ro", "Ba", "Bg", "Ra", "Co", "Ch"}));
  EXPECT_EQ(p.effective["ddr"]["timing"]["CL"], 24);
  EXPECT_EQ(p.effective["ddr"]["timing"]["REFI"], 12480);
  EXPECT_EQ(p.effective["ddr"]["page_policy"], "closed");
}

TEST(DdrConfig, GeometryOverridesReachTheSpec) {
  const DdrConfig c =
      read_text("ddr: {preset: DDR4-3200, data_rate: 2400MT/s, bus_width: 32, banks: 8, "
                "bank_groups: 2, row: 4KiB}\n")
          .ddr;
  EXPECT_NEAR(c.spec.tck_ps, 833.33, 0.01);
  EXPECT_EQ(c.spec.burst_length, 16u);
  EXPECT_EQ(c.spec.burst_cycles(), 8u);
  EXPECT_EQ(c.spec.bank_groups, 2u);
  EXPECT_EQ(c.spec.banks_per_group, 4u);
  EXPECT_EQ(c.spec.row_bytes(), 4096u);
  // Column commands default to at least one (now longer) burst apart.
  EXPECT_EQ(c.spec.t.CCD_S, 8u);
  EXPECT_EQ(c.spec.t.CCD_L, 8u);
  // An explicit value shorter than the burst is an error.
  EXPECT_TRUE(
      has(error_of("ddr: {preset: DDR4-3200, bus_width: 32, timing: {CCD_S: 4}}\n"), "ddr.timing"));
}

TEST(DdrConfig, EnergyOverridesReachThePowerSpec) {
  const DdrConfig preset = read_text("ddr: {preset: DDR4-3200}\n").ddr;
  EXPECT_DOUBLE_EQ(preset.spec.power.vdd.idd0_ma, 57); // Micron 8 Gb x8 DDR4-3200
  EXPECT_DOUBLE_EQ(preset.spec.power.vdd2.volts, 2.5);
  EXPECT_EQ(preset.spec.power.device_width_bits, 8u);
  const DdrRead p =
      read_text("ddr: {preset: DDR4-3200, energy: {IDD0_mA: 70, VDD2_V: 0, IDD4R2_mA: 3,\n"
                "      io_read_pj_per_bit: 2.5, device_width: 16}}\n");
  const DramPowerSpec& w = p.ddr.spec.power;
  EXPECT_DOUBLE_EQ(w.vdd.idd0_ma, 70);
  EXPECT_DOUBLE_EQ(w.vdd.idd3n_ma, 56); // untouched keys keep the preset's value
  EXPECT_DOUBLE_EQ(w.vdd2.volts, 0);
  EXPECT_DOUBLE_EQ(w.vdd2.idd4r_ma, 3);
  EXPECT_DOUBLE_EQ(w.io_read_pj_per_bit, 2.5);
  EXPECT_EQ(w.device_width_bits, 16u);
  // Not in the effective config (the report does not carry energy yet).
  EXPECT_FALSE(p.effective["ddr"].contains("energy"));

  std::string e = error_of("ddr: {energy: {IDD0_ma: 60}}\n");
  EXPECT_TRUE(has(e, "ddr.energy.IDD0_ma")) << e;
  EXPECT_TRUE(has(e, "did you mean 'IDD0_mA'")) << e;
  e = error_of("ddr: {energy: {IDD0: 60}}\n"); // too far for a hint: every key is listed
  EXPECT_TRUE(has(e, "ddr.energy.IDD0")) << e;
  EXPECT_TRUE(has(e, "IDD0_mA, IDD2N_mA")) << e;
  e = error_of("ddr: {energy: {IDD3N_mA: -1}}\n");
  EXPECT_TRUE(has(e, "ddr.energy.IDD3N_mA")) << e;
  e = error_of("ddr: {energy: {VDD_V: high}}\n");
  EXPECT_TRUE(has(e, "ddr.energy.VDD_V")) << e;
}

TEST(DdrConfig, ModelIsCycleUnlessSetToTransaction) {
  EXPECT_EQ(read_text("ddr: {}\n").ddr.model, DdrModel::Cycle);
  EXPECT_EQ(read_text("ddr: {model: cycle}\n").ddr.model, DdrModel::Cycle);
  EXPECT_EQ(read_text("ddr: {model: transaction}\n").ddr.model, DdrModel::Transaction);
  EXPECT_STREQ(ddr_model_name(DdrModel::Transaction), "transaction");
  const std::string e = error_of("ddr: {model: transactoin}\n");
  EXPECT_TRUE(has(e, "ddr.model")) << e;
  EXPECT_TRUE(has(e, "did you mean 'transaction'")) << e;
}

TEST(DdrConfig, StrictErrorsNameTheKey) {
  std::string e = error_of("ddr: {timing: {CLL: 20}}\n");
  EXPECT_TRUE(has(e, "ddr.timing.CLL")) << e;
  EXPECT_TRUE(has(e, "did you mean 'CL'")) << e;
  e = error_of("ddr: {channels: 3}\n");
  EXPECT_TRUE(has(e, "ddr.channels")) << e;
  EXPECT_TRUE(has(e, "power of two")) << e;
  e = error_of("ddr: {ranks: 3}\n");
  EXPECT_TRUE(has(e, "ddr.ranks")) << e;
  e = error_of("ddr: {banks: 12}\n");
  EXPECT_TRUE(has(e, "ddr.banks")) << e;
  e = error_of("ddr: {mapping: [Ro, Ba, Bq, Co]}\n");
  EXPECT_TRUE(has(e, "t.yaml:1:")) << e;
  EXPECT_TRUE(has(e, "unknown address field 'Bq'")) << e;
  e = error_of("ddr: {preset: DDR4-3200, mapping: [Ro, Ba, Co]}\n");
  EXPECT_TRUE(has(e, "ddr.mapping")) << e;
  EXPECT_TRUE(has(e, "Bg is missing")) << e;
  e = error_of("ddr: {mapping: [Ro, Ro, Ba, Co]}\n");
  EXPECT_TRUE(has(e, "more than once")) << e;
  e = error_of("ddr: {mapping: RoBaCoBG}\n");
  EXPECT_TRUE(has(e, "did you mean 'RoBaCoBg'")) << e;
  e = error_of("ddr: {write_high: 0.3, write_low: 0.5}\n");
  EXPECT_TRUE(has(e, "ddr.write_low")) << e;
  e = error_of("ddr: {page_policy: shut}\n");
  EXPECT_TRUE(has(e, "ddr.page_policy")) << e;
  e = error_of("ddr: {scheduler: fr-fcfs}\n");
  EXPECT_TRUE(has(e, "t.yaml:1:")) << e;
  EXPECT_TRUE(has(e, "ddr.scheduler")) << e;
  EXPECT_TRUE(has(e, "did you mean 'frfcfs'")) << e;
  e = error_of("ddr: {read_queue: 0}\n");
  EXPECT_TRUE(has(e, "ddr.read_queue")) << e;
  e = error_of("ddr: {preset: DDR4-3200, bus_width: 24}\n");
  EXPECT_TRUE(has(e, "ddr.bus_width")) << e;
  e = error_of("ddr: {preset: DDR4-3200, timing: {CCD_S: 2}}\n");
  EXPECT_TRUE(has(e, "ddr.timing")) << e;
  EXPECT_TRUE(has(e, "CCD_S")) << e;
  e = error_of("ddr: {timing: {CL: -1}}\n");
  EXPECT_TRUE(has(e, "ddr.timing.CL")) << e;
  e = error_of("ddr: {timing: 5}\n");
  EXPECT_TRUE(has(e, "ddr.timing")) << e;
}

} // namespace
} // namespace npu
