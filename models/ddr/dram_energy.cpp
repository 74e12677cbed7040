#include "models/ddr/dram_energy.h"

namespace npu {
namespace {

// pJ of `cycles` clocks at `ma` on a rail of `volts`, with tCK in ns.
double rail_pj(double cycles, double ma, double volts, double tck_ns) {
  return cycles * ma * volts * tck_ns;
}

} // namespace

DramActivity& DramActivity::operator+=(const DramActivity& o) {
  activates += o.activates;
  precharges += o.precharges;
  reads += o.reads;
  writes += o.writes;
  refreshes += o.refreshes;
  active_cycles += o.active_cycles;
  precharged_cycles += o.precharged_cycles;
  return *this;
}

uint32_t dram_devices_per_rank(const DramSpec& spec) {
  const uint32_t w = spec.power.device_width_bits;
  return w == 0 || spec.bus_width_bits <= w ? 1 : spec.bus_width_bits / w;
}

BlockEnergy dram_energy(const DramSpec& spec, const DramActivity& a) {
  const double tck_ns = spec.tck_ps / 1000.0;
  const DramTiming& t = spec.t;
  const auto n = [](uint64_t v) { return static_cast<double>(v); };
  double act = 0, pre = 0, rd = 0, wr = 0, ref = 0, bg_act = 0, bg_pre = 0;
  for (const DramRailCurrents* r : {&spec.power.vdd, &spec.power.vdd2}) {
    const double v = r->volts;
    act += rail_pj(n(a.activates) * t.RAS, r->idd0_ma - r->idd3n_ma, v, tck_ns);
    pre += rail_pj(n(a.precharges) * (n(t.RC) - n(t.RAS)), r->idd0_ma - r->idd2n_ma, v, tck_ns);
    rd += rail_pj(n(a.reads) * spec.burst_cycles(), r->idd4r_ma - r->idd3n_ma, v, tck_ns);
    wr += rail_pj(n(a.writes) * spec.burst_cycles(), r->idd4w_ma - r->idd3n_ma, v, tck_ns);
    ref += rail_pj(n(a.refreshes) * t.RFC, r->idd5_ma - r->idd3n_ma, v, tck_ns);
    bg_act += rail_pj(n(a.active_cycles), r->idd3n_ma, v, tck_ns);
    bg_pre += rail_pj(n(a.precharged_cycles), r->idd2n_ma, v, tck_ns);
  }
  const double devices = dram_devices_per_rank(spec);
  const double bits = spec.access_bytes * 8.0;
  BlockEnergy e;
  e.block = "ddr";
  e.add("activate", act * devices);
  e.add("precharge", pre * devices);
  e.add("read", rd * devices);
  e.add("write", wr * devices);
  e.add("refresh", ref * devices);
  e.add("background_active", bg_act * devices);
  e.add("background_precharged", bg_pre * devices);
  e.add("io", n(a.reads) * bits * spec.power.io_read_pj_per_bit +
                  n(a.writes) * bits * spec.power.io_write_pj_per_bit);
  return e;
}

} // namespace npu
