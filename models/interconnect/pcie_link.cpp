#include "models/interconnect/pcie_link.h"

#include <algorithm>

namespace npu {

PcieLink::PcieLink(sc_core::sc_module_name name, const PcieConfig& config)
    : sc_module(name), down_in("down_in"), down_out("down_out"), up_in("up_in"), up_out("up_out"),
      m_config(config) {
  down_in.register_b_transport(this, &PcieLink::b_down);
  down_in.register_transport_dbg(this, &PcieLink::dbg_down);
  up_in.register_b_transport(this, &PcieLink::b_up);
  up_in.register_transport_dbg(this, &PcieLink::dbg_up);
}

uint64_t PcieLink::wire_ps(uint64_t bytes, uint64_t* packets) const {
  const uint64_t n =
      std::max<uint64_t>(1, (bytes + m_config.max_payload_bytes - 1) / m_config.max_payload_bytes);
  *packets = n;
  return transfer_ps(bytes + n * m_config.packet_overhead_bytes, m_config.raw_bytes_per_s());
}

uint64_t PcieLink::cross(Direction& dir, uint64_t bytes, uint64_t ready_ps) {
  uint64_t packets = 0;
  const uint64_t duration = wire_ps(bytes, &packets);
  const uint64_t start = dir.wire.reserve(ready_ps, duration);
  dir.bytes += bytes;
  dir.packets += packets;
  return start + duration + m_config.latency_ps;
}

void PcieLink::forward(Direction& there, Direction& back, tlm::tlm_generic_payload& payload,
                       sc_core::sc_time& delay, bool downstream) {
  const uint64_t len = payload.get_data_length();
  const uint64_t ready = to_ps(sc_core::sc_time_stamp() + delay);
  // A write carries its data out; a read sends only a request packet.
  const uint64_t arrive = cross(there, payload.is_write() ? len : 0, ready);
  delay = ps(arrive) - sc_core::sc_time_stamp();
  if (downstream)
    down_out->b_transport(payload, delay);
  else
    up_out->b_transport(payload, delay);
  if (payload.is_read() && payload.is_response_ok()) {
    const uint64_t done = to_ps(sc_core::sc_time_stamp() + delay);
    delay = ps(cross(back, len, done)) - sc_core::sc_time_stamp();
  }
}

void PcieLink::b_down(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  forward(m_down, m_up, payload, delay, true);
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
  StatGroup g{"pcie", {}};
  const double seconds = static_cast<double>(simulated_ps) * 1e-12;
  for (const auto* d : {&m_down, &m_up}) {
    // Named by where the bytes flow: a device read of host memory flows to_device.
    const std::string name = d == &m_down ? "to_device" : "to_host";
    const std::string where = d == &m_down ? "toward the device" : "toward the host";
    g.add(name + "_bytes", static_cast<double>(d->bytes), "bytes", "payload bytes " + where);
    g.add(name + "_packets", static_cast<double>(d->packets), "count", "packets " + where);
    g.add(name + "_utilization",
          simulated_ps ? static_cast<double>(d->wire.busy_ps()) / simulated_ps : 0, "ratio",
          "fraction of time the wire " + where + " was busy");
    g.add(name + "_gbps", seconds > 0 ? d->bytes / seconds / 1e9 : 0, "GB/s",
          "payload bandwidth " + where + " over simulated time");
  }
  g.add("peak_gbps", m_config.raw_bytes_per_s() / 1e9, "GB/s",
        "raw bandwidth of one direction after encoding");
  return g;
}

} // namespace npu
