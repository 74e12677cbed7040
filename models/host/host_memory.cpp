#include "models/host/host_memory.h"

#include <algorithm>

namespace npu {

HostMemory::HostMemory(sc_core::sc_module_name name, uint64_t size_bytes, uint64_t latency_ps,
                       double bytes_per_s)
    : sc_module(name), socket("socket"), m_memory(size_bytes), m_latency_ps(latency_ps),
      m_bytes_per_s(bytes_per_s) {
  socket.register_b_transport(this, &HostMemory::b_transport);
  socket.register_transport_dbg(this, &HostMemory::transport_dbg);
}

void HostMemory::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  auto* span = payload.get_extension<SpanExtension>();
  if (!m_memory.contains(addr, span ? payload_rows(payload).extent() : len)) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint64_t ready = to_ps(time_now(*this) + delay) + m_latency_ps;
  const uint64_t duration = transfer_ps(len, m_bytes_per_s);
  const uint64_t start = m_port.reserve(ready, duration);
  uint64_t end = start + duration;
  if (span) {
    // A span's data comes in over its spread; its first unit is done first.
    copy_payload_rows(m_memory, payload);
    const uint64_t unit_ps = transfer_ps(std::min(span->unit_bytes, len), m_bytes_per_s);
    end = std::max(end, ready + span->spread_ps + unit_ps);
    span->first_done_ps = start + unit_ps;
  } else {
    copy_payload_data(m_memory, payload);
  }
  m_bytes += len;
  delay = ps(end) - time_now(*this);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned HostMemory::transport_dbg(tlm::tlm_generic_payload& payload) {
  return debug_access(m_memory, payload);
}

StatGroup HostMemory::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

} // namespace npu
