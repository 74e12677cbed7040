#pragma once

#include "models/common/block.h"
#include "models/common/span_extension.h"
#include "models/common/sparse_memory.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace npu {

/// The host's DRAM as a discrete card sees it through the PCIe link: real bytes,
/// a fixed access latency and a bandwidth that serialises accesses.
class HostMemory : public sc_core::sc_module, public Block {
public:
  tlm_utils::simple_target_socket<HostMemory> socket;

  HostMemory(sc_core::sc_module_name name, uint64_t size_bytes, uint64_t latency_ps,
             double bytes_per_s);

  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }

private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);

  SparseMemory m_memory;
  uint64_t m_latency_ps;
  double m_bytes_per_s;
  BusyResource m_port;

  StatRegistry m_stats{"host_memory"};
  Stat m_bytes{m_stats, "bytes", "bytes", "bytes the device read and wrote"};
  DerivedStat m_utilization{
      m_stats, "utilization", "ratio", "fraction of time the host memory port was busy",
      [this](uint64_t simulated_ps) {
        return simulated_ps ? static_cast<double>(m_port.busy_ps()) / simulated_ps : 0;
      }};
};

} // namespace npu
