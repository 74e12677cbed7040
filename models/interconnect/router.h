#pragma once

#include "common/stats.h"
#include "common/tlm_util.h"
#include "models/interconnect/interconnect_config.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <string>
#include <vector>

namespace npu {

/// Decodes addresses to target ports, adds hop latency and serialises each target
/// port at its bandwidth. Targets see addresses relative to their region base.
class Router : public sc_core::sc_module {
public:
  tlm_utils::multi_passthrough_target_socket<Router> target;       ///< initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<Router> initiator; ///< targets, in map order

  Router(sc_core::sc_module_name name, const InterconnectConfig& config);

  /// Region [base, base+size) goes to the next initiator-socket binding (port index).
  void map(uint64_t base, uint64_t size, const std::string& name);

  StatGroup stats(uint64_t simulated_ps) const;

private:
  struct Region {
    uint64_t base;
    uint64_t size;
    std::string name;
    BusyResource port;
    uint64_t transactions = 0;
    uint64_t bytes = 0;
  };

  int decode(uint64_t addr, uint64_t len) const;
  void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& payload);

  InterconnectConfig m_config;
  std::vector<Region> m_regions;
  uint64_t m_decode_errors = 0;
};

} // namespace npu
