#include "models/compute/compute_config.h"

namespace npu {

ComputeConfig read_compute_config(cfg::Section& s, double clock_hz) {
  ComputeConfig c;
  c.units = static_cast<uint32_t>(s.integer("units", c.units, 1, 1024));
  auto array = s.section("array");
  c.array.rows = static_cast<uint32_t>(array.integer("rows", c.array.rows, 1, 4096));
  c.array.cols = static_cast<uint32_t>(array.integer("cols", c.array.cols, 1, 4096));
  array.finish();
  c.dataflow =
      dataflow_from_name(s.choice("dataflow", dataflow_name(c.dataflow), dataflow_names()));
  c.vector_lanes = static_cast<uint32_t>(s.integer("vector_lanes", c.vector_lanes, 1, 65536));
  c.frequency_hz = s.frequency_hz("frequency", clock_hz);
  c.launch_overhead_cycles = static_cast<uint64_t>(s.integer(
      "launch_overhead_cycles", static_cast<int64_t>(c.launch_overhead_cycles), 0, 1'000'000));
  c.buffers = static_cast<uint32_t>(s.integer("buffers", c.buffers, 1, 4));
  auto mac = s.section("mac_cycles");
  for (size_t t = 0; t < dtype_names().size(); ++t)
    c.mac_cycles[t] = static_cast<uint32_t>(mac.integer(dtype_names()[t], c.mac_cycles[t], 1, 64));
  mac.finish();
  c.stationary_buffers =
      static_cast<uint32_t>(s.integer("stationary_buffers", c.stationary_buffers, 1, 2));
  c.conv_lowering = s.choice("conv_lowering", c.conv_lowering, {"im2col", "per_tap"});
  c.reduction_level_cycles =
      static_cast<uint32_t>(s.integer("reduction_level_cycles", c.reduction_level_cycles, 1, 1024));
  c.reduction_lanes = static_cast<uint32_t>(s.integer("reduction_lanes", c.vector_lanes, 1, 65536));
  c.vector_passes = s.choice("vector_passes", c.vector_passes, {"resident", "streamed"});
  s.finish();
  return c;
}

} // namespace npu
