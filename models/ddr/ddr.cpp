#include "models/ddr/ddr.h"

#include <algorithm>
#include <cmath>

namespace npu {

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config)
    : sc_module(name), socket("socket"), m_config(config), m_tck_ps(config.spec.tck_ps),
      m_memory(config.size_bytes), m_mapper(config.spec, config.mapping_fields, config.hash) {
  SC_HAS_PROCESS(Ddr);
  for (uint32_t c = 0; c < config.spec.channels; ++c) {
    m_channels.push_back(std::make_unique<DramChannel>(config.spec, config.controller, m_mapper));
    m_channels.back()->on_done = [this](uint64_t id, uint64_t) { request_done(id); };
    // A queue entry frees when its RD/WR issues: blocked initiators may enter then.
    m_channels.back()->on_dequeue = [this](bool, uint64_t) {
      if (m_room_waiters > 0)
        m_room.notify(sc_core::SC_ZERO_TIME);
    };
  }
  socket.register_b_transport(this, &Ddr::b_transport);
  socket.register_transport_dbg(this, &Ddr::transport_dbg);
  SC_METHOD(run_controllers);
  sensitive << m_kick;
  dont_initialize();
}

uint64_t Ddr::cycle_now() const {
  return static_cast<uint64_t>(
      std::floor(static_cast<double>(to_ps(sc_core::sc_time_stamp())) / m_tck_ps + 1e-9));
}

uint64_t Ddr::cycle_ps(uint64_t cycle) const {
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * m_tck_ps));
}

void Ddr::request_done(uint64_t id) {
  Waiter* w = m_waiting.at(id);
  sc_assert(w);
  m_waiting[id] = nullptr;
  m_free_ids.push_back(static_cast<uint32_t>(id));
  if (--w->remaining == 0)
    w->done.notify(sc_core::SC_ZERO_TIME);
}

void Ddr::run_controllers() {
  const uint64_t now = cycle_now();
  m_last_cycle = now;
  uint64_t next = UINT64_MAX;
  for (auto& ch : m_channels) {
    if (ch->due(now))
      ch->advance_to(now);
    // Wake for the next completion only; the commands before it are replayed by the
    // next advance (an arrival advances its channel first). Initiators waiting for a
    // queue entry need the exact cycle a command frees one.
    next = std::min(next, m_room_waiters > 0 ? ch->next_event() : ch->next_completion_bound());
  }
  if (next == UINT64_MAX) {
    next_trigger(m_kick);
  } else {
    const uint64_t at = std::max(cycle_ps(next), to_ps(sc_core::sc_time_stamp()) + 1);
    next_trigger(ps(at) - sc_core::sc_time_stamp(), m_kick);
  }
}

void Ddr::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  if (len == 0 || !m_memory.contains(addr, len)) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (payload.get_byte_enable_ptr()) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  // The controller queues requests at the time they arrive.
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  const bool is_write = payload.is_write();
  const uint64_t access = m_config.spec.access_bytes;
  std::unique_ptr<Waiter> owned;
  if (m_spare_waiters.empty()) {
    owned = std::make_unique<Waiter>();
  } else {
    owned = std::move(m_spare_waiters.back());
    m_spare_waiters.pop_back();
  }
  Waiter& waiter = *owned;
  for (uint64_t a = addr / access * access; a < addr + len; a += access) {
    DramChannel& ch = *m_channels[m_mapper.channel_of(a)];
    // The controller sleeps between completions: replay the commands up to now first
    // (they may have freed a queue entry).
    if (const uint64_t cycle = cycle_now(); cycle > ch.now())
      ch.advance_to(cycle);
    if (!ch.can_accept(is_write)) {
      // Queue full: let the controller run, then take the next free entry.
      m_kick.notify(sc_core::SC_ZERO_TIME);
      ++m_room_waiters;
      while (!ch.can_accept(is_write))
        sc_core::wait(m_room);
      --m_room_waiters;
    }
    uint64_t id = m_waiting.size();
    if (m_free_ids.empty()) {
      m_waiting.push_back(&waiter);
    } else {
      id = m_free_ids.back();
      m_free_ids.pop_back();
      m_waiting[id] = &waiter;
    }
    ++waiter.remaining;
    ch.enqueue(DramRequest{id, a, is_write}, std::max(cycle_now(), ch.now()));
  }
  // The controllers look at the new requests one delta later, once every request
  // arriving at this time is in (write draining decides on the queues' fill).
  m_kick.notify(sc_core::SC_ZERO_TIME);
  while (waiter.remaining > 0)
    sc_core::wait(waiter.done);
  m_spare_waiters.push_back(std::move(owned));
  if (is_write) {
    m_memory.write(addr, payload.get_data_ptr(), len);
    m_write_bytes += len;
  } else {
    m_memory.read(addr, payload.get_data_ptr(), len);
    m_read_bytes += len;
  }
  if (m_trace)
    m_trace->ddr_bytes(to_ps(sc_core::sc_time_stamp()), len);
  // The controller front end and PHY sit outside the DRAM timing.
  delay = ps(m_config.controller_latency_ps);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Ddr::transport_dbg(tlm::tlm_generic_payload& payload) {
  return debug_access(m_memory, payload);
}

