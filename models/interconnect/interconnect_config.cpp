#include "models/interconnect/interconnect_config.h"

namespace npu {

InterconnectConfig read_interconnect_config(cfg::Section& s) {
  InterconnectConfig c;
  c.hop_latency_ps = s.time_ps("hop_latency", c.hop_latency_ps);
  const uint64_t bytes_per_ns = s.bytes("bandwidth_per_ns", 64, 1, 1ull << 20);
  c.port_bytes_per_s = static_cast<double>(bytes_per_ns) * 1e9;
  s.finish();
  return c;
}

} // namespace npu
