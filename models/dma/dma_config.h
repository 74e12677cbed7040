#pragma once

#include "config/section.h"

#include <cstdint>

namespace npu {

/// DMA engine: independent channels, each moving one transfer at a time in bursts.
struct DmaConfig {
  uint32_t channels = 4;
  uint64_t burst_bytes = 256;         ///< bytes per read/write burst
  uint32_t outstanding = 8;           ///< bursts in flight per channel
  uint64_t setup_latency_ps = 100000; ///< descriptor decode and channel start
  double frequency_hz = 1e9;          ///< issue clock: one burst per cycle at most
};

DmaConfig read_dma_config(cfg::Section& section);

} // namespace npu
