#pragma once

#include "config/node.h"
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

/// A whole hardware configuration: one typed struct per block.
struct PlatformConfig {
  std::string name;
  std::string file;
  HostConfig host;
  InterconnectConfig interconnect;
  DdrConfig ddr;
  DmaConfig dma;
  SramConfig sram;
  ICacheConfig icache;
  SchedulerConfig scheduler;
  ComputeConfig compute;
  nlohmann::ordered_json effective; ///< every key with its value after defaults
};

/// Names of the top-level block sections, in platform order.
const std::vector<std::string>& block_names();

/// Reads a config tree (after extends and overrides). Throws InputError.
PlatformConfig read_platform_config(const cfg::Node& root, const std::string& file);

/// Loads `path`, resolves extends, applies `--set` overrides, validates.
PlatformConfig load_platform_config(const std::string& path,
                                    const std::vector<std::string>& overrides);

} // namespace npu
