#pragma once

#include "models/ddr/dram_queues.h"
#include "models/ddr/dram_spec.h"
#include "models/ddr/dram_timing_state.h"

#include <cstdint>
#include <limits>
#include <variant>
#include <vector>

namespace npu {

/// A command proposed for issue, with the earliest cycle it may issue.
struct DramCandidate {
  uint64_t cycle = std::numeric_limits<uint64_t>::max();
  int prio = 3; ///< 0 refresh, 1 row hit (FR-FCFS), 2 any other request
  uint64_t seq = 0;
  DramCommand command = DramCommand::ACT;
  uint32_t rank = 0;
  uint32_t bank = 0;
  /// The request served: RD/WR in the read/write queue, ACT/PRE in the active one.
  int32_t slot = -1;

  /// Earlier first, then lower prio, then older.
  static bool better(const DramCandidate& a, const DramCandidate& b) {
    if (a.cycle != b.cycle)
      return a.cycle < b.cycle;
    if (a.prio != b.prio)
      return a.prio < b.prio;
    return a.seq < b.seq;
  }
};

/// What holds every bank back: the command clock and the ranks waiting for a refresh.
struct DramIssueLimits {
  uint64_t floor = 1;            ///< earliest cycle the next command may issue
  const uint8_t* held = nullptr; ///< per rank: nonzero while it waits for its refresh
  bool any_held = false;
};

/// A DRAM scheduler chooses the next RD/WR/ACT/PRE from the active queue
/// (DramQueues::write_mode). The controller tells it what changed; it keeps whatever
/// bookkeeping it needs so that a decision is one call. Every scheduler class has these
/// members (the controller holds one in DramSchedulers and calls it through std::visit):
///   void rebuild(): the served queue changed; choose every bank's command afresh.
///   bool offer(int32_t slot): a request entered the active queue at `slot`; true when it
///     became its bank's choice.
///   void update_bank(uint32_t bank): the bank's open row or queued requests changed.
///   void retime_bank(uint32_t bank): the bank's timers moved while its row and requests
///     stayed (PREA, REF).
///   bool bank_candidate(uint32_t bank, const DramIssueLimits&, DramCandidate& out) const:
///     the bank's choice and the earliest cycle it may issue; false when none or held.
///   void choose(DramCandidate& best, const DramIssueLimits&) const: replaces `best` (a
///     refresh command, or none) by a bank's choice that beats it.

/// Keeps one choice per bank up to date as requests arrive and commands issue, so that a
/// decision compares one command per bank; the command that can issue earliest wins, ties
/// going to priority, then age. kRowHitsFirst: FR-FCFS, a bank offers its oldest row hit,
/// else its oldest request, and row hits win ties. Otherwise FCFS: a bank offers its oldest
/// request (DRAMSys's Fifo scheduler), and ties go by age alone. Either way a row opened for
/// a request of the other queue stays its own until its RD/WR issues (Bank::opener).
template <bool kRowHitsFirst> class BankQueueScheduler final {
public:
  BankQueueScheduler(const DramTimingState& timing, const DramQueues& queues);
  void rebuild();
  bool offer(int32_t slot) { return offer(m_queues.active(), slot); }
  void update_bank(uint32_t bank);
  void retime_bank(uint32_t bank);
  bool bank_candidate(uint32_t bank, const DramIssueLimits& limits, DramCandidate& out) const;
  void choose(DramCandidate& best, const DramIssueLimits& limits) const;

private:
  using Kind = DramTimingState::Kind;
  /// A bank's choice. Every request of a bank that needs the same command may issue at the
  /// same cycle, so the oldest one stands for all.
  struct CandView {
    uint64_t bank_part = 0; ///< max(bank timer of the command, arrival + 1)
    uint64_t earliest = 0;  ///< arrival + 1
    uint64_t seq = 0;
    uint32_t bank = 0, group = 0, rank = 0;
    int32_t slot = -1;
    uint8_t kind = DramTimingState::kAct;
  };
  static int prio(uint8_t kind) { return kRowHitsFirst && kind >= DramTimingState::kRd ? 1 : 2; }
  bool offer(const DramQueue& q, int32_t slot);
  void clear(uint32_t bank);
  void fill(const CandView& v, uint64_t cycle, DramCandidate& out) const;

  const DramTimingState& m_timing;
  const DramQueues& m_queues;
  std::vector<int32_t> m_cand_of; ///< per bank: its entry in m_cands, or -1
  std::vector<CandView> m_cands;  ///< one per bank with a choice
};

using FrFcfsScheduler = BankQueueScheduler<true>;
using FcfsScheduler = BankQueueScheduler<false>;

/// The schedulers that DramControllerConfig can choose. The controller holds one and calls
/// it through std::visit: straight to the final class, so the calls of every request can be
/// inlined. A new scheduler has the members listed above and joins this list and the factory.
using DramSchedulers = std::variant<FrFcfsScheduler, FcfsScheduler>;

/// The scheduler `kind` over `timing` and `queues` (which must outlive it).
DramSchedulers make_dram_scheduler(DramControllerConfig::Scheduler kind,
                                   const DramTimingState& timing, const DramQueues& queues);

} // namespace npu
