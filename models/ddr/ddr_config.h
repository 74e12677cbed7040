#pragma once

#include "config/section.h"

#include <cstdint>
#include <string>

namespace npu {

/// DRAM device timing and geometry, from a preset and overridable per key.
struct DdrConfig {
  std::string preset = "LPDDR4-3200";
  uint32_t channels = 1;
  uint32_t ranks = 1;
  std::string mapping = "RoBaCoBg";
  uint64_t size_bytes = 4ull << 30;   ///< total capacity across channels
  double data_rate_mts = 3200;        ///< transfers per second per pin, millions
  uint32_t bus_width_bits = 16;       ///< data bus width of one channel
  uint64_t row_hit_latency_ps = 0;    ///< tCL + burst, row already open
  uint64_t row_miss_latency_ps = 0;   ///< tRP + tRCD + tCL + burst
  uint64_t controller_latency_ps = 0; ///< queueing and PHY, added to every access
  uint64_t row_bytes = 2048;          ///< row (page) size of one bank
  uint32_t banks = 8;                 ///< banks per rank
  uint64_t interleave_bytes = 64;     ///< consecutive bytes per channel

  /// Peak bandwidth of one channel in bytes per second.
  double channel_bytes_per_s() const { return data_rate_mts * 1e6 * bus_width_bits / 8.0; }
};

/// Reads the `ddr` section (preset first, then any key overrides it).
DdrConfig read_ddr_config(cfg::Section& section);

} // namespace npu
