#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"
#include "models/compute/op.h"

#include <array>
#include <cstdint>
#include <string>

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
  std::array<uint32_t, 4> mac_cycles{1, 2, 2, 4}; ///< cycles per MAC by dtype
  uint32_t stationary_buffers = 1;        ///< register sets for the stationary operand (2: double)
  std::string conv_lowering = "im2col";   ///< im2col (taps packed) or per_tap (padded)
  uint32_t reduction_level_cycles = 1;    ///< one level of a cross-lane reduction tree
  uint32_t reduction_lanes = 64;          ///< lanes of the cross-lane reduction network
  std::string vector_passes = "resident"; ///< resident or streamed (see ComputeModel)

  /// The parts the cost formulas use.
  ComputeModel model() const {
    ComputeModel m;
    m.array = array;
    m.dataflow = dataflow;
    m.vector_lanes = vector_lanes;
    m.mac_cycles = mac_cycles;
    m.double_buffered_stationary = stationary_buffers >= 2;
    m.pad_taps = conv_lowering == "per_tap";
    m.reduction_level_cycles = reduction_level_cycles;
    m.reduction_lanes = reduction_lanes;
    m.vector_passes = vector_passes == "streamed" ? VectorPasses::Streamed : VectorPasses::Resident;
    return m;
  }
  ComputeEnergy energy; ///< per MAC, per vector op, leakage (filled from `energy.compute`)
};

/// Reads the `compute` section; its `frequency` defaults to `clock_hz`, the config's clock.
ComputeConfig read_compute_config(cfg::Section& section, double clock_hz);

} // namespace npu
