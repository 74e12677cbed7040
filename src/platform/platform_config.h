#pragma once

#include "config/node.h"
#include "models/common/energy_params.h"
#include "models/compute/compute_config.h"
#include "models/ddr/ddr_config.h"
#include "models/dma/dma_config.h"
#include "models/host/host_config.h"
#include "models/icache/icache_config.h"
#include "models/interconnect/interconnect_config.h"
#include "models/scheduler/scheduler_config.h"
#include "models/sram/sram_config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace npu {

/// Caps that keep a mistaken input from taking the machine down (section `limits`; the
/// command line's --max-sim-time, --max-memory and --max-wall-time set them too). Not part
/// of the hardware.
struct SimLimits {
  uint64_t sim_time_ps = 10'000'000'000'000ull;     ///< simulated time a run may reach (10 s)
  uint64_t memory_bytes = 8ull << 30;               ///< resident memory of the simulator (8 GiB)
  uint64_t wall_time_ps = 3'600'000'000'000'000ull; ///< wall-clock time of a run (1 hour)

  static constexpr uint64_t kMinSimTimePs = 1000; ///< 1 ns
  /// One simulated day: far beyond what a run reaches in any sane wall time.
  static constexpr uint64_t kMaxSimTimePs = 86'400'000'000'000'000ull;
  static constexpr uint64_t kMinMemoryBytes = 1u << 20;        ///< 1 MiB
  static constexpr uint64_t kMinWallTimePs = 1'000'000'000ull; ///< 1 ms
  /// A week: a run meant to last longer belongs in a sweep of shorter points.
  static constexpr uint64_t kMaxWallTimePs = 604'800'000'000'000'000ull;
};

/// A whole hardware configuration: one typed struct per block.
struct PlatformConfig {
  std::string name;
  std::string file;
  /// Top-level `clock`: the frequency of every clocked block (scheduler, icache, DMA,
  /// SRAM, compute) that sets none of its own. DDR, PCIe and the host keep their own timing.
  double clock_hz = 1e9;
  HostConfig host;
  InterconnectConfig interconnect;
  DdrConfig ddr;
  DmaConfig dma;
  SramConfig sram;
  ICacheConfig icache;
  SchedulerConfig scheduler;
  ComputeConfig compute;
  SimLimits limits;
  /// Section `technology`: the node and supply the energy defaults are scaled to.
  Technology technology;
  /// Section `energy`, key `enabled`: false skips the energy report (the blocks' counters
  /// still run; see scripts/bench_energy.sh).
  bool energy_enabled = true;
  nlohmann::ordered_json effective; ///< every key with its value after defaults
};

/// Names of the top-level block sections, in platform order.
const std::vector<std::string>& block_names();

/// Names of the entries of Platform::energy() for `config`, in its order.
std::vector<std::string> energy_block_names(const PlatformConfig& config);

/// Reads a config tree (after extends and overrides). Throws InputError.
PlatformConfig read_platform_config(const cfg::Node& root, const std::string& file);

/// Loads `path`, resolves extends, applies `--set` overrides, validates.
PlatformConfig load_platform_config(const std::string& path,
                                    const std::vector<std::string>& overrides);

} // namespace npu
