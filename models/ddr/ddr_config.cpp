#include "models/ddr/ddr_config.h"

#include <algorithm>

namespace npu {
namespace {

bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

// `mapping`: a scheme name or a list of fields, most significant first.
std::vector<DramField> read_mapping(cfg::Section& s, const DramSpec& spec, std::string& name) {
  s.accept("mapping");
  const cfg::Node* v = s.value("mapping");
  std::vector<DramField> order;
  if (v && v->is_seq()) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    name.clear();
    for (const cfg::Node& item : v->items) {
      const auto f = item.is_scalar() ? parse_dram_field(item.scalar) : std::nullopt;
      if (!f)
        throw InputError(item.loc, s.key_path("mapping"),
                         "unknown address field '" + (item.is_scalar() ? item.scalar : "") +
                             "'; expected Ro, Ba, Bg, Ra, Co or Ch");
      order.push_back(*f);
      name += dram_field_name(*f);
      list.push_back(dram_field_name(*f));
    }
    if (s.effective())
      (*s.effective())["mapping"] = list;
  } else {
    name = s.choice("mapping", "RoBaCoBg", dram_mapping_scheme_names());
    order = *dram_mapping_scheme(name);
  }
  const std::string error = check_dram_mapping(spec, order);
  if (!error.empty())
    s.fail("mapping", error);
  return order;
}

DramControllerConfig read_controller(cfg::Section& s) {
  DramControllerConfig c;
  c.scheduler = s.choice("scheduler", "frfcfs", {"frfcfs", "fcfs"}) == "fcfs"
                    ? DramControllerConfig::Scheduler::Fcfs
                    : DramControllerConfig::Scheduler::FrFcfs;
  c.page_policy = s.choice("page_policy", "open", {"open", "closed"}) == "closed"
                      ? DramControllerConfig::PagePolicy::Closed
                      : DramControllerConfig::PagePolicy::Open;
  c.read_queue = static_cast<uint32_t>(s.integer("read_queue", c.read_queue, 1, 4096));
  c.write_queue = static_cast<uint32_t>(s.integer("write_queue", c.write_queue, 1, 4096));
  c.write_high = s.real("write_high", c.write_high, 0.01, 1.0);
  c.write_low = s.real("write_low", c.write_low, 0.0, 0.99);
  if (c.write_low >= c.write_high)
    s.fail("write_low", "must be below write_high");
  c.refresh = s.boolean("refresh", c.refresh);
  return c;
}

// The data rate and bus width, and the clock and burst that follow from them.
void read_bus(cfg::Section& s, DdrConfig& c, DramSpec& spec) {
  const uint32_t beats = spec.beats_per_clock();
  c.data_rate_mts = s.rate_mts("data_rate", spec.data_rate_mts);
  if (c.data_rate_mts <= 0)
    s.fail("data_rate", "must be positive");
  // Timings stay in clocks; the clock follows the data rate.
  spec.data_rate_mts = c.data_rate_mts;
  spec.tck_ps = beats * 1e6 / c.data_rate_mts;
  c.bus_width_bits = static_cast<uint32_t>(s.integer("bus_width", spec.bus_width_bits, 8, 1024));
  if (c.bus_width_bits % 8 != 0)
    s.fail("bus_width", "must be a multiple of 8 bits");
  const uint32_t access_bits = spec.access_bytes * 8;
  if (access_bits % c.bus_width_bits != 0 || (access_bits / c.bus_width_bits) % beats != 0)
    s.fail("bus_width", "a " + std::to_string(spec.access_bytes) + "-byte access on a " +
                            std::to_string(c.bus_width_bits) +
                            "-bit bus is not a whole number of memory clocks (" +
                            std::to_string(beats) + " beats per clock)");
  spec.bus_width_bits = c.bus_width_bits;
  spec.burst_length = access_bits / c.bus_width_bits;
  // A narrower bus than the preset's makes bursts longer: column commands default to
  // no closer than one burst.
  spec.t.CCD_S = std::max(spec.t.CCD_S, spec.burst_cycles());
  spec.t.CCD_L = std::max(spec.t.CCD_L, spec.burst_cycles());
}

// The row size, banks and bank groups of each rank.
void read_banks(cfg::Section& s, DdrConfig& c, DramSpec& spec) {
  c.row_bytes = s.bytes("row", spec.row_bytes(), 64, 1ull << 20);
  if (!is_pow2(c.row_bytes))
    s.fail("row", "must be a power of two");
  if (c.row_bytes * 8 % c.bus_width_bits != 0)
    s.fail("row", "must hold a whole number of bus-wide columns");
  spec.columns = static_cast<uint32_t>(c.row_bytes * 8 / c.bus_width_bits);
  c.banks = static_cast<uint32_t>(s.integer("banks", spec.banks(), 1, 256));
  if (!is_pow2(c.banks))
    s.fail("banks", "must be a power of two, got " + std::to_string(c.banks));
  c.bank_groups =
      static_cast<uint32_t>(s.integer("bank_groups", std::min(spec.bank_groups, c.banks), 1, 256));
  if (!is_pow2(c.bank_groups))
    s.fail("bank_groups", "must be a power of two, got " + std::to_string(c.bank_groups));
  if (c.bank_groups > c.banks)
    s.fail("bank_groups", "must not exceed banks (" + std::to_string(c.banks) + ")");
  spec.bank_groups = c.bank_groups;
  spec.banks_per_group = c.banks / c.bank_groups;
}

} // namespace

