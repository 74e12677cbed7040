#include "platform/energy_config.h"

#include "platform/platform_config.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace npu {
namespace {

constexpr double kMaxPj = 1e9;    // 1 mJ per action: far beyond any modelled action
constexpr double kMaxMw = 1e7;    // 10 kW
constexpr double kMaxWatts = 1e4; // 10 kW

// A derived default to six significant digits: the estimates carry no more, and the
// effective config then shows 20 rather than 19.999999999999996.
double significant(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return std::strtod(text, nullptr);
}

double pj(cfg::Section& s, const std::string& key, double def) {
  return s.real(key, significant(def), 0, kMaxPj);
}
double mw(cfg::Section& s, const std::string& key, double def) {
  return s.real(key, significant(def), 0, kMaxMw);
}

void read_compute(cfg::Section& s, double k, ComputeEnergy& e) {
  const ComputeEnergy d;
  e.mac.int8_pj = pj(s, "mac_int8_pj", d.mac.int8_pj * k);
  e.mac.fp16_pj = pj(s, "mac_fp16_pj", d.mac.fp16_pj * k);
  e.mac.bf16_pj = pj(s, "mac_bf16_pj", d.mac.bf16_pj * k);
  e.mac.fp32_pj = pj(s, "mac_fp32_pj", d.mac.fp32_pj * k);
  e.vector_op_pj = pj(s, "vector_op_pj", d.vector_op_pj * k);
  e.static_mw_per_mac = mw(s, "static_mw_per_mac", d.static_mw_per_mac * k);
  s.finish();
}

void read_memories(cfg::Section& energy, double k, PlatformConfig& c) {
  cfg::Section s = energy.section("sram");
  const SramEnergy ds;
  const uint64_t bank_bytes = c.sram.size_bytes / std::max<uint32_t>(c.sram.banks, 1);
  c.sram.energy.access_pj =
      pj(s, "access_pj", sram_access_pj(bank_bytes, c.sram.bank_width_bytes) * k);
  c.sram.energy.static_mw_per_mib = mw(s, "static_mw_per_mib", ds.static_mw_per_mib * k);
  s.finish();
  cfg::Section i = energy.section("icache");
  const ICacheEnergy di;
  c.icache.energy.lookup_pj = pj(i, "lookup_pj", sram_access_pj(c.icache.size_bytes, 8) * k);
  c.icache.energy.fill_pj =
      pj(i, "fill_pj", sram_access_pj(c.icache.size_bytes, c.icache.line_bytes) * k);
  c.icache.energy.static_mw_per_mib = mw(i, "static_mw_per_mib", di.static_mw_per_mib * k);
  i.finish();
}

// A block with one per-action energy `key` and a leakage `static_mw`, both scaled by `k`.
void read_action_and_static(cfg::Section& energy, const char* block, const char* key, double k,
                            double& action_pj, double& static_mw) {
  cfg::Section s = energy.section(block);
  action_pj = pj(s, key, action_pj * k);
  static_mw = mw(s, "static_mw", static_mw * k);
  s.finish();
}

void read_transfers(cfg::Section& energy, double k, PlatformConfig& c) {
  read_action_and_static(energy, "dma", "per_byte_pj", k, c.dma.energy.per_byte_pj,
                         c.dma.energy.static_mw);
  read_action_and_static(energy, "interconnect", "per_byte_hop_pj", k,
                         c.interconnect.energy.per_byte_hop_pj, c.interconnect.energy.static_mw);
  cfg::Section p = energy.section("pcie");
  c.interconnect.pcie.energy.per_bit_pj = pj(p, "per_bit_pj", PcieEnergy{}.per_bit_pj);
  p.finish();
  read_action_and_static(energy, "scheduler", "cycle_pj", k, c.scheduler.energy.cycle_pj,
                         c.scheduler.energy.static_mw);
}

void read_host(cfg::Section& s, HostEnergy& e) {
  const HostEnergy d;
  e.busy_w = s.real("busy_w", d.busy_w, 0, kMaxWatts);
  e.polling_w = s.real("polling_w", d.polling_w, 0, kMaxWatts);
  e.sleeping_w = s.real("sleeping_w", d.sleeping_w, 0, kMaxWatts);
  e.idle_w = s.real("idle_w", d.idle_w, 0, kMaxWatts);
  s.finish();
}

} // namespace

void read_energy_config(cfg::Section& top, PlatformConfig& c) {
  cfg::Section tech = top.section("technology");
  c.technology.from_config = top.has("technology");
  // 3 nm to 250 nm and 0.3 V to 2.5 V: the CMOS nodes and supplies of the last 25 years.
  c.technology.node_nm = tech.real("node_nm", Technology::kReferenceNodeNm, 3, 250);
  c.technology.voltage_v = tech.real("voltage_v", Technology::kReferenceVoltageV, 0.3, 2.5);
  tech.finish();
  const double k = c.technology.scale();
  cfg::Section energy = top.section("energy");
  c.energy_enabled = energy.boolean("enabled", true);
  cfg::Section compute = energy.section("compute");
  read_compute(compute, k, c.compute.energy);
  read_memories(energy, k, c);
  read_transfers(energy, k, c);
  cfg::Section host = energy.section("host");
  read_host(host, c.host.energy);
  energy.finish();
}

std::string describe_technology(const Technology& t) {
  std::ostringstream out;
  out << (t.from_config ? "" : "defaults (") << t.node_nm << " nm, " << t.voltage_v << " V"
      << (t.from_config ? "" : ")");
  return out.str();
}

} // namespace npu
