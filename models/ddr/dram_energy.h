#pragma once

#include "models/common/energy.h"
#include "models/ddr/dram_spec.h"

#include <cstdint>

namespace npu {

/// What a run did to one channel's devices, for its energy: the commands and, summed over
/// the ranks, the cycles with >= 1 bank open (active) and with none (precharged).
struct DramActivity {
  uint64_t activates = 0, precharges = 0, reads = 0, writes = 0, refreshes = 0;
  uint64_t active_cycles = 0, precharged_cycles = 0;

  DramActivity& operator+=(const DramActivity& o);
};

/// Devices a rank needs for the channel's bus: bus width / device width, at least one.
uint32_t dram_devices_per_rank(const DramSpec& spec);

/// DRAMPower's energy of `activity` on `spec`'s devices (Chandrasekar et al., DRAMPower
/// MemoryPowerModel::power_calc, without power-down), per rail of volts V and currents in
/// mA, times the devices of a rank, tCK and the timings in clocks:
///   activate   ACTs x (IDD0 - IDD3N) x tRAS x tCK x V
///   precharge  PREs x (IDD0 - IDD2N) x (tRC - tRAS) x tCK x V
///   read       RDs  x (IDD4R - IDD3N) x burst clocks x tCK x V     (write alike, IDD4W)
///   refresh    REFs x (IDD5 - IDD3N) x tRFC x tCK x V
///   background_active      active cycles     x IDD3N x tCK x V
///   background_precharged  precharged cycles x IDD2N x tCK x V
/// plus io = bits read x io_read_pj_per_bit + bits written x io_write_pj_per_bit.
/// mA x V x ns = pJ. Block "ddr"; the parts add up to the total.
BlockEnergy dram_energy(const DramSpec& spec, const DramActivity& activity);

} // namespace npu
