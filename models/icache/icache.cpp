#include "models/icache/icache.h"

#include "common/error.h"

#include <algorithm>

namespace npu {

ICache::ICache(sc_core::sc_module_name name, const ICacheConfig& config, int unit)
    : sc_module(name), socket("socket"), m_config(config), m_unit(unit),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_tags(config.size_bytes, config.line_bytes, config.ways),
      m_fills(std::make_unique<WorkerPool>("fills", config.fills_outstanding)) {}

uint64_t ICache::resident_lines(uint64_t addr, uint64_t bytes) const {
  uint64_t n = 0;
  const uint64_t line = m_config.line_bytes;
  for (uint64_t a = addr / line * line; a < addr + bytes; a += line)
    n += m_tags.contains(a) ? 1 : 0;
  return n;
}

void ICache::preload(uint64_t addr, uint64_t bytes, uint64_t launch_id) {
  if (bytes == 0)
    return;
  const uint64_t line = m_config.line_bytes;
  const uint64_t first = addr / line * line;
  const uint64_t lines = (addr + bytes - first + line - 1) / line;
  const uint64_t start = to_ps(sc_core::sc_time_stamp());
  // Tag scan: tags_per_cycle lines per cycle; the lines it finds missing are filled
  // from memory with up to fills_outstanding fills in flight.
  m_missing.clear();
  for (uint64_t i = 0; i < lines; ++i) {
    const uint64_t a = first + i * line;
    if (m_tags.lookup(a)) {
      ++m_hits;
    } else {
      ++m_misses;
      m_missing.push_back(a);
      m_evictions += m_tags.insert(a) ? 1 : 0;
    }
  }
  const uint64_t scan_cycles = (lines + m_config.tags_per_cycle - 1) / m_config.tags_per_cycle;
  sc_core::wait(ps(scan_cycles * m_period_ps));
  NpuExtension ext;
  ext.who = Initiator::ICache;
  ext.unit = m_unit;
  ext.launch_id = launch_id;
  m_fills->run(m_missing.size(), [&](uint64_t i) {
    std::vector<uint8_t> buffer(line);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const auto status = transact(socket, tlm::TLM_READ_COMMAND, m_missing[i], buffer.data(),
                                 static_cast<uint32_t>(line), ext, delay);
    sc_core::wait(delay);
    if (status != tlm::TLM_OK_RESPONSE)
      throw SimulationError("instruction fetch of launch " + std::to_string(launch_id) +
                            " on unit " + std::to_string(m_unit) + " failed: address not mapped");
  });
  m_fill_ps += to_ps(sc_core::sc_time_stamp()) - start;
}

StatGroup ICache::stats() const {
  StatGroup g{"icache.unit" + std::to_string(m_unit), {}};
  g.add("hits", static_cast<double>(m_hits), "count", "lines found resident");
  g.add("misses", static_cast<double>(m_misses), "count", "lines filled from memory");
  g.add("evictions", static_cast<double>(m_evictions), "count", "valid lines replaced");
  g.add("load_ns", static_cast<double>(m_fill_ps) / 1000.0, "ns", "time spent in phase 4");
  return g;
}

} // namespace npu
