#pragma once

#include "models/common/span_extension.h"
#include "models/common/sparse_memory.h"
#include "models/common/tlm_util.h"
#include "models/ddr/ddr_config.h"
#include "models/ddr/dram_transaction.h"

#include <systemc>
#include <tlm>

#include <functional>
#include <utility>
#include <vector>

namespace npu {

/// The DDR's TLM front end at `ddr.model: transaction`: every access (a span of rows
/// included, SpanExtension) is served by a TransactionDram in closed form when it arrives,
/// and answered with the time it is done as annotated delay. Spans that arrive in a batch
/// (SpanExtension::more: a DMA's spans due together) are held until the last one comes and
/// served together (TransactionDram::serve_batch: as FR-FCFS serves what waits in its
/// queues at once), the others answered over the backward path.
class DdrTransactionLevel : public sc_core::sc_module {
public:
  /// Moves a payload's data and counts it (the DDR's storage and statistics).
  using MoveData = std::function<void(tlm::tlm_generic_payload&)>;
  /// Answers a held non-blocking request over the backward path.
  using Answer = std::function<void(tlm::tlm_generic_payload&, sc_core::sc_time&)>;

  DdrTransactionLevel(sc_core::sc_module_name name, const DdrConfig& config,
                      const AddressMapper& mapper, const SparseMemory& memory, MoveData move,
                      Answer answer);

  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  const TransactionDram& dram() const { return m_dram; }

private:
  /// A span of a batch, held until the last one comes.
  struct Held {
    tlm::tlm_generic_payload* payload = nullptr;
    uint64_t at_ps = 0;     ///< arrival
    sc_core::sc_time delay; ///< its answer
  };

  /// The transaction a payload arriving at `at_ps` asks for (false: an error, answered).
  bool transaction_of(tlm::tlm_generic_payload& payload, uint64_t at_ps, DramTransaction& t);
  /// Serves `held` together and answers them, all but `in_call`, whose answer it sets in
  /// `in_call_delay`.
  void serve(std::vector<Held>& held, const tlm::tlm_generic_payload* in_call,
             sc_core::sc_time& in_call_delay);
  /// Moves the payload's data and sets its answer: `delay` from now to when it is done.
  void answer(tlm::tlm_generic_payload& payload, uint64_t at_ps, const DramTransactionDone& done,
              sc_core::sc_time& delay);
  uint64_t cycle_of(uint64_t at_ps) const {
    return static_cast<uint64_t>(static_cast<double>(at_ps) / m_tck_ps + 1e-9);
  }
  uint64_t cycle_ps(uint64_t cycle) const {
    return static_cast<uint64_t>(static_cast<double>(cycle) * m_tck_ps + 0.5);
  }

  DdrConfig m_config;
  double m_tck_ps;
  const AddressMapper& m_mapper;
  const SparseMemory& m_memory;
  MoveData m_move;
  Answer m_answer;
  TransactionDram m_dram;
  std::vector<Held> m_batch; ///< spans of the batch being received
  std::vector<DramTransaction> m_transactions;
  std::vector<DramTransactionDone> m_done;
};

} // namespace npu
