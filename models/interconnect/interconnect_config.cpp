#include "models/interconnect/interconnect_config.h"

namespace npu {

InterconnectConfig read_interconnect_config(cfg::Section& s) {
  InterconnectConfig c;
  c.hop_latency_ps = s.time_ps("hop_latency", c.hop_latency_ps);
  c.granularity = s.choice("granularity", "burst", {"burst", "64B"}) == "burst"
                      ? Granularity::Burst
                      : Granularity::Access64;
  c.port_bytes_per_s = s.bandwidth("bandwidth", c.port_bytes_per_s);
  auto p = s.section("pcie");
  c.pcie.enabled = p.boolean("enabled", c.pcie.enabled);
  c.pcie.latency_ps = p.time_ps("latency", c.pcie.latency_ps);
  c.pcie.lanes = static_cast<uint32_t>(p.integer("lanes", c.pcie.lanes, 1, 32));
  if ((c.pcie.lanes & (c.pcie.lanes - 1)) != 0)
    p.fail("lanes", "must be 1, 2, 4, 8, 16 or 32");
  c.pcie.rate_gts = p.rate_mts("rate", c.pcie.rate_gts * 1000) / 1000.0;
  c.pcie.max_payload_bytes = p.bytes("max_payload", c.pcie.max_payload_bytes, 64, 4096);
  if ((c.pcie.max_payload_bytes & (c.pcie.max_payload_bytes - 1)) != 0)
    p.fail("max_payload", "must be a power of two");
  c.pcie.packet_overhead_bytes = p.bytes("packet_overhead", c.pcie.packet_overhead_bytes, 0, 256);
  p.finish();
  c.host_memory_bytes = s.bytes("host_memory", c.host_memory_bytes, 1ull << 20, 1ull << 40);
  c.host_memory_latency_ps = s.time_ps("host_memory_latency", c.host_memory_latency_ps);
  s.finish();
  return c;
}

} // namespace npu
