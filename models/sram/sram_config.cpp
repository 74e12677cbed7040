#include "models/sram/sram_config.h"

#include "config/units.h"

namespace npu {

static bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

SramConfig read_sram_config(cfg::Section& s, double clock_hz) {
  SramConfig c;
  c.size_bytes = s.bytes("size", c.size_bytes, 1024, 1ull << 32);
  c.banks = static_cast<uint32_t>(s.integer("banks", c.banks, 1, 1024));
  c.bank_width_bytes = static_cast<uint32_t>(s.bytes("bank_width", c.bank_width_bytes, 1, 1024));
  if (!is_pow2(c.bank_width_bytes))
    s.fail("bank_width", "must be a power of two");
  c.ports = static_cast<uint32_t>(s.integer("ports", c.ports, 1, 64));
  c.latency_cycles = static_cast<uint32_t>(s.integer("latency", c.latency_cycles, 1, 1000));
  c.frequency_hz = s.frequency_hz("frequency", clock_hz);
  c.buffer_bytes = s.bytes("buffer_space", c.buffer_bytes);
  if (c.buffer_bytes >= c.size_bytes)
    s.fail("buffer_space", "must leave room for the compute units' tiles (size is " +
                               units::format_bytes(c.size_bytes) + ")");
  if (c.size_bytes % (static_cast<uint64_t>(c.banks) * c.bank_width_bytes) != 0)
    s.fail("size", "must be a multiple of banks x bank_width");
  s.finish();
  return c;
}

} // namespace npu
