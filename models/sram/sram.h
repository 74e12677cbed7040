#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/span_extension.h"
#include "models/common/sparse_memory.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/sram/sram_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <string>
#include <vector>

namespace npu {

/// Banked scratchpad. Consecutive bank_width-byte words go to consecutive banks;
/// words of one access that land in the same bank take one cycle each, so strided
/// patterns that hit one bank are `banks` times slower than unit stride.
class Sram : public sc_core::sc_module, public Block {
public:
  tlm_utils::simple_target_socket<Sram> socket;

  Sram(sc_core::sc_module_name name, const SramConfig& config);

  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;
  /// Bank-wide accesses (bytes moved over the bank width) and leakage over `simulated_ps`.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    sink.add(energy(simulated_ps));
  }

  /// Carves [offset, offset+bytes) for `owner`; throws SimulationError when it does not fit.
  uint64_t allocate(uint64_t bytes, uint64_t align, const std::string& owner);

private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  /// A span (SpanExtension) of rows in closed form: one port for all its rows.
  void serve_rows(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);
  /// Busy fraction of all ports over `simulated_ps`.
  double utilization(uint64_t simulated_ps) const;

  SramConfig m_config;
  uint64_t m_period_ps;
  SparseMemory m_memory;
  std::vector<BusyResource> m_banks;
  std::vector<BusyResource> m_ports;
  /// The ports as a binary min-heap on (free time, index): the top is the port an access
  /// takes, the earliest free and the lowest-numbered among equals, found without a scan.
  std::vector<uint32_t> m_port_heap;
  bool port_before(uint32_t a, uint32_t b) const {
    const uint64_t fa = m_ports[a].free_ps(), fb = m_ports[b].free_ps();
    return fa != fb ? fa < fb : a < b;
  }
  /// Restores the heap after the top port's free time grew.
  void sift_top_port();
  uint64_t m_next_free = 0; ///< bump allocator

  StatRegistry m_stats{"sram"};
  Stat m_accesses{m_stats, "accesses", "count", "read and write transactions"};
  Stat m_bytes{m_stats, "bytes", "bytes", "bytes read and written"};
  Stat m_conflict_cycles{
      m_stats, "bank_conflict_cycles", "cycles",
      "cycles lost to several words of one access, or of overlapping accesses, in one bank"};
  DerivedStat m_utilization{m_stats, "utilization", "ratio", "port busy fraction",
                            [this](uint64_t simulated_ps) { return utilization(simulated_ps); }};
  DerivedStat m_allocated{m_stats, "allocated_bytes", "bytes", "bytes handed out",
                          [this](uint64_t) { return static_cast<double>(m_next_free); }};
};

} // namespace npu