const char* ddr_model_name(DdrModel model) {
  return model == DdrModel::Transaction ? "transaction" : "cycle";
}

DdrConfig read_ddr_config(cfg::Section& s) {
  DdrConfig c;
  c.model = s.choice("model", "cycle", {"cycle", "transaction"}) == "transaction"
                ? DdrModel::Transaction
                : DdrModel::Cycle;
  c.preset = s.choice("preset", c.preset, dram_preset_names());
  DramSpec spec = dram_preset(c.preset);
  c.channels = static_cast<uint32_t>(s.integer("channels", 1, 1, 64));
  if (!is_pow2(c.channels))
    s.fail("channels", "must be a power of two (the address mapping needs whole bits), got " +
                           std::to_string(c.channels));
  c.ranks = static_cast<uint32_t>(s.integer("ranks", 1, 1, 8));
  if (!is_pow2(c.ranks))
    s.fail("ranks", "must be a power of two (the address mapping needs whole bits), got " +
                        std::to_string(c.ranks));
  spec.channels = c.channels;
  spec.ranks = c.ranks;
  // `mapping` is read once the geometry is known; keep its place in the effective config.
  s.accept("mapping");
  if (s.effective())
    (*s.effective())["mapping"] = nullptr;
  c.size_bytes = s.bytes("size", 4ull << 30, 1ull << 20, 256ull << 30);
  read_bus(s, c, spec);
  read_banks(s, c, spec);
  // Ethos-U vela.ini models DRAM reads at 500 cycles of a ~1 GHz NPU clock end to end;
  // an on-chip controller front end and PHY add tens of ns to the DRAM's own timing
  // (LPDDR5 loaded latency seen from a phone CPU: 114-136 ns).
  c.controller_latency_ps = s.time_ps("controller_latency", 20000);
  if (c.size_bytes % c.channels != 0)
    s.fail("size", "must divide evenly among the channels");

  // Cycle-approximate controller: JEDEC timings in memory clocks, strict keys.
  {
    cfg::Section timing = s.section("timing");
    for (const DramTimingKey& k : dram_timing_keys())
      spec.t.*k.field = static_cast<uint32_t>(timing.integer(k.name, spec.t.*k.field, 0, 1 << 24));
    timing.finish();
  }
  // Currents, voltages and I/O energy for the DRAM energy (dram_energy.h), strict keys.
  // Kept out of the effective config: the report does not carry energy yet.
  {
    s.accept("energy");
    cfg::Section energy(s.value("energy"), s.key_path("energy"), nullptr);
    spec.power.device_width_bits = static_cast<uint32_t>(
        energy.integer("device_width", spec.power.device_width_bits, 1, 1024));
    for (const DramPowerKey& k : dram_power_keys())
      k.field(spec.power) = energy.real(k.name, k.field(spec.power), 0, 1e6);
    energy.finish();
  }
  const std::string spec_error = check_dram_spec(spec);
  if (!spec_error.empty())
    s.fail("timing", spec_error);
  c.spec = spec;
  c.mapping_fields = read_mapping(s, spec, c.mapping);
  c.hash = s.boolean("hash", c.hash);
  c.controller = read_controller(s);
  s.finish();
  return c;
}

} // namespace npu
