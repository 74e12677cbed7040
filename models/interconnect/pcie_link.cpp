#include "models/interconnect/pcie_link.h"

#include "common/error.h"

#include <algorithm>

namespace npu {

PcieLink::PcieLink(sc_core::sc_module_name name, const PcieConfig& config)
    : sc_module(name), down_in("down_in"), down_out("down_out"), up_in("up_in"), up_out("up_out"),
      m_config(config) {
  down_in.register_b_transport(this, &PcieLink::b_down);
  down_in.register_transport_dbg(this, &PcieLink::dbg_down);
  up_in.register_b_transport(this, &PcieLink::b_up);
  up_in.register_transport_dbg(this, &PcieLink::dbg_up);
  SC_HAS_PROCESS(PcieLink);
  SC_THREAD(deliver_posted);
}

PcieLink::Direction::Direction(StatList& stats, const std::string& name, const std::string& where)
    : bytes(stats, name + "_bytes", "bytes", "payload bytes " + where),
      packets(stats, name + "_packets", "count", "packets " + where),
      utilization(stats, name + "_utilization", "ratio",
                  "fraction of time the wire " + where + " was busy",
                  [this](uint64_t simulated_ps) {
                    return simulated_ps ? static_cast<double>(wire.busy_ps()) / simulated_ps : 0;
                  }),
      gbps(stats, name + "_gbps", "GB/s", "payload bandwidth " + where + " over simulated time",
           [this](uint64_t simulated_ps) {
             const double seconds = static_cast<double>(simulated_ps) * 1e-12;
             return seconds > 0 ? bytes.count() / seconds / 1e9 : 0;
           }) {}

uint64_t PcieLink::wire_ps(uint64_t bytes, uint64_t* packets, uint64_t min_packets) const {
  const uint64_t n = std::max<uint64_t>(min_packets, (bytes + m_config.max_payload_bytes - 1) /
                                                         m_config.max_payload_bytes);
  *packets = n;
  return transfer_ps(bytes + n * m_config.packet_overhead_bytes, m_config.raw_bytes_per_s());
}

uint64_t PcieLink::cross(Direction& dir, uint64_t bytes, uint64_t ready_ps, uint64_t min_packets) {
  uint64_t packets = 0;
  const uint64_t duration = wire_ps(bytes, &packets, min_packets);
  const uint64_t start = dir.wire.reserve(ready_ps, duration);
  dir.bytes += bytes;
  dir.packets += packets;
  return start + duration + m_config.latency_ps;
}

void PcieLink::forward(Direction& there, Direction& back, tlm::tlm_generic_payload& payload,
                       sc_core::sc_time& delay, bool downstream) {
  const uint64_t len = payload.get_data_length();
  const uint64_t ready = to_ps(time_now(*this) + delay);
  auto* span = payload.get_extension<SpanExtension>();
  // A write carries its data out; a read sends only a request packet (a span one per unit,
  // as its bursts would), and its data comes back as the span's data came in.
  const uint64_t unit = span ? std::max<uint64_t>(std::min(span->unit_bytes, len), 1) : len;
  const uint64_t requests = span ? (len + unit - 1) / unit : 1;
  uint64_t arrive = cross(there, payload.is_write() ? len : 0, ready, requests);
  uint64_t unused = 0;
  if (span && payload.is_write())
    arrive =
        std::max(arrive, ready + span->spread_ps + wire_ps(unit, &unused, 1) + m_config.latency_ps);
  delay = ps(arrive) - time_now(*this);
  if (downstream)
    down_out->b_transport(payload, delay);
  else
    up_out->b_transport(payload, delay);
  if (payload.is_read() && payload.is_response_ok()) {
    const uint64_t done = to_ps(time_now(*this) + delay);
    delay = ps(cross(back, len, done)) - time_now(*this);
  }
  if (span) {
    // Its first unit ahead of the rest by the rest's time on the wire.
    const uint64_t last = to_ps(time_now(*this) + delay);
    const uint64_t rest =
        wire_ps(len, &unused, 1) - std::min(wire_ps(len, &unused, 1), wire_ps(unit, &unused, 1));
    span->first_done_ps = std::max(ready, last - std::min(last, rest));
  }
}

void PcieLink::b_down(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  NpuExtension* ext = nullptr;
  payload.get_extension(ext);
  if (payload.is_write() && ext && ext->posted) {
    // The data leaves with the packets; the initiator goes on once they are out.
    const uint64_t len = payload.get_data_length();
    const uint64_t ready = to_ps(time_now(*this) + delay);
    Posted p;
    p.addr = payload.get_address();
    p.data.assign(payload.get_data_ptr(), payload.get_data_ptr() + len);
    p.arrive_ps = cross(m_down, len, ready);
    p.ext = *ext;
    delay = ps(p.arrive_ps - m_config.latency_ps) - time_now(*this);
    m_posted.push_back(std::move(p));
    ++m_posted_writes;
    m_posted_added.notify(sc_core::SC_ZERO_TIME);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  // Ordered behind earlier posted writes: they reach the device first.
  if (!m_posted.empty()) {
    const sc_core::sc_time at = time_now(*this) + delay;
    while (!m_posted.empty())
      sc_core::wait(m_posted_drained);
    delay = at > time_now(*this) ? at - time_now(*this) : sc_core::SC_ZERO_TIME;
  }
  forward(m_down, m_up, payload, delay, true);
}

void PcieLink::deliver_posted() {
  guarded([this] {
    tlm::tlm_generic_payload payload;
    while (true) {
      while (m_posted.empty())
        sc_core::wait(m_posted_added);
      Posted& p = m_posted.front();
      const uint64_t now = to_ps(time_now(*this));
      sc_core::sc_time delay = ps(p.arrive_ps > now ? p.arrive_ps - now : 0);
      payload.set_command(tlm::TLM_WRITE_COMMAND);
      payload.set_address(p.addr);
      payload.set_data_ptr(p.data.data());
      payload.set_data_length(static_cast<uint32_t>(p.data.size()));
      payload.set_streaming_width(static_cast<uint32_t>(p.data.size()));
      payload.set_byte_enable_ptr(nullptr);
      payload.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      {
        const ScopedExtension<NpuExtension> tagged(payload, &p.ext);
        down_out->b_transport(payload, delay);
      }
      if (!payload.is_response_ok())
        throw SimulationError("posted write over PCIe to device address " + std::to_string(p.addr) +
                              " failed: address not mapped");
      sc_core::wait(delay);
      m_posted.pop_front();
      if (m_posted.empty())
        m_posted_drained.notify(sc_core::SC_ZERO_TIME);
    }
  });
}

void PcieLink::b_up(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  forward(m_up, m_down, payload, delay, false);
}

unsigned PcieLink::dbg_down(tlm::tlm_generic_payload& payload) {
  return down_out->transport_dbg(payload);
}

unsigned PcieLink::dbg_up(tlm::tlm_generic_payload& payload) {
  return up_out->transport_dbg(payload);
}

StatGroup PcieLink::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

BlockEnergy PcieLink::energy(uint64_t) const {
  BlockEnergy e{"pcie", {}};
  const double bytes = static_cast<double>(m_down.bytes.count() + m_up.bytes.count()) +
                       static_cast<double>(m_down.packets.count() + m_up.packets.count()) *
                           static_cast<double>(m_config.packet_overhead_bytes);
  e.add("link", bytes * 8 * m_config.energy.per_bit_pj);
  return e;
}

} // namespace npu
