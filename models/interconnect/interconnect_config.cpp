#include "models/interconnect/interconnect_config.h"

namespace npu {

InterconnectConfig read_interconnect_config(cfg::Section& s) {
  InterconnectConfig c;
  c.hop_latency_ps = s.time_ps("hop_latency", c.hop_latency_ps);
  c.port_bytes_per_s = s.bandwidth("bandwidth", c.port_bytes_per_s);
  s.finish();
  return c;
}

} // namespace npu
