#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"
#include "models/scheduler/dispatch_policy.h"

#include <cstdint>
#include <string>

namespace npu {

/// Command processor: hardware queues fed from command rings in DDR.
struct SchedulerConfig {
  uint32_t hw_queues = 8;
  DispatchPolicyKind policy = DispatchPolicyKind::Fifo;
  uint32_t ring_entries = 256;   ///< descriptors per queue ring
  uint32_t decode_cycles = 20;   ///< decode of one fetched descriptor
  uint32_t dispatch_cycles = 50; ///< choosing a unit and starting it
  uint32_t event_cycles = 10;    ///< an event record (semaphore release) or a passing wait
  uint32_t max_running = 0;      ///< kernels running at once; 0 = number of units
  double frequency_hz = 1e9;
  SchedulerEnergy energy; ///< per cycle, leakage (filled from `energy.scheduler`)
};

/// Reads the `scheduler` section; its `frequency` defaults to `clock_hz`, the config's clock.
SchedulerConfig read_scheduler_config(cfg::Section& section, double clock_hz);

} // namespace npu
