#pragma once

#include "common/sparse_memory.h"
#include "common/stats.h"
#include "common/tlm_util.h"
#include "models/ddr/ddr_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <vector>

namespace npu {

/// DRAM: stores real bytes sparsely and times each access with a per-bank open-row
/// model (row hit vs miss latency) and a per-channel data bus that serialises bursts.
class Ddr : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<Ddr> socket;

  Ddr(sc_core::sc_module_name name, const DdrConfig& config);

  /// Untimed access for loaders and tests.
  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;

private:
  struct Channel {
    BusyResource bus;
    std::vector<int64_t> open_row; ///< per rank x bank, -1 when closed
  };

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);
  /// Times one access that stays inside one channel's interleave chunk; returns its end.
  uint64_t access_chunk(uint64_t addr, uint64_t len, uint64_t ready_ps);

  DdrConfig m_config;
  SparseMemory m_memory;
  std::vector<Channel> m_channels;
  uint64_t m_reads = 0;
  uint64_t m_writes = 0;
  uint64_t m_read_bytes = 0;
  uint64_t m_write_bytes = 0;
  uint64_t m_row_hits = 0;
  uint64_t m_row_misses = 0;
};

} // namespace npu
