#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// How the host learns that a command has completed.
enum class CompletionMode { Interrupt, Polling };

/// Names as they appear in configs ("interrupt", "polling"), in enum order.
const std::vector<std::string>& completion_mode_names();

/// Host CPU and driver costs of the launch path.
struct HostConfig {
  CompletionMode completion = CompletionMode::Interrupt;
  uint64_t prepare_base_ps = 1000000;       ///< packing a launch's parameters
  uint64_t prepare_per_byte_ps = 1000;      ///< per byte of packed arguments
  uint64_t driver_call_ps = 4000000;        ///< driver entry, validation, bookkeeping
  uint64_t memcpy_setup_ps = 2000000;       ///< driver work to set up a copy
  uint64_t sync_call_ps = 500000;           ///< entering and leaving a sync call
  uint64_t doorbell_ps = 200000;            ///< posted MMIO write until the device has it
  uint64_t interrupt_latency_ps = 15000000; ///< completion record to host thread running
  uint64_t poll_interval_ps = 1000000;      ///< between two reads of the completion record
  HostEnergy energy;                        ///< power per thread state (filled from `energy.host`)
};

HostConfig read_host_config(cfg::Section& section);

} // namespace npu
