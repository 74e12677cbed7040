#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"
#include "models/compute/op.h"

#include <cstdint>

namespace npu {

/// The compute-unit array.
struct ComputeConfig {
  uint32_t units = 4;
  ArrayShape array;
  Dataflow dataflow = Dataflow::OutputStationary;
  uint32_t vector_lanes = 64; ///< vector-unit lanes (8-bit element operations per cycle)
  double frequency_hz = 1e9;
  uint64_t launch_overhead_cycles = 100; ///< unit-local setup before the first instruction
  uint32_t buffers = 2; ///< operand and result buffers per unit (2: double buffering)

  /// The parts the cost formulas use.
  ComputeModel model() const { return {array, dataflow, vector_lanes}; }
  ComputeEnergy energy; ///< per MAC, per vector op, leakage (filled from `energy.compute`)
};

/// Reads the `compute` section; its `frequency` defaults to `clock_hz`, the config's clock.
ComputeConfig read_compute_config(cfg::Section& section, double clock_hz);

} // namespace npu
