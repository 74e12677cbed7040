#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/span_extension.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/interconnect/interconnect_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <deque>
#include <vector>

namespace npu {

/// A PCIe-like link between the host and a discrete card. Downstream carries the
/// host's accesses to the device (descriptor writes, doorbells); upstream carries
/// the device's accesses to host memory (DMA). Each direction is a serial pipe of
/// lanes x rate; a transfer is cut into packets of max_payload bytes, each paying
/// packet_overhead bytes, and crosses after the one-way latency. A read sends a
/// request packet one way and its data back the other way. A write tagged `posted`
/// returns to its initiator once its packets have left and is delivered in order in
/// the background; any other downstream access first waits for those deliveries.
class PcieLink : public sc_core::sc_module, public Block {
public:
  tlm_utils::simple_target_socket<PcieLink> down_in;     ///< host side initiators
  tlm_utils::simple_initiator_socket<PcieLink> down_out; ///< device interconnect
  tlm_utils::simple_target_socket<PcieLink> up_in;       ///< device interconnect's host port
  tlm_utils::simple_initiator_socket<PcieLink> up_out;   ///< host memory

  PcieLink(sc_core::sc_module_name name, const PcieConfig& config);

  StatGroup stats(uint64_t simulated_ps) const;
  /// Bits on the wire both ways (payload and packet overhead).
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    sink.add(energy(simulated_ps));
  }

private:
  /// `name`: where the bytes flow (a device read of host memory flows to_device);
  /// `where`: the same in words.
  struct Direction {
    Direction(StatList& stats, const std::string& name, const std::string& where);

    BusyResource wire;
    Stat bytes; ///< payload bytes
    Stat packets;
    DerivedStat utilization;
    DerivedStat gbps;
  };

  /// Time on the wire for `bytes` of payload (at least `min_packets` packets).
  uint64_t wire_ps(uint64_t bytes, uint64_t* packets, uint64_t min_packets = 1) const;
  /// Sends `bytes` over `dir` no earlier than `ready_ps` (at least `min_packets` packets);
  /// returns arrival time.
  uint64_t cross(Direction& dir, uint64_t bytes, uint64_t ready_ps, uint64_t min_packets = 1);
  void forward(Direction& there, Direction& back, tlm::tlm_generic_payload& payload,
               sc_core::sc_time& delay, bool downstream);
  void b_down(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void b_up(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned dbg_down(tlm::tlm_generic_payload& payload);
  unsigned dbg_up(tlm::tlm_generic_payload& payload);
  /// Delivers posted writes to the device in order, each at its arrival time.
  void deliver_posted();

  struct Posted {
    uint64_t addr = 0;
    std::vector<uint8_t> data;
    uint64_t arrive_ps = 0;
    NpuExtension ext;
  };

  PcieConfig m_config;
  std::deque<Posted> m_posted; ///< front is being delivered
  sc_core::sc_event m_posted_added;
  sc_core::sc_event m_posted_drained;

  StatRegistry m_stats{"pcie"};
  Direction m_down{m_stats, "to_device", "toward the device"};
  Direction m_up{m_stats, "to_host", "toward the host"};
  Stat m_posted_writes{m_stats, "posted_writes", "count",
                       "writes the host posted toward the device (it did not wait for them)"};
  DerivedStat m_peak{m_stats, "peak_gbps", "GB/s", "raw bandwidth of one direction after encoding",
                     [this](uint64_t) { return m_config.raw_bytes_per_s() / 1e9; }};
};

} // namespace npu
