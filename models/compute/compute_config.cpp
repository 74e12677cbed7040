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
  s.finish();
  return c;
}

} // namespace npu
