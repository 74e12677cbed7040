#include "models/icache/icache.h"

#include "common/error.h"

#include <algorithm>

namespace npu {

ICache::ICache(sc_core::sc_module_name name, const ICacheConfig& config, int unit, TimeOrder* order)
    : sc_module(name), socket("socket"), m_config(config), m_unit(unit),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_tags(config.size_bytes, config.line_bytes, config.ways),
      m_fills(std::make_unique<WorkerPool>("fills", config.fills_outstanding)),
      m_own_order(order ? nullptr : std::make_unique<TimeOrder>("order")),
      m_order(order ? order : m_own_order.get()), m_line(config.line_bytes) {}

uint64_t ICache::resident_lines(uint64_t addr, uint64_t bytes) const {
  uint64_t n = 0;
  const uint64_t line = m_config.line_bytes;
  for (uint64_t a = addr / line * line; a < addr + bytes; a += line)
    n += m_tags.contains(a) ? 1 : 0;
  return n;
}

void ICache::preload(uint64_t addr, uint64_t bytes, uint64_t launch_id, uint64_t* owed) {
  access(addr, bytes, launch_id, true, m_preload, owed);
}

uint64_t ICache::fetch(uint64_t addr, uint64_t bytes, uint64_t launch_id, uint64_t* owed) {
  return access(addr, bytes, launch_id, false, m_fetch, owed);
}

uint64_t ICache::access(uint64_t addr, uint64_t bytes, uint64_t launch_id, bool scan,
                        Counts& counts, uint64_t* owed) {
  if (bytes == 0)
    return 0;
  const uint64_t line = m_config.line_bytes;
  const uint64_t first = addr / line * line;
  const uint64_t lines = (addr + bytes - first + line - 1) / line;
  // The tags are this unit's alone (others read them only while it is free), so the
  // lookups may run ahead of the clock by what the caller owes.
  const uint64_t start = to_ps(time_now(*this)) + (owed ? *owed : 0);
  // Every line is looked up in order; a miss claims its line (evicting the LRU way)
  // and joins the fills.
  m_missing.clear();
  if (m_tags.touch_all(first, lines)) {
    counts.hits += lines; // all resident: the common relaunch
  } else {
    for (uint64_t i = 0; i < lines; ++i) {
      const uint64_t a = first + i * line;
      if (m_tags.lookup(a)) {
        ++counts.hits;
      } else {
        ++counts.misses;
        m_missing.push_back(a);
        m_evictions += m_tags.insert(a) ? 1 : 0;
      }
    }
  }
  // A preload scans the tags first, tags_per_cycle a cycle; during execution the
  // lookups ride along with instruction issue and only misses cost time.
  const uint64_t scan_ps =
      scan ? (lines + m_config.tags_per_cycle - 1) / m_config.tags_per_cycle * m_period_ps : 0;
  if (m_missing.empty() && owed) {
    *owed += scan_ps;
    counts.ps += scan_ps;
    return scan_ps;
  }
  const uint64_t first_wait = scan_ps + (owed ? *owed : 0);
  if (owed)
    *owed = 0;
  if (first_wait > 0)
    sc_core::wait(ps(first_wait));
  if (!m_missing.empty()) {
    if (m_trace)
      m_trace->icache_misses(static_cast<uint32_t>(m_unit), to_ps(time_now(*this)),
                             m_missing.size());
    NpuExtension ext;
    ext.who = Initiator::ICache;
    ext.unit = m_unit;
    ext.launch_id = launch_id;
    m_fills->run(m_missing.size(), [&](uint64_t i) {
      // The model keeps tags only: the instruction bytes are read and discarded, so
      // every fill may share one scratch line.
      // Fills that fall at one time, of this unit or others, go in order of unit and fill.
      const TimeOrder::Key key{TimeOrder::kInstructionCache, static_cast<uint64_t>(m_unit), i};
      m_order->wait_until(to_ps(time_now(*this)), key);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      const auto status = transact(socket, tlm::TLM_READ_COMMAND, m_missing[i], m_line.data(),
                                   static_cast<uint32_t>(line), ext, delay);
      m_order->wait_until(to_ps(time_now(*this) + delay), key);
      if (status != tlm::TLM_OK_RESPONSE)
        throw SimulationError("instruction fetch of launch " + std::to_string(launch_id) +
                              " on unit " + std::to_string(m_unit) + " failed: address not mapped");
    });
  }
  const uint64_t took = to_ps(time_now(*this)) - start;
  counts.ps += took;
  return took;
}

StatGroup ICache::stats() const {
  return m_stats.collect();
}

ICacheL2::ICacheL2(sc_core::sc_module_name name, const ICacheConfig& config)
    : sc_module(name), socket("socket"), mem("mem"), m_config(config.l2),
      m_line_bytes(config.line_bytes),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_tags(config.l2.size_bytes, config.line_bytes, config.l2.ways) {
  socket.register_b_transport(this, &ICacheL2::b_transport);
  socket.register_transport_dbg(this, &ICacheL2::transport_dbg);
}

void ICacheL2::b_transport(int /*unit*/, tlm::tlm_generic_payload& payload,
                           sc_core::sc_time& delay) {
  const uint64_t line = payload.get_address() / m_line_bytes;
  // One lookup per cycle: wait for the port, then the lookup latency.
  const uint64_t now = to_ps(time_now(*this)) + to_ps(delay);
  const uint64_t start = m_port.reserve(now, m_period_ps);
  sc_core::wait(ps(start - to_ps(time_now(*this)) + m_config.latency_ps));
  delay = sc_core::SC_ZERO_TIME;
  const auto filling = m_filling.find(line);
  if (filling != m_filling.end()) {
    ++m_merged;
    sc_core::wait(*filling->second);
  } else if (m_tags.lookup(payload.get_address())) {
    ++m_hits;
  } else {
    ++m_misses;
    m_evictions += m_tags.insert(payload.get_address()) ? 1 : 0;
    auto done = std::make_unique<sc_core::sc_event>();
    sc_core::sc_event& event = *done;
    m_filling.emplace(line, std::move(done));
    mem->b_transport(payload, delay);
    sc_core::wait(delay);
    delay = sc_core::SC_ZERO_TIME;
    event.notify();
    m_filling.erase(line); // waiters were triggered; the event may go
    return;
  }
  // A hit (or a merged miss): the bytes come from the line, read here untimed.
  if (mem->transport_dbg(payload) != payload.get_data_length()) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned ICacheL2::transport_dbg(int /*unit*/, tlm::tlm_generic_payload& payload) {
  return mem->transport_dbg(payload);
}

StatGroup ICacheL2::stats() const {
  return m_stats.collect();
}

double ICacheL2::hit_rate() const {
  const uint64_t lookups = m_hits.count() + m_misses.count() + m_merged.count();
  return lookups ? static_cast<double>(m_hits.count() + m_merged.count()) / lookups : 0;
}

BlockEnergy ICache::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"icache.unit" + std::to_string(m_unit), {}};
  e.add("lookup", static_cast<double>(hits() + misses()) * m_config.energy.lookup_pj);
  e.add("fill", static_cast<double>(misses()) * m_config.energy.fill_pj);
  const double mib = static_cast<double>(m_config.size_bytes) / (1 << 20);
  e.add("static", static_pj(m_config.energy.static_mw_per_mib * mib, simulated_ps));
  return e;
}

void ICacheTotals::report_stats(StatSink& sink, uint64_t /*simulated_ps*/) const {
  StatGroup icache{"icache", {}};
  uint64_t hits = 0, misses = 0, evictions = 0, fetch_misses = 0, fetch_stall_ps = 0;
  for (const ICache* ic : m_caches) {
    hits += ic->hits();
    misses += ic->misses();
    evictions += ic->evictions();
    fetch_misses += ic->fetch_misses();
    fetch_stall_ps += ic->fetch_stall_ps();
  }
  icache.add("hits", static_cast<double>(hits), "count", "lines found resident, all units");
  icache.add("misses", static_cast<double>(misses), "count", "lines filled, all units");
  icache.add("evictions", static_cast<double>(evictions), "count", "lines replaced, all units");
  icache.add("hit_rate", hits + misses ? static_cast<double>(hits) / (hits + misses) : 0, "ratio",
             "hits over lookups");
  icache.add("fetch_misses", static_cast<double>(fetch_misses), "count",
             "lines missed while executing, all units");
  icache.add("fetch_stall_ns", static_cast<double>(fetch_stall_ps) / 1000.0, "ns",
             "execution stalled on instruction misses, all units");
  sink.add(std::move(icache));
}

} // namespace npu
