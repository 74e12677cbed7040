#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/sparse_memory.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/ddr_admission.h"
#include "models/ddr/ddr_config.h"
#include "models/ddr/ddr_transaction.h"
#include "models/ddr/dram_controllers.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace npu {

/// DRAM, split at its seams as DRAMSys splits arbiter, controller and device: this TLM
/// front end with its admission queues (DdrAdmission), the channel controllers with their
/// clock (DramControllers: queues, FR-FCFS, JEDEC timings, refresh per channel) and the
/// backing store (real bytes, sparsely). b_transport splits an access into 64-byte
/// requests, queues them in their channels and blocks the calling thread until the last
/// data burst has ended; one SC_METHOD runs the controllers and re-arms itself at the next
/// cycle something can happen, so concurrent initiators really contend for banks and
/// buses. Non-blocking requests (nb_transport_fw, Granularity::Burst) are queued in the
/// same controllers at their arrival time, by the SC_METHOD, and answered over the
/// backward path once their last request is done; no thread waits for them.
/// With `ddr.model: transaction` a DdrTransactionLevel serves every access in closed form
/// instead (a span of rows included), answered in the call: no controller, no method.
class Ddr : public sc_core::sc_module, public Block {
public:
  tlm_utils::simple_target_socket<Ddr> socket;

  /// With Granularity::Burst the DDR also takes non-blocking requests.
  Ddr(sc_core::sc_module_name name, const DdrConfig& config,
      Granularity granularity = Granularity::Access64);

  /// Untimed access for loaders and tests.
  SparseMemory& storage() { return m_memory; }
  StatGroup stats(uint64_t simulated_ps) const;
  /// DRAM energy of every channel over [0, simulated_ps] by DRAMPower's method
  /// (dram_energy.h), block "ddr".
  BlockEnergy energy(uint64_t simulated_ps) const;
  /// energy() as it stands mid-run, for a trace's power track: no more than energy()
  /// will give for `simulated_ps` once the run is over, and no less than an earlier
  /// look; it changes nothing in the run (idle channels are not brought up to date).
  BlockEnergy energy_so_far(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool settled) const override {
    sink.add(settled ? energy(simulated_ps) : energy_so_far(simulated_ps));
  }
  /// Bytes read [0] and written [1] by each initiator, which the report splits the
  /// access energy by.
  const InitiatorBytes& bytes_by_initiator() const { return m_bytes_by_initiator; }
  /// Reports the bytes moved to `tracer` (null: off).
  void set_tracer(Tracer* tracer) override { m_trace = tracer; }

private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& payload);
  /// TLM_OK_RESPONSE when the DDR can serve the payload, else the error to answer.
  tlm::tlm_response_status check(const tlm::tlm_generic_payload& payload) const;
  /// The controllers' clock: takes the arrivals due, advances every busy channel to now,
  /// admits requests waiting in line, answers what finished and re-arms at the next event.
  void run_controllers();
  /// Every request of `t` is done: wake its thread or queue its answer.
  void finished(DdrTransaction& t);
  /// Answers a finished non-blocking request over the backward path.
  void respond(DdrTransaction& t);
  /// Moves the payload's data and counts its bytes.
  void move_data(tlm::tlm_generic_payload& payload);
  /// Time from now until the end of `cycle`'s data burst (zero when it is past).
  sc_core::sc_time until_cycle(uint64_t cycle) const;
  uint64_t cycle_now() const; ///< memory clock cycle containing the current time

  DdrConfig m_config;
  SparseMemory m_memory;
  AddressMapper m_mapper;
  DramControllers m_controllers;
  DdrAdmission m_admission;
  /// ddr.model: transaction: serves every access instead of the controllers (null: cycle).
  std::unique_ptr<DdrTransactionLevel> m_transaction;
  bool m_in_controllers = false; ///< run_controllers is running
  bool m_nonblocking = false;    ///< Granularity::Burst: non-blocking requests come in
  /// Finished non-blocking requests not yet answered, and those being answered (two
  /// buffers, so answering allocates nothing).
  std::vector<DdrTransaction*> m_responses, m_answering;
  sc_core::sc_event m_kick; ///< new requests: re-evaluate the next wake-up
  Tracer* m_trace = nullptr;
  InitiatorBytes m_bytes_by_initiator{};
};

} // namespace npu
