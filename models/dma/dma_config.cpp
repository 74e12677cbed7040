#include "models/dma/dma_config.h"

namespace npu {

DmaConfig read_dma_config(cfg::Section& s) {
  DmaConfig c;
  c.channels = static_cast<uint32_t>(s.integer("channels", c.channels, 1, 64));
  c.burst_bytes = s.bytes("burst", c.burst_bytes, 16, 1ull << 20);
  if ((c.burst_bytes & (c.burst_bytes - 1)) != 0)
    s.fail("burst", "must be a power of two");
  c.outstanding = static_cast<uint32_t>(s.integer("outstanding", c.outstanding, 1, 256));
  c.setup_latency_ps = s.time_ps("setup_latency", c.setup_latency_ps);
  c.frequency_hz = s.frequency_hz("frequency", c.frequency_hz);
  s.finish();
  return c;
}

} // namespace npu
