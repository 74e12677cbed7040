#include "models/dma/dma_config.h"

#include <algorithm>

namespace npu {

DmaConfig read_dma_config(cfg::Section& s, double clock_hz) {
  DmaConfig c;
  c.channels = static_cast<uint32_t>(s.integer("channels", c.channels, 1, 64));
  c.burst_bytes = s.bytes("burst", c.burst_bytes, 16, 1ull << 20);
  if ((c.burst_bytes & (c.burst_bytes - 1)) != 0)
    s.fail("burst", "must be a power of two");
  c.outstanding = static_cast<uint32_t>(s.integer("outstanding", c.outstanding, 1, 256));
  c.buffer_bytes = s.bytes("buffer", c.outstanding * c.burst_bytes, 16, 1ull << 30);
  c.setup_latency_ps = s.time_ps("setup_latency", c.setup_latency_ps);
  c.frequency_hz = s.frequency_hz("frequency", clock_hz);
  s.finish();
  return c;
}

uint32_t bursts_in_flight(const DmaConfig& config, uint64_t burst_len) {
  const uint64_t buffer =
      config.buffer_bytes ? config.buffer_bytes : uint64_t{config.outstanding} * config.burst_bytes;
  const uint64_t fit = buffer / std::max<uint64_t>(burst_len, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>(fit, 1, config.outstanding));
}

} // namespace npu
