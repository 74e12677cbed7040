#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"

#include <cstdint>

namespace npu {

/// The optional second-level instruction cache that every unit's cache shares.
struct ICacheL2Config {
  uint64_t size_bytes = 0; ///< 0: no second level
  uint32_t ways = 8;
  uint64_t latency_ps = 20000; ///< lookup and hit latency
};

/// Per-unit instruction cache.
struct ICacheConfig {
  uint64_t size_bytes = 32ull << 10;
  uint64_t line_bytes = 64;
  uint32_t ways = 4;
  uint32_t fills_outstanding = 4; ///< line fills in flight during a preload or fetch stall
  uint32_t tags_per_cycle = 4;    ///< tag checks per cycle while scanning a binary
  double frequency_hz = 1e9;
  ICacheL2Config l2;
  ICacheEnergy energy; ///< per lookup, per fill, leakage (filled from `energy.icache`)
};

/// Reads the `icache` section; its `frequency` defaults to `clock_hz`, the config's clock.
ICacheConfig read_icache_config(cfg::Section& section, double clock_hz);

} // namespace npu
