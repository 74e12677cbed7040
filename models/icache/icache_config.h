#pragma once

#include "config/section.h"

#include <cstdint>

namespace npu {

/// Per-unit instruction cache.
struct ICacheConfig {
  uint64_t size_bytes = 32ull << 10;
  uint64_t line_bytes = 64;
  uint32_t ways = 4;
  uint32_t fills_outstanding = 4; ///< line fills in flight during a preload
  uint32_t tags_per_cycle = 4;    ///< tag checks per cycle while scanning a binary
  double frequency_hz = 1e9;
};

ICacheConfig read_icache_config(cfg::Section& section);

} // namespace npu
