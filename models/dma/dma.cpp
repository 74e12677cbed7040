#include "models/dma/dma.h"

#include "common/error.h"
#include "config/units.h"

#include <algorithm>
#include <deque>
#include <sstream>

namespace npu {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const DmaConfig& config)
    : sc_module(name), socket("socket"), m_config(config),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_channels(config.channels), m_buffer(config.burst_bytes) {}

uint32_t DmaEngine::acquire() {
  while (true) {
    // Round-robin over free channels keeps the load even and the choice deterministic.
    for (uint32_t i = 0; i < m_channels.size(); ++i) {
      const uint32_t ch = (m_next_channel + i) % m_channels.size();
      if (!m_channels[ch].busy) {
        m_channels[ch].busy = true;
        m_next_channel = (ch + 1) % m_channels.size();
        return ch;
      }
    }
    sc_core::wait(m_channel_freed);
  }
}

static std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

void DmaEngine::copy(uint64_t dst, uint64_t src, uint64_t bytes, const std::string& what,
                     const NpuExtension& tag) {
  if (bytes == 0)
    return;
  const uint32_t ch = acquire();
  const uint64_t begin = to_ps(sc_core::sc_time_stamp());
  sc_core::wait(ps(m_config.setup_latency_ps));
  NpuExtension ext = tag;
  ext.who = Initiator::Dma;
  std::deque<uint64_t> inflight; // completion times of bursts in flight, oldest first
  uint64_t issue = to_ps(sc_core::sc_time_stamp());
  uint64_t last_done = issue;
  for (uint64_t offset = 0; offset < bytes;) {
    const uint64_t len = std::min(bytes - offset, m_config.burst_bytes);
    if (inflight.size() == m_config.outstanding) {
      issue = std::max(issue, inflight.front());
      inflight.pop_front();
    }
    // Temporal decoupling: run ahead of simulated time by at most one quantum.
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    if (issue > now + m_config.quantum_ps)
      sc_core::wait(ps(issue - now));
    sc_core::sc_time delay = ps(issue) - sc_core::sc_time_stamp();
    auto status = transact(socket, tlm::TLM_READ_COMMAND, src + offset, m_buffer.data(),
                           static_cast<uint32_t>(len), ext, delay);
    if (status == tlm::TLM_OK_RESPONSE)
      status = transact(socket, tlm::TLM_WRITE_COMMAND, dst + offset, m_buffer.data(),
                        static_cast<uint32_t>(len), ext, delay);
    if (status != tlm::TLM_OK_RESPONSE) {
      m_channels[ch].busy = false;
      m_channel_freed.notify(sc_core::SC_ZERO_TIME);
      throw SimulationError(
          "DMA transfer '" + what + "' (" + units::format_bytes(bytes) + " from " + hex(src) +
          " to " + hex(dst) + ") failed at offset " + std::to_string(offset) + ": " +
          (status == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "address not mapped" : "bus error"));
    }
    const uint64_t done = to_ps(sc_core::sc_time_stamp() + delay);
    inflight.push_back(done);
    last_done = std::max(last_done, done);
    issue += m_period_ps;
    offset += len;
  }
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  if (last_done > now)
    sc_core::wait(ps(last_done - now));
  Channel& c = m_channels[ch];
  c.bytes += bytes;
  ++c.transfers;
  c.busy_ps += to_ps(sc_core::sc_time_stamp()) - begin;
  c.busy = false;
  m_channel_freed.notify(sc_core::SC_ZERO_TIME);
}

StatGroup DmaEngine::stats(uint64_t simulated_ps) const {
  StatGroup g{"dma", {}};
  uint64_t bytes = 0, transfers = 0, busy = 0;
  for (const auto& c : m_channels) {
    bytes += c.bytes;
    transfers += c.transfers;
    busy += c.busy_ps;
  }
  g.add("transfers", static_cast<double>(transfers), "count", "completed copies");
  g.add("bytes", static_cast<double>(bytes), "bytes", "bytes copied");
  g.add("utilization",
        simulated_ps
            ? static_cast<double>(busy) / (static_cast<double>(simulated_ps) * m_channels.size())
            : 0,
        "ratio", "fraction of time channels were busy");
  g.add("achieved_gbps", busy ? bytes / (static_cast<double>(busy) * 1e-12) / 1e9 : 0, "GB/s",
        "bytes per busy second of a channel");
  return g;
}

} // namespace npu
