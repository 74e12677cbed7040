#pragma once

#include "common/stats.h"
#include "common/tlm_util.h"
#include "models/dma/dma_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <string>
#include <vector>

namespace npu {

/// DMA engine with `channels` channels. A copy takes a free channel (waiting for one
/// if all are busy), then streams bursts read-then-write through the interconnect
/// with up to `outstanding` bursts in flight, so it queues behind other traffic.
class DmaEngine : public sc_core::sc_module {
public:
  tlm_utils::simple_initiator_socket<DmaEngine> socket;

  DmaEngine(sc_core::sc_module_name name, const DmaConfig& config);

  /// Copies `bytes` from `src` to `dst` (device addresses); blocks the calling
  /// SystemC thread until the last write is done. A bus error throws
  /// SimulationError naming `what`.
  void copy(uint64_t dst, uint64_t src, uint64_t bytes, const std::string& what,
            const NpuExtension& tag);

  StatGroup stats(uint64_t simulated_ps) const;

private:
  struct Channel {
    bool busy = false;
    uint64_t bytes = 0;
    uint64_t transfers = 0;
    uint64_t busy_ps = 0;
  };

  uint32_t acquire();

  DmaConfig m_config;
  uint64_t m_period_ps;
  std::vector<Channel> m_channels;
  sc_core::sc_event m_channel_freed;
  uint32_t m_next_channel = 0;
  std::vector<uint8_t> m_buffer;
};

} // namespace npu
