#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"

#include <cstdint>

namespace npu {

/// On-chip scratchpad geometry and timing.
struct SramConfig {
  uint64_t size_bytes = 512ull << 10;
  uint32_t banks = 16;
  uint32_t bank_width_bytes = 16; ///< bytes one bank delivers per cycle
  uint32_t ports = 2;             ///< concurrent accesses the SRAM accepts
  uint32_t latency_cycles = 2;    ///< access pipeline depth
  double frequency_hz = 1e9;
  uint64_t buffer_bytes =
      64ull << 10;   ///< reserved for testbench buffers; the rest is split among units
  SramEnergy energy; ///< per access, leakage (filled from `energy.sram`)
};

/// Reads the `sram` section; its `frequency` defaults to `clock_hz`, the config's clock.
SramConfig read_sram_config(cfg::Section& section, double clock_hz);

} // namespace npu
