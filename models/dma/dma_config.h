#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"

#include <cstdint>

namespace npu {

/// DMA engine: independent channels, each moving one transfer at a time in bursts.
struct DmaConfig {
  uint32_t channels = 4;
  uint64_t burst_bytes = 256;         ///< bytes per read/write burst
  uint32_t outstanding = 8;           ///< bursts in flight per channel
  uint64_t buffer_bytes = 0;          ///< read data in flight per channel; 0: outstanding x burst
  uint64_t setup_latency_ps = 100000; ///< descriptor decode and channel start
  double frequency_hz = 1e9;          ///< issue clock: one burst per cycle at most
  DmaEnergy energy;                   ///< per byte, leakage (filled from `energy.dma`)
};

/// Reads the `dma` section; its `frequency` defaults to `clock_hz`, the config's clock.
DmaConfig read_dma_config(cfg::Section& section, double clock_hz);
/// Bursts of `burst_len` bytes one channel keeps in flight: `outstanding`, fewer when
/// its read buffer cannot hold that many.
uint32_t bursts_in_flight(const DmaConfig& config, uint64_t burst_len);

} // namespace npu
