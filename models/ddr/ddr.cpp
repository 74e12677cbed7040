#include "models/ddr/ddr.h"

#include <algorithm>

namespace npu {

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config)
    : sc_module(name), socket("socket"), m_config(config), m_memory(config.size_bytes),
      m_channels(config.channels) {
  for (auto& ch : m_channels)
    ch.open_row.assign(static_cast<size_t>(config.ranks) * config.banks, -1);
  socket.register_b_transport(this, &Ddr::b_transport);
  socket.register_transport_dbg(this, &Ddr::transport_dbg);
}

uint64_t Ddr::access_chunk(uint64_t addr, uint64_t len, uint64_t ready_ps) {
  const uint64_t stripe = m_config.interleave_bytes * m_config.channels;
  const uint64_t channel = (addr / m_config.interleave_bytes) % m_config.channels;
  const uint64_t local =
      (addr / stripe) * m_config.interleave_bytes + addr % m_config.interleave_bytes;
  const uint64_t row = local / m_config.row_bytes;
  const uint64_t bank = row % (static_cast<uint64_t>(m_config.banks) * m_config.ranks);
  const int64_t row_id =
      static_cast<int64_t>(row / (static_cast<uint64_t>(m_config.banks) * m_config.ranks));
  Channel& ch = m_channels[channel];
  uint64_t latency = m_config.row_hit_latency_ps;
  if (ch.open_row[bank] == row_id) {
    ++m_row_hits;
  } else {
    ++m_row_misses;
    latency = m_config.row_miss_latency_ps;
    ch.open_row[bank] = row_id;
  }
  const uint64_t burst_ps = transfer_ps(len, m_config.channel_bytes_per_s());
  // Data leaves the bank after the access latency, then needs the channel's bus.
  const uint64_t start = ch.bus.reserve(ready_ps + latency, burst_ps);
  return start + burst_ps + m_config.controller_latency_ps;
}

void Ddr::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  if (!m_memory.contains(addr, len)) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (payload.get_byte_enable_ptr()) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  const uint64_t ready = to_ps(sc_core::sc_time_stamp() + delay);
  uint64_t done = ready;
  for (uint64_t offset = 0; offset < len;) {
    const uint64_t a = addr + offset;
    const uint64_t chunk =
        std::min(len - offset, m_config.interleave_bytes - a % m_config.interleave_bytes);
    done = std::max(done, access_chunk(a, chunk, ready));
    offset += chunk;
  }
  if (payload.is_read()) {
    m_memory.read(addr, payload.get_data_ptr(), len);
    ++m_reads;
    m_read_bytes += len;
  } else if (payload.is_write()) {
    m_memory.write(addr, payload.get_data_ptr(), len);
    ++m_writes;
    m_write_bytes += len;
  }
  delay = ps(done) - sc_core::sc_time_stamp();
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned Ddr::transport_dbg(tlm::tlm_generic_payload& payload) {
  const uint64_t addr = payload.get_address();
  uint64_t len = payload.get_data_length();
  if (addr >= m_memory.size_bytes())
    return 0;
  len = std::min<uint64_t>(len, m_memory.size_bytes() - addr);
  if (payload.is_read())
    m_memory.read(addr, payload.get_data_ptr(), len);
  else if (payload.is_write())
    m_memory.write(addr, payload.get_data_ptr(), len);
  return static_cast<unsigned>(len);
}

StatGroup Ddr::stats(uint64_t simulated_ps) const {
  StatGroup g{"ddr", {}};
  g.add("reads", static_cast<double>(m_reads), "count", "read transactions");
  g.add("writes", static_cast<double>(m_writes), "count", "write transactions");
  g.add("read_bytes", static_cast<double>(m_read_bytes), "bytes", "bytes read");
  g.add("write_bytes", static_cast<double>(m_write_bytes), "bytes", "bytes written");
  const double accesses = static_cast<double>(m_row_hits + m_row_misses);
  g.add("row_hit_rate", accesses > 0 ? static_cast<double>(m_row_hits) / accesses : 0, "ratio",
        "accesses that found their row open");
  uint64_t busy = 0;
  for (const auto& ch : m_channels)
    busy += ch.bus.busy_ps();
  const double capacity = static_cast<double>(simulated_ps) * m_channels.size();
  g.add("utilization", capacity > 0 ? static_cast<double>(busy) / capacity : 0, "ratio",
        "fraction of time the data buses were transferring");
  const double seconds = static_cast<double>(simulated_ps) * 1e-12;
  g.add("bandwidth_gbps", seconds > 0 ? (m_read_bytes + m_write_bytes) / seconds / 1e9 : 0, "GB/s",
        "bytes moved over simulated time");
  g.add("peak_gbps", m_config.channel_bytes_per_s() * m_channels.size() / 1e9, "GB/s",
        "peak bandwidth of all channels");
  return g;
}

} // namespace npu
