#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/pointer_map.h"
#include "models/common/span_extension.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/interconnect/interconnect_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <array>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace npu {

/// Decodes addresses to target ports, adds hop latency and serialises each target
/// port at its bandwidth. Targets see addresses relative to their region base.
/// Blocking and non-blocking transactions both pass: a non-blocking one to a region mapped
/// `deferred` goes on as non-blocking and its answer comes back over the backward path;
/// to any other region it is served by b_transport and completed in the call.
/// A port is booked in the order requests come; on either path initiators send at the
/// time a request leaves, so that order is the order of time.
class Router : public sc_core::sc_module, public Block {
public:
  tlm_utils::multi_passthrough_target_socket<Router> target;       ///< initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<Router> initiator; ///< targets, in map order

  Router(sc_core::sc_module_name name, const InterconnectConfig& config);

  /// Region [base, base+size) goes to the next initiator-socket binding (port index).
  /// `deferred`: the target answers non-blocking requests later (nb_transport_bw).
  void map(uint64_t base, uint64_t size, const std::string& name, bool deferred = false);

  StatGroup stats(uint64_t simulated_ps) const;
  /// Bytes per initiator over two hops each (initiator to router, router to target), and
  /// leakage.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    sink.add(energy(simulated_ps));
  }

private:
  struct Region {
    Region(StatList& stats, uint64_t base, uint64_t size, const std::string& name, bool deferred);

    uint64_t base;
    uint64_t size;
    std::string name;
    bool deferred;
    BusyResource port; ///< booked in the order requests come
    Stat transactions;
    Stat bytes;
    DerivedStat utilization;
  };

  int decode(uint64_t addr, uint64_t len) const;
  void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& payload,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int port, tlm::tlm_generic_payload& payload,
                                     tlm::tlm_phase& phase, sc_core::sc_time& delay);
  /// Books the port for the payload's data; sets `delay` to when the request leaves
  /// toward the target and returns when its data has streamed through the port.
  uint64_t cross(Region& r, const tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  /// A deferred request in flight: where its answer goes.
  struct Pending {
    int initiator;
    uint64_t addr;
    uint64_t streamed_ps;
  };
  /// The answer of a deferred request goes back: its address restored, its time past the
  /// port's streaming and the hop back.
  void respond(const Pending& p, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& payload);

  InterconnectConfig m_config;
  std::deque<Region> m_regions; ///< a deque: regions hold registered statistics
  /// Each region's (base, size) in map order, side by side: decode looks at every
  /// transaction, and a DMA burst alternates between two regions.
  std::vector<std::pair<uint64_t, uint64_t>> m_spans;
  PointerMap<tlm::tlm_generic_payload, Pending> m_pending;

  /// Bytes routed, indexed by the initiator of the payload (Initiator).
  std::array<uint64_t, 6> m_bytes_by_initiator{};
  StatRegistry m_stats{"interconnect"};
  StatList m_region_stats{m_stats}; ///< each region's, in map order
  Stat m_decode_errors{m_stats, "decode_errors", "count", "accesses to unmapped addresses"};
};

} // namespace npu
