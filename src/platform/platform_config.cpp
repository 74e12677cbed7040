#include "platform/platform_config.h"

#include "config/section.h"
#include "config/units.h"
#include "platform/energy_config.h"

#include <functional>

namespace npu {
namespace {

// The registry of block sections: name and the function that reads it.
// Clocked blocks read c.clock_hz, the default of their `frequency`.
using Reader = std::function<void(cfg::Section&, PlatformConfig&)>;
const std::vector<std::pair<std::string, Reader>>& block_registry() {
  static const std::vector<std::pair<std::string, Reader>> registry = {
      {"host", [](cfg::Section& s, PlatformConfig& c) { c.host = read_host_config(s); }},
      {"interconnect",
       [](cfg::Section& s, PlatformConfig& c) { c.interconnect = read_interconnect_config(s); }},
      {"ddr", [](cfg::Section& s, PlatformConfig& c) { c.ddr = read_ddr_config(s); }},
      {"dma", [](cfg::Section& s, PlatformConfig& c) { c.dma = read_dma_config(s, c.clock_hz); }},
      {"sram",
       [](cfg::Section& s, PlatformConfig& c) { c.sram = read_sram_config(s, c.clock_hz); }},
      {"icache",
       [](cfg::Section& s, PlatformConfig& c) { c.icache = read_icache_config(s, c.clock_hz); }},
      {"scheduler", [](cfg::Section& s,
                       PlatformConfig& c) { c.scheduler = read_scheduler_config(s, c.clock_hz); }},
      {"compute",
       [](cfg::Section& s, PlatformConfig& c) { c.compute = read_compute_config(s, c.clock_hz); }},
  };
  return registry;
}

} // namespace

const std::vector<std::string>& block_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, reader] : block_registry())
      out.push_back(name);
    return out;
  }();
  return names;
}

std::vector<std::string> energy_block_names(const PlatformConfig& config) {
  std::vector<std::string> names{"host", "interconnect"};
  if (config.interconnect.pcie.enabled)
    names.emplace_back("pcie");
  names.emplace_back("ddr");
  for (const char* name : {"dma", "sram", "icache", "scheduler", "compute"})
    names.emplace_back(name);
  return names;
}

PlatformConfig read_platform_config(const cfg::Node& root, const std::string& file) {
  PlatformConfig c;
  c.file = file;
  if (root.is_null())
    throw InputError({file, 1, 1}, "",
                     "empty config; expected a map with a name and block sections");
  c.effective = nlohmann::ordered_json::object();
  cfg::Section top(&root, "", &c.effective);
  c.name = top.string("name", "unnamed");
  top.accept("extends");
  c.clock_hz = top.frequency_hz("clock", c.clock_hz);
  for (const auto& [name, reader] : block_registry()) {
    cfg::Section section = top.section(name);
    reader(section, c);
  }
  read_energy_config(top, c);
  cfg::Section limits = top.section("limits");
  const SimLimits defaults;
  c.limits.sim_time_ps = limits.time_ps("sim_time", defaults.sim_time_ps, SimLimits::kMinSimTimePs,
                                        SimLimits::kMaxSimTimePs);
  c.limits.memory_bytes = limits.bytes("memory", defaults.memory_bytes, SimLimits::kMinMemoryBytes);
  c.limits.wall_time_ps = limits.time_ps("wall_time", defaults.wall_time_ps,
                                         SimLimits::kMinWallTimePs, SimLimits::kMaxWallTimePs);
  limits.finish();
  top.finish();
  const uint64_t tile_space = c.sram.size_bytes - c.sram.buffer_bytes;
  if (tile_space / c.compute.units < 1024)
    throw InputError(root.find("compute") ? root.find("compute")->loc : root.loc, "compute.units",
                     std::to_string(c.compute.units) + " units leave less than 1KiB of SRAM (" +
                         units::format_bytes(tile_space) + " for tiles) per unit");
  return c;
}

PlatformConfig load_platform_config(const std::string& path,
                                    const std::vector<std::string>& overrides) {
  cfg::Node root = cfg::load_with_extends(path);
  for (const auto& o : overrides)
    cfg::apply_override(root, o);
  return read_platform_config(root, path);
}

} // namespace npu
