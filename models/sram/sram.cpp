#include "models/sram/sram.h"

#include "common/error.h"
#include "config/units.h"

#include <algorithm>

namespace npu {

Sram::Sram(sc_core::sc_module_name name, const SramConfig& config)
    : sc_module(name), socket("socket"), m_config(config),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_memory(config.size_bytes), m_banks(config.banks), m_ports(config.ports) {
  for (uint32_t i = 0; i < m_ports.size(); ++i)
    m_port_heap.push_back(i); // all free at 0: in index order, a heap already
  socket.register_b_transport(this, &Sram::b_transport);
  socket.register_transport_dbg(this, &Sram::transport_dbg);
}

uint64_t Sram::allocate(uint64_t bytes, uint64_t align, const std::string& owner) {
  const uint64_t start = (m_next_free + align - 1) / align * align;
  if (bytes > m_config.size_bytes || start > m_config.size_bytes - bytes)
    throw SimulationError(
        "SRAM allocation of " + units::format_bytes(bytes) + " for " + owner +
        " does not fit: " + units::format_bytes(m_config.size_bytes - m_next_free) + " of " +
        units::format_bytes(m_config.size_bytes) + " free");
  m_next_free = start + bytes;
  return start;
}

void Sram::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_extension<SpanExtension>()) {
    serve_rows(payload, delay);
    return;
  }
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  if (!m_memory.contains(addr, len) || len == 0) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  // The access takes as many cycles as its busiest bank.
  const uint64_t w = m_config.bank_width_bytes;
  const uint64_t first = addr / w;
  const uint64_t last = (addr + len - 1) / w;
  // Consecutive words go to consecutive banks, so every bank gets the ceiling or the floor
  // of words/banks (one word at most when there are fewer words than banks).
  const auto busiest =
      static_cast<uint32_t>((last - first + 1 + m_config.banks - 1) / m_config.banks);
  const uint64_t ready = to_ps(time_now(*this) + delay);
  const uint64_t duration = busiest * m_period_ps;
  const uint64_t start = m_ports[m_port_heap.front()].reserve(ready, duration);
  sift_top_port();
  // Banks touched by this access are busy for its duration (conflicts across ports).
  // The touched banks are a run from first's bank, wrapping at the last (stepped rather
  // than taken modulo per word: a division costs more than the rest of the loop).
  uint64_t bank_start = start;
  const uint64_t touched = std::min<uint64_t>(last - first + 1, m_config.banks);
  const uint64_t first_bank = first % m_config.banks;
  for (uint64_t i = 0, b = first_bank; i < touched; ++i, b = b + 1 == m_config.banks ? 0 : b + 1)
    bank_start = std::max(bank_start, m_banks[b].free_ps());
  for (uint64_t i = 0, b = first_bank; i < touched; ++i, b = b + 1 == m_config.banks ? 0 : b + 1)
    m_banks[b].reserve(bank_start, duration);
  // The busiest bank holds the ideal share, so only waiting for other ports' accesses
  // to the same banks counts as conflict.
  m_conflict_cycles += (bank_start - start) / m_period_ps;
  const uint64_t done = bank_start + duration + m_config.latency_cycles * m_period_ps;
  copy_payload_data(m_memory, payload);
  ++m_accesses;
  m_bytes += len;
  delay = ps(done) - time_now(*this);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Sram::serve_rows(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const PayloadRows rows = payload_rows(payload);
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  if (len == 0 || rows.row_bytes == 0 || !m_memory.contains(addr, rows.extent())) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  auto* span = payload.get_extension<SpanExtension>();
  const uint64_t now = to_ps(time_now(*this));
  const uint64_t ready = now + to_ps(delay);
  // Every row takes as many cycles as its busiest bank. The span holds one port for all its
  // rows from its first byte on (its banks are those of its own rows: in closed form it
  // does not wait for other accesses' banks), and ends no earlier than its last row's data
  // came in (evenly over the spread) and went through.
  const uint64_t w = m_config.bank_width_bytes;
  uint64_t busy = 0, first_row = 0, last_row = 0;
  // Rows a whole number of bank words apart all start at the same place in a word: each
  // takes as long as the first.
  const uint64_t repeats = rows.stride % w == 0 ? std::max<uint64_t>(rows.rows, 1) : 1;
  for (uint64_t i = 0; i < rows.rows; i += repeats) {
    const uint64_t a = addr + i * rows.stride;
    const uint64_t words = (a + rows.row_bytes - 1) / w - a / w + 1;
    const uint64_t cycles = (words + m_config.banks - 1) / m_config.banks;
    busy += repeats * cycles * m_period_ps;
    first_row = i == 0 ? cycles * m_period_ps : first_row;
    last_row = cycles * m_period_ps;
  }
  const uint64_t start = m_ports[m_port_heap.front()].reserve(ready, busy);
  sift_top_port();
  const uint64_t latency = m_config.latency_cycles * m_period_ps;
  const uint64_t end = std::max(start + busy, ready + span->spread_ps + last_row);
  copy_payload_rows(m_memory, payload);
  ++m_accesses;
  m_bytes += len;
  span->first_done_ps = start + first_row + latency;
  delay = ps(end + latency - now);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void Sram::sift_top_port() {
  const size_t n = m_port_heap.size();
  size_t i = 0;
  for (;;) {
    const size_t l = 2 * i + 1, r = l + 1;
    size_t m = i;
    if (l < n && port_before(m_port_heap[l], m_port_heap[m]))
      m = l;
    if (r < n && port_before(m_port_heap[r], m_port_heap[m]))
      m = r;
    if (m == i)
      return;
    std::swap(m_port_heap[i], m_port_heap[m]);
    i = m;
  }
}

unsigned Sram::transport_dbg(tlm::tlm_generic_payload& payload) {
  return debug_access(m_memory, payload);
}

StatGroup Sram::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

double Sram::utilization(uint64_t simulated_ps) const {
  uint64_t busy = 0;
  for (const auto& p : m_ports)
    busy += p.busy_ps();
  const double capacity = static_cast<double>(simulated_ps) * m_ports.size();
  return capacity > 0 ? busy / capacity : 0;
}

BlockEnergy Sram::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"sram", {}};
  const double bank_accesses =
      static_cast<double>(m_bytes.count()) / static_cast<double>(m_config.bank_width_bytes);
  e.add("access", bank_accesses * m_config.energy.access_pj);
  const double mib = static_cast<double>(m_config.size_bytes) / (1 << 20);
  e.add("static", static_pj(m_config.energy.static_mw_per_mib * mib, simulated_ps));
  return e;
}

} // namespace npu
