#pragma once

#include "config/section.h"

#include <cstdint>

namespace npu {

/// Address-mapped router between initiators (host, scheduler, DMA, caches) and
/// targets (DDR, SRAM, registers).
struct InterconnectConfig {
  uint64_t hop_latency_ps = 2000; ///< per traversal, each direction included
  double port_bytes_per_s = 64e9; ///< bandwidth of each target port
};

InterconnectConfig read_interconnect_config(cfg::Section& section);

} // namespace npu
