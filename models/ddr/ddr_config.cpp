#include "models/ddr/ddr_config.h"

#include <map>

namespace npu {
namespace {

struct Preset {
  double data_rate_mts;
  uint32_t bus_width_bits;
  double tck_ns; ///< command clock period
  uint32_t cl, rcd, rp, burst_cycles;
  uint64_t row_bytes;
  uint32_t banks;
};

// Timings in command-clock cycles; sources in models/ddr/README.md.
const std::map<std::string, Preset>& presets() {
  static const std::map<std::string, Preset> table = {
      // JESD79-4 DDR4-3200AA: tCK 0.625 ns, CL/RCD/RP 22, BL8 = 4 clocks, x8 devices, 8 KiB rows,
      // 4 bank groups x 4 banks.
      {"DDR4-3200", {3200, 64, 0.625, 22, 22, 22, 4, 8192, 16}},
      // JESD209-4 LPDDR4-3200: tCK 0.625 ns, RL 28, tRCD/tRP 18 ns (29 clocks), BL16 = 8 clocks,
      // x16 channel, 2 KiB rows, 8 banks.
      {"LPDDR4-3200", {3200, 16, 0.625, 28, 29, 29, 8, 2048, 8}},
      // JESD209-5 LPDDR5-6400: CK 800 MHz (tCK 1.25 ns), RL 17 (at 1:4 WCK), tRCD/tRP 18 ns
      // (15 clocks), BL16 = 2 clocks, x16 channel, 2 KiB rows, 16 banks.
      {"LPDDR5-6400", {6400, 16, 1.25, 17, 15, 15, 2, 2048, 16}},
      // JESD235C HBM2E 3.2 Gb/s: tCK 0.625 ns, CL/RCD/RP 14 ns (22 clocks), BL4 = 2 clocks,
      // 128-bit channel, 1 KiB rows, 16 banks.
      {"HBM2E", {3200, 128, 0.625, 22, 22, 22, 2, 1024, 16}},
  };
  return table;
}

uint64_t cycles_ps(double tck_ns, uint32_t cycles) {
  return static_cast<uint64_t>(tck_ns * 1000.0 * cycles + 0.5);
}

} // namespace

DdrConfig read_ddr_config(cfg::Section& s) {
  DdrConfig c;
  std::vector<std::string> names;
  for (const auto& [name, p] : presets())
    names.push_back(name);
  c.preset = s.choice("preset", c.preset, names);
  const Preset& p = presets().at(c.preset);
  c.channels = static_cast<uint32_t>(s.integer("channels", 1, 1, 64));
  c.ranks = static_cast<uint32_t>(s.integer("ranks", 1, 1, 8));
  c.mapping =
      s.choice("mapping", "RoBaCoBg", {"RoBaCoBg", "RoBaRaCoCh", "RoRaBaCoCh", "RoCoBaRaCh"});
  c.size_bytes = s.bytes("size", 4ull << 30, 1ull << 20, 256ull << 30);
  c.data_rate_mts = s.rate_mts("data_rate", p.data_rate_mts);
  c.bus_width_bits = static_cast<uint32_t>(s.integer("bus_width", p.bus_width_bits, 8, 1024));
  if (c.bus_width_bits % 8 != 0)
    s.fail("bus_width", "must be a multiple of 8 bits");
  c.row_bytes = s.bytes("row", p.row_bytes, 64, 1ull << 20);
  c.banks = static_cast<uint32_t>(s.integer("banks", p.banks, 1, 256));
  const uint64_t hit = cycles_ps(p.tck_ns, p.cl + p.burst_cycles);
  const uint64_t miss = cycles_ps(p.tck_ns, p.rp + p.rcd + p.cl + p.burst_cycles);
  c.row_hit_latency_ps = s.time_ps("row_hit_latency", hit, 1000);
  c.row_miss_latency_ps = s.time_ps("row_miss_latency", miss, 1000);
  if (c.row_miss_latency_ps < c.row_hit_latency_ps)
    s.fail("row_miss_latency", "must not be shorter than row_hit_latency");
  // Ethos-U vela.ini models DRAM reads at 500 cycles of a ~1 GHz NPU clock end to end;
  // an on-chip controller and PHY add tens of ns (LPDDR5 loaded latency 114-136 ns).
  c.controller_latency_ps = s.time_ps("controller_latency", 20000);
  c.interleave_bytes = s.bytes("interleave", 256, 64, 1ull << 20);
  if ((c.interleave_bytes & (c.interleave_bytes - 1)) != 0)
    s.fail("interleave", "must be a power of two");
  if (c.size_bytes % (static_cast<uint64_t>(c.channels) * c.interleave_bytes) != 0)
    s.fail("size", "must be a multiple of channels x interleave");
  s.finish();
  return c;
}

} // namespace npu
