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
///
/// A non-blocking write waits as it would in the cycle controller's write queue, which
/// drains writes when its read queue is empty or its writes reach the high watermark: it is
/// served once the read queue of every channel it uses is empty (the first stretch from its
/// arrival on with no read queued there, between reads booked or after the last; an
/// SC_METHOD wakes then), or at once when it fills a channel's write queue to `write_high`,
/// and answered over the backward path. A blocking write (the host's ring writes, the
/// scheduler's completion records) waits in the write queue the same way, its caller's
/// thread asleep until then.
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
  /// A blocking write's caller, asleep until its write is served.
  struct Caller {
    sc_core::sc_event served;
    sc_core::sc_time delay; ///< its answer
    bool answered = false;
  };
  /// A span of a batch, held until the last one comes.
  struct Held {
    tlm::tlm_generic_payload* payload = nullptr;
    uint64_t at_ps = 0;       ///< arrival
    sc_core::sc_time delay;   ///< its answer
    Caller* caller = nullptr; ///< a blocking write's caller, woken with its answer
  };

  /// The transaction a payload arriving at `at_ps` asks for (false: an error, answered).
  bool transaction_of(tlm::tlm_generic_payload& payload, uint64_t at_ps, DramTransaction& t);
  /// A write waiting in the controller's write queues.
  struct HeldWrite {
    Held held;
    DramTransaction t;
    uint64_t channels = 0; ///< channels its lines use (channel c: bit c % 64)
    uint32_t slot = 0;     ///< its requests per channel: m_slot_lines from slot * channels
  };

  /// Serves the reads of `held` together and answers them, all but `in_call`, whose answer
  /// it sets in `in_call_delay`; the writes wait in the write queues (hold_write). Returns
  /// whether `in_call` was answered.
  bool serve(std::vector<Held>& held, const tlm::tlm_generic_payload* in_call,
             sc_core::sc_time& in_call_delay);
  /// Serves `held` (transactions `ts`) together and answers them as serve() does.
  bool serve_now(std::vector<Held>& held, std::vector<DramTransaction>& ts,
                 const tlm::tlm_generic_payload* in_call, sc_core::sc_time& in_call_delay);
  /// Queues a write; returns the channels (as HeldWrite::channels) whose write queue it
  /// filled to the high watermark.
  uint64_t hold_write(const Held& h, const DramTransaction& t);
  /// When the controller would serve held write `w`: once the read queue of every channel it
  /// uses is empty, the cycle controller drains its writes.
  uint64_t write_ready(const HeldWrite& w) const;
  /// Serves the held writes that `pick` chooses, none before now, as serve() does.
  template <typename Pick>
  bool drain_writes(Pick pick, const tlm::tlm_generic_payload* in_call,
                    sc_core::sc_time& in_call_delay);
  /// The process that serves the held writes whose reads are done.
  void on_drain();
  /// Arms on_drain() at the earliest write_ready() of the held writes.
  void schedule_drain();
  /// Moves the payload's data and sets its answer: `delay` from now to when it is done.
  void answer(tlm::tlm_generic_payload& payload, uint64_t at_ps, const DramTransactionDone& done,
              sc_core::sc_time& delay);
  /// An empty vector of held spans, with the room of one used before (serve() runs again
  /// from inside an answer that brings a request, so each call takes its own).
  std::vector<Held> spare_held() {
    if (m_spare_held.empty())
      return {};
    std::vector<Held> v = std::move(m_spare_held.back());
    m_spare_held.pop_back();
    return v;
  }
  /// Keeps `v`'s room for spare_held().
  void keep_held(std::vector<Held>&& v) {
    v.clear();
    m_spare_held.push_back(std::move(v));
  }
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
  std::vector<Held> m_batch;                   ///< spans of the batch being received
  std::vector<std::vector<Held>> m_spare_held; ///< room for held spans (spare_held())
  std::vector<HeldWrite> m_writes;             ///< writes waiting in the write queues
  std::vector<uint32_t> m_write_lines;         ///< their 64-byte requests, per channel
  std::vector<uint32_t> m_slot_lines;          ///< each held write's requests, per channel
  std::vector<uint32_t> m_free_slots;          ///< slots of m_slot_lines no write holds
  uint32_t m_write_high = 1;                   ///< requests of a channel that start a drain
  sc_core::sc_event m_drain;
  std::vector<DramTransaction> m_transactions; ///< the transactions serve_now() serves
  std::vector<DramTransactionDone> m_done;
};

} // namespace npu
