#include "models/interconnect/router.h"

namespace npu {

Router::Router(sc_core::sc_module_name name, const InterconnectConfig& config)
    : sc_module(name), target("target"), initiator("initiator"), m_config(config) {
  target.register_b_transport(this, &Router::b_transport);
  target.register_transport_dbg(this, &Router::transport_dbg);
  target.register_nb_transport_fw(this, &Router::nb_transport_fw);
  initiator.register_nb_transport_bw(this, &Router::nb_transport_bw);
}

Router::Region::Region(StatList& stats, uint64_t base, uint64_t size, const std::string& name,
                       bool deferred)
    : base(base), size(size), name(name), deferred(deferred),
      transactions(stats, name + "_transactions", "count", "transactions routed to " + name),
      bytes(stats, name + "_bytes", "bytes", "bytes routed to " + name),
      utilization(stats, name + "_utilization", "ratio",
                  "fraction of time the " + name + " port carried data",
                  [this](uint64_t simulated_ps) {
                    return simulated_ps ? static_cast<double>(port.busy_ps()) / simulated_ps : 0;
                  }) {}

void Router::map(uint64_t base, uint64_t size, const std::string& name, bool deferred) {
  m_regions.emplace_back(m_region_stats, base, size, name, deferred);
  m_spans.emplace_back(base, size);
}

int Router::decode(uint64_t addr, uint64_t len) const {
  // The first region that holds the whole access.
  for (size_t i = 0; i < m_spans.size(); ++i) {
    const auto [base, size] = m_spans[i];
    if (addr >= base && addr - base < size && len <= size - (addr - base))
      return static_cast<int>(i);
  }
  return -1;
}
uint64_t Router::cross(Region& r, const tlm::tlm_generic_payload& payload,
                       sc_core::sc_time& delay) {
  const uint64_t len = payload.get_data_length();
  // The request crosses the port after the hop; its data occupies the port for len/bw.
  const uint64_t now = to_ps(time_now(*this));
  const uint64_t ready = now + to_ps(delay) + m_config.hop_latency_ps;
  const uint64_t occupancy = transfer_ps(len, m_config.port_bytes_per_s);
  const uint64_t start = r.port.reserve(ready, occupancy);
  delay = ps(start) - time_now(*this);
  ++r.transactions;
  r.bytes += len;
  const auto* ext = payload.get_extension<NpuExtension>();
  m_bytes_by_initiator[static_cast<size_t>(ext ? ext->who : Initiator::Unknown)] += len;
  return start + occupancy;
}

void Router::b_transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t addr = payload.get_address();
  const int port = decode(addr, payload_rows(payload).extent());
  if (port < 0) {
    ++m_decode_errors;
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  Region& r = m_regions[static_cast<size_t>(port)];
  const uint64_t streamed = cross(r, payload, delay);
  payload.set_address(addr - r.base);
  initiator[port]->b_transport(payload, delay);
  payload.set_address(addr);
  // The response crosses the port no earlier than its data has streamed through.
  const uint64_t end = std::max(to_ps(time_now(*this) + delay), streamed);
  delay = ps(end + m_config.hop_latency_ps) - time_now(*this);
  // A span's first unit comes back the same way.
  if (auto* span = payload.get_extension<SpanExtension>(); span && span->first_done_ps > 0)
    span->first_done_ps = std::min(span->first_done_ps, end) + m_config.hop_latency_ps;
}

tlm::tlm_sync_enum Router::nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                           tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  const uint64_t addr = payload.get_address();
  const int port = decode(addr, payload_rows(payload).extent());
  Region* r = port < 0 ? nullptr : &m_regions[static_cast<size_t>(port)];
  if (r && r->deferred) {
    const uint64_t streamed = cross(*r, payload, delay);
    m_pending.put(&payload, Pending{id, addr, streamed});
    payload.set_address(addr - r->base);
    const tlm::tlm_sync_enum status = initiator[port]->nb_transport_fw(payload, phase, delay);
    if (status == tlm::TLM_COMPLETED) // answered in the call after all
      respond(m_pending.take(&payload), payload, delay);
    return status;
  }
  // Served at once: blocking transport, which such targets do without waiting.
  b_transport(id, payload, delay);
  phase = tlm::BEGIN_RESP;
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum Router::nb_transport_bw(int, tlm::tlm_generic_payload& payload,
                                           tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  sc_assert(m_pending.find(&payload));
  const Pending p = m_pending.take(&payload);
  respond(p, payload, delay);
  return target[p.initiator]->nb_transport_bw(payload, phase, delay);
}

void Router::respond(const Pending& p, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  payload.set_address(p.addr);
  // The response crosses the port no earlier than its data has streamed through.
  const uint64_t end = std::max(to_ps(time_now(*this) + delay), p.streamed_ps);
  delay = ps(end + m_config.hop_latency_ps) - time_now(*this);
  if (auto* span = payload.get_extension<SpanExtension>(); span && span->first_done_ps > 0)
    span->first_done_ps = std::min(span->first_done_ps, end) + m_config.hop_latency_ps;
}

unsigned Router::transport_dbg(int, tlm::tlm_generic_payload& payload) {
  const uint64_t addr = payload.get_address();
  const int port = decode(addr, payload_rows(payload).extent());
  if (port < 0)
    return 0;
  payload.set_address(addr - m_regions[static_cast<size_t>(port)].base);
  const unsigned n = initiator[port]->transport_dbg(payload);
  payload.set_address(addr);
  return n;
}

StatGroup Router::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

BlockEnergy Router::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"interconnect", {}};
  constexpr double kHops = 2;
  for (size_t who = 0; who < m_bytes_by_initiator.size(); ++who)
    e.add(std::string(initiator_name(static_cast<Initiator>(who))) + "_bytes",
          static_cast<double>(m_bytes_by_initiator[who]) * kHops * m_config.energy.per_byte_hop_pj);
  e.add("static", static_pj(m_config.energy.static_mw, simulated_ps));
  return e;
}

} // namespace npu
