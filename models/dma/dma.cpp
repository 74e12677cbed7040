#include "models/dma/dma.h"

#include "common/error.h"
#include "config/units.h"

#include <algorithm>
#include <sstream>

namespace npu {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const DmaConfig& config)
    : sc_module(name), socket("socket"), m_config(config),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_channels(config.channels) {
  for (size_t i = 0; i < m_channels.size(); ++i)
    m_channels[i].workers =
        std::make_unique<WorkerPool>(("channel" + std::to_string(i)).c_str(), config.outstanding);
}

uint32_t DmaEngine::acquire() {
  while (true) {
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

void DmaEngine::burst(const DmaTransfer& t, uint64_t index, const std::string& what,
                      const NpuExtension& tag) {
  const uint64_t per_row = (t.row_bytes + m_config.burst_bytes - 1) / m_config.burst_bytes;
  const uint64_t row = index / per_row;
  const uint64_t offset = (index % per_row) * m_config.burst_bytes;
  const uint32_t len = static_cast<uint32_t>(std::min(m_config.burst_bytes, t.row_bytes - offset));
  const uint64_t src = t.src + row * t.src_stride + offset;
  const uint64_t dst = t.dst + row * t.dst_stride + offset;
  std::vector<uint8_t> data(len);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  auto status = transact(socket, tlm::TLM_READ_COMMAND, src, data.data(), len, tag, delay);
  sc_core::wait(delay);
  if (status == tlm::TLM_OK_RESPONSE) {
    delay = sc_core::SC_ZERO_TIME;
    status = transact(socket, tlm::TLM_WRITE_COMMAND, dst, data.data(), len, tag, delay);
    sc_core::wait(delay);
  }
  if (status != tlm::TLM_OK_RESPONSE)
    throw SimulationError(
        "DMA transfer '" + what + "' (" + units::format_bytes(t.bytes()) + " from " + hex(t.src) +
        " to " + hex(t.dst) + ") failed at offset " + std::to_string(row * t.row_bytes + offset) +
        ": " + (status == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "address not mapped" : "bus error"));
}

void DmaEngine::run(const DmaTransfer& t, const std::string& what, const NpuExtension& tag) {
  if (t.bytes() == 0)
    return;
  const uint32_t ch = acquire();
  Channel& channel = m_channels[ch];
  const uint64_t begin = to_ps(sc_core::sc_time_stamp());
  NpuExtension ext = tag;
  ext.who = Initiator::Dma;
  const uint64_t per_row = (t.row_bytes + m_config.burst_bytes - 1) / m_config.burst_bytes;
  // Short rows make short bursts: more of them fit in the channel's read buffer.
  const uint32_t in_flight =
      bursts_in_flight(m_config, std::min<uint64_t>(t.row_bytes, m_config.burst_bytes));
  uint64_t issued = 0;
  try {
    sc_core::wait(ps(m_config.setup_latency_ps));
    channel.workers->run(
        per_row * t.rows,
        [&](uint64_t index) {
          // The channel issues at most one burst per cycle.
          const uint64_t slot = begin + m_config.setup_latency_ps + index * m_period_ps;
          const uint64_t now = to_ps(sc_core::sc_time_stamp());
          if (slot > now)
            sc_core::wait(ps(slot - now));
          burst(t, index, what, ext);
          ++issued;
        },
        in_flight);
  } catch (...) {
    channel.busy = false;
    m_channel_freed.notify(sc_core::SC_ZERO_TIME);
    throw;
  }
  m_bursts += issued;
  channel.bytes += t.bytes();
  ++channel.transfers;
  channel.busy_ps += to_ps(sc_core::sc_time_stamp()) - begin;
  if (m_trace)
    m_trace->slice(TraceTrack::DmaChannel, ch, what, begin, to_ps(sc_core::sc_time_stamp()),
                   tag.who == Initiator::Compute ? static_cast<int64_t>(tag.launch_id)
                                                 : Tracer::kNoLaunch);
  channel.busy = false;
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
  g.add("transfers", static_cast<double>(transfers), "count", "completed transfers");
  g.add("bursts", static_cast<double>(m_bursts), "count", "read-then-write bursts moved");
  g.add("bytes", static_cast<double>(bytes), "bytes", "bytes copied");
  g.add("utilization",
        simulated_ps
            ? static_cast<double>(busy) / (static_cast<double>(simulated_ps) * m_channels.size())
            : 0,
        "ratio", "fraction of time channels were busy");
  g.add("achieved_gbps", busy ? bytes / (static_cast<double>(busy) * 1e-12) / 1e9 : 0, "GB/s",
        "bytes per busy second of a channel");
  for (size_t i = 0; i < m_channels.size(); ++i) {
    const Channel& c = m_channels[i];
    const std::string name = "channel" + std::to_string(i);
    g.add(name + "_bytes", static_cast<double>(c.bytes), "bytes", "bytes moved by " + name);
    g.add(name + "_gbps", c.busy_ps ? c.bytes / (static_cast<double>(c.busy_ps) * 1e-12) / 1e9 : 0,
          "GB/s", "achieved bandwidth of " + name + " while busy");
  }
  return g;
}

} // namespace npu