StatGroup Ddr::stats(uint64_t simulated_ps) const {
  StatGroup g{"ddr", {}};
  DramChannelStats sum;
  double latency_sum = 0;
  for (const auto& ch : m_channels) {
    // Idle channels were left behind; bring their refreshes up to the latest run.
    if (ch->now() < m_last_cycle)
      ch->advance_to(m_last_cycle);
    const DramChannelStats& s = ch->stats();
    sum.reads += s.reads;
    sum.writes += s.writes;
    sum.row_hits += s.row_hits;
    sum.row_misses += s.row_misses;
    sum.row_conflicts += s.row_conflicts;
    sum.activates += s.activates;
    sum.refreshes += s.refreshes;
    sum.data_bus_busy_cycles += s.data_bus_busy_cycles;
    latency_sum += static_cast<double>(s.read_latency_sum_cycles);
  }
  g.add("reads", static_cast<double>(sum.reads), "count", "64-byte read requests");
  g.add("writes", static_cast<double>(sum.writes), "count", "64-byte write requests");
  g.add("read_bytes", static_cast<double>(m_read_bytes), "bytes", "bytes read");
  g.add("write_bytes", static_cast<double>(m_write_bytes), "bytes", "bytes written");
  const double accesses = static_cast<double>(sum.row_hits + sum.row_misses + sum.row_conflicts);
  g.add("row_hit_rate", accesses > 0 ? sum.row_hits / accesses : 0, "ratio",
        "requests that found their row open");
  g.add("row_conflicts", static_cast<double>(sum.row_conflicts), "count",
        "requests that had to close another row first");
  g.add("activates", static_cast<double>(sum.activates), "count", "ACT commands");
  g.add("refreshes", static_cast<double>(sum.refreshes), "count", "all-bank refreshes");
  g.add("read_latency_mean_ns", sum.reads ? latency_sum / sum.reads * m_tck_ps / 1000.0 : 0, "ns",
        "queue acceptance to end of data burst, mean over reads");
  const double capacity = static_cast<double>(simulated_ps) * m_channels.size();
  g.add("utilization",
        capacity > 0 ? static_cast<double>(sum.data_bus_busy_cycles) * m_tck_ps / capacity : 0,
        "ratio", "fraction of time the data buses were transferring");
  const double seconds = static_cast<double>(simulated_ps) * 1e-12;
  g.add("bandwidth_gbps", seconds > 0 ? (m_read_bytes + m_write_bytes) / seconds / 1e9 : 0, "GB/s",
        "bytes moved over simulated time");
  g.add("peak_gbps", m_config.spec.channel_bytes_per_s() * m_channels.size() / 1e9, "GB/s",
        "peak bandwidth of all channels");
  return g;
}

} // namespace npu
