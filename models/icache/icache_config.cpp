#include "models/icache/icache_config.h"

#include "config/units.h"

namespace npu {

static bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

ICacheConfig read_icache_config(cfg::Section& s, double clock_hz) {
  ICacheConfig c;
  c.size_bytes = s.bytes("size", c.size_bytes, 64, 1ull << 30);
  c.line_bytes = s.bytes("line", c.line_bytes, 4, 4096);
  if (!is_pow2(c.line_bytes))
    s.fail("line", "cache line must be a power of two, got " + units::format_bytes(c.line_bytes));
  c.ways = static_cast<uint32_t>(s.integer("ways", c.ways, 1, 64));
  if (!is_pow2(c.size_bytes))
    s.fail("size", "must be a power of two, got " + units::format_bytes(c.size_bytes));
  if (c.size_bytes < c.line_bytes * c.ways)
    s.fail("size", "must hold at least one set (line x ways = " +
                       units::format_bytes(c.line_bytes * c.ways) + ")");
  if (!is_pow2(c.ways))
    s.fail("ways", "must be a power of two");
  c.fills_outstanding =
      static_cast<uint32_t>(s.integer("fills_outstanding", c.fills_outstanding, 1, 64));
  c.tags_per_cycle = static_cast<uint32_t>(s.integer("tags_per_cycle", c.tags_per_cycle, 1, 64));
  c.frequency_hz = s.frequency_hz("frequency", clock_hz);
  cfg::Section l2 = s.section("l2");
  c.l2.size_bytes = l2.bytes("size", 0, 0, 1ull << 34);
  c.l2.ways = static_cast<uint32_t>(l2.integer("ways", c.l2.ways, 1, 64));
  c.l2.latency_ps = l2.time_ps("latency", c.l2.latency_ps, 0, 1000000000ull);
  if (c.l2.size_bytes > 0) {
    if (!is_pow2(c.l2.size_bytes))
      l2.fail("size", "must be a power of two (or 0 for no second level), got " +
                          units::format_bytes(c.l2.size_bytes));
    if (!is_pow2(c.l2.ways))
      l2.fail("ways", "must be a power of two");
    if (c.l2.size_bytes < c.size_bytes)
      l2.fail("size", "must be at least the first level's " + units::format_bytes(c.size_bytes));
    if (c.l2.size_bytes < c.line_bytes * c.l2.ways)
      l2.fail("size", "must hold at least one set (line x ways = " +
                          units::format_bytes(c.line_bytes * c.l2.ways) + ")");
  }
  l2.finish();
  s.finish();
  return c;
}

} // namespace npu
