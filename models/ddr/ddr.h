#pragma once

#include "common/sparse_memory.h"
#include "common/stats.h"
#include "common/tlm_util.h"
#include "common/trace.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/ddr_config.h"
#include "models/ddr/dram_channel.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <unordered_map>
#include <vector>

namespace npu {

/// DRAM: a cycle-approximate controller per channel (DramChannel: queues, FR-FCFS,
/// JEDEC timings, refresh) behind a TLM-2.0 target that stores real bytes sparsely.
/// b_transport splits an access into 64-byte requests, queues them in their
/// channels and blocks the calling thread until the last data burst has ended; one
/// SC_METHOD runs every channel and re-arms itself at the next cycle something can
/// happen, so concurrent initiators really contend for banks and buses.
class Ddr : public sc_core::sc_module {
public:
  tlm_utils::simple_target_socket<Ddr> socket;

  Ddr(sc_core::sc_module_name name, const DdrConfig& config);

  /// Untimed access for loaders and tests.
  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;
  /// Reports the bytes moved to `tracer` (null: off).
  void set_tracer(Tracer* tracer) { m_trace = tracer; }

private:
  /// One blocked b_transport: its requests still in the controller.
  struct Waiter {
    uint32_t remaining = 0;
    sc_core::sc_event done;
  };

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);
  /// The controller clock: advances every channel to now, re-arms at the next event.
  void run_controllers();
  void request_done(uint64_t id);
  uint64_t cycle_now() const;              ///< memory clock cycle containing the current time
  uint64_t cycle_ps(uint64_t cycle) const; ///< start of a memory clock cycle

  DdrConfig m_config;
  double m_tck_ps; ///< memory clock period
  SparseMemory m_memory;
  AddressMapper m_mapper;
  std::vector<std::unique_ptr<DramChannel>> m_channels;
  /// Request id -> its transaction. Ids are slots, reused once a request is done.
  std::vector<Waiter*> m_waiting;
  std::vector<uint32_t> m_free_ids;
  /// Waiters of finished transactions, kept for reuse: an event is costly to build.
  std::vector<std::unique_ptr<Waiter>> m_spare_waiters;
  uint64_t m_last_cycle = 0;   ///< cycle of the controllers' latest run
  uint32_t m_room_waiters = 0; ///< initiators blocked on a full queue
  sc_core::sc_event m_kick;    ///< new requests: re-evaluate the next wake-up
  sc_core::sc_event m_room;    ///< a queue entry freed up
  uint64_t m_read_bytes = 0;
  Tracer* m_trace = nullptr;
  uint64_t m_write_bytes = 0;
};

} // namespace npu
