#include "models/ddr/dram_scheduler.h"

#include <algorithm>

namespace npu {

template <bool kRowHitsFirst>
BankQueueScheduler<kRowHitsFirst>::BankQueueScheduler(const DramTimingState& timing,
                                                      const DramQueues& queues)
    : m_timing(timing), m_queues(queues), m_cand_of(timing.bank_count(), -1) {
  m_cands.reserve(timing.bank_count());
}

template <bool kRowHitsFirst>
bool BankQueueScheduler<kRowHitsFirst>::offer(const DramQueue& q, int32_t slot) {
  const DramEntry& e = q.at(slot);
  const DramTimingState::Bank& b = m_timing.bank(e.bank);
  const bool hit = b.open_row == e.row;
  uint8_t kind =
      b.open_row == DramTimingState::kNoRow ? DramTimingState::kAct : DramTimingState::kPre;
  if (hit)
    kind = e.is_write ? DramTimingState::kWr : DramTimingState::kRd;
  int32_t& cand = m_cand_of[e.bank];
  if (cand < 0) {
    cand = static_cast<int32_t>(m_cands.size());
    m_cands.emplace_back();
  } else {
    const CandView& cur = m_cands[static_cast<size_t>(cand)];
    const bool cur_hit = kRowHitsFirst && cur.kind >= DramTimingState::kRd;
    const bool hits_first = kRowHitsFirst && hit && !cur_hit;
    if (!hits_first && !((!kRowHitsFirst || hit == cur_hit) && e.seq < cur.seq))
      return false;
  }
  CandView& v = m_cands[static_cast<size_t>(cand)];
  v.earliest = e.arrival + 1;
  v.bank_part = std::max(b.next[kind], v.earliest);
  v.seq = e.seq;
  v.bank = e.bank;
  v.group = b.group;
  v.rank = b.rank;
  v.slot = slot;
  v.kind = kind;
  return true;
}

template <bool kRowHitsFirst> void BankQueueScheduler<kRowHitsFirst>::retime_bank(uint32_t bank) {
  const int32_t cand = m_cand_of[bank];
  if (cand < 0)
    return;
  CandView& v = m_cands[static_cast<size_t>(cand)];
  v.bank_part = std::max(m_timing.bank(bank).next[v.kind], v.earliest);
}

template <bool kRowHitsFirst> void BankQueueScheduler<kRowHitsFirst>::clear(uint32_t bank) {
  int32_t& cand = m_cand_of[bank];
  if (cand < 0)
    return;
  const auto pos = static_cast<size_t>(cand);
  if (pos + 1 != m_cands.size()) {
    m_cands[pos] = m_cands.back();
    m_cand_of[m_cands[pos].bank] = cand;
  }
  m_cands.pop_back();
  cand = -1;
}

template <bool kRowHitsFirst> void BankQueueScheduler<kRowHitsFirst>::update_bank(uint32_t bank) {
  clear(bank);
  const DramBankRequests& b = m_queues.banks[bank];
  const bool mode = m_queues.write_mode;
  // A row opened for the other queue first serves the request it was opened for, as the
  // Ramulator 2 (active buffer) and DRAMSys (bank machine) controllers do: closing it for
  // this queue would waste the ACT and cost that request another one.
  if (b.opener >= 0 && b.opener_write != mode) {
    offer(m_queues.queue(b.opener_write), b.opener);
    return;
  }
  const int32_t head = b.oldest[mode ? 1 : 0];
  if (head < 0)
    return;
  const DramQueue& q = m_queues.active();
  const uint64_t open_row = m_timing.bank(bank).open_row;
  // FR-FCFS: the oldest row hit, else the oldest request.
  if (kRowHitsFirst && open_row != DramTimingState::kNoRow) {
    for (int32_t i = head; i >= 0; i = q.at(i).younger) {
      if (q.at(i).row == open_row) {
        offer(q, i);
        return;
      }
    }
  }
  offer(q, head);
}

template <bool kRowHitsFirst> void BankQueueScheduler<kRowHitsFirst>::rebuild() {
  for (const CandView& v : m_cands)
    m_cand_of[v.bank] = -1;
  m_cands.clear();
  const DramQueue& q = m_queues.active();
  // Free slots are reused lowest first, so the valid ones cluster at the start.
  uint32_t seen = 0;
  for (size_t i = 0; i < q.slots.size() && seen < q.count; ++i) {
    if (q.slots[i].valid) {
      offer(q, static_cast<int32_t>(i));
      ++seen;
    }
  }
  // A row opener is a request still queued (its RD/WR frees both), so with the other
  // queue empty no bank has one of that queue.
  if (m_queues.queue(!m_queues.write_mode).count == 0)
    return;
  for (uint32_t i = 0; i < m_queues.banks.size(); ++i)
    if (m_queues.banks[i].opener >= 0 && m_queues.banks[i].opener_write != m_queues.write_mode)
      update_bank(i);
}

template <bool kRowHitsFirst>
void BankQueueScheduler<kRowHitsFirst>::fill(const CandView& v, uint64_t cycle,
                                             DramCandidate& out) const {
  static constexpr DramCommand kCommand[] = {DramCommand::ACT, DramCommand::PRE, DramCommand::RD,
                                             DramCommand::WR};
  out.cycle = cycle;
  out.prio = prio(v.kind);
  out.seq = v.seq;
  out.command = kCommand[v.kind];
  out.rank = v.rank;
  out.bank = v.bank;
  out.slot = v.slot;
}

template <bool kRowHitsFirst>
bool BankQueueScheduler<kRowHitsFirst>::bank_candidate(uint32_t bank, const DramIssueLimits& limits,
                                                       DramCandidate& out) const {
  const int32_t cand = m_cand_of[bank];
  if (cand < 0 || limits.held[m_timing.bank(bank).rank])
    return false;
  const CandView& v = m_cands[static_cast<size_t>(cand)];
  const uint64_t g = m_timing.groups()[v.group].next[v.kind];
  const uint64_t r = m_timing.ranks()[v.rank].next[v.kind];
  const uint64_t t = v.bank_part > g ? v.bank_part : g;
  const uint64_t u = r > limits.floor ? r : limits.floor;
  fill(v, t > u ? t : u, out);
  return true;
}

template <bool kRowHitsFirst>
void BankQueueScheduler<kRowHitsFirst>::choose(DramCandidate& best,
                                               const DramIssueLimits& limits) const {
  // The hot loop: the least (cycle, priority, age) without building candidates, as two
  // words (cycle; priority above age) compared without branches: which candidate wins is
  // data the branch predictor cannot learn. A candidate equal to the best so far takes its
  // place.
  const auto order = [](int prio, uint64_t seq) { return uint64_t(prio) << 62 | seq; };
  uint64_t best_cycle = best.cycle;
  uint64_t best_order = order(best.prio, best.seq);
  const CandView* chosen = nullptr;
  // Locals, so the compiler keeps them in registers across the loop.
  const uint64_t floor = limits.floor;
  const bool any_held = limits.any_held;
  const uint8_t* const held = limits.held;
  const DramTimingState::Group* const groups = m_timing.groups();
  const DramTimingState::Rank* const ranks = m_timing.ranks();
  for (const CandView& v : m_cands) {
    const uint64_t g = groups[v.group].next[v.kind];
    const uint64_t r = ranks[v.rank].next[v.kind];
    const uint64_t t = std::max(std::max(v.bank_part, g), std::max(r, floor));
    const uint64_t o = order(prio(v.kind), v.seq);
    const bool free = !any_held || !held[v.rank];
    const bool take = free & ((t < best_cycle) | ((t == best_cycle) & (o <= best_order)));
    best_cycle = take ? t : best_cycle;
    best_order = take ? o : best_order;
    chosen = take ? &v : chosen;
  }
  if (chosen)
    fill(*chosen, best_cycle, best);
}

template class BankQueueScheduler<true>;
template class BankQueueScheduler<false>;

DramSchedulers make_dram_scheduler(DramControllerConfig::Scheduler kind,
                                   const DramTimingState& timing, const DramQueues& queues) {
  switch (kind) {
  case DramControllerConfig::Scheduler::Fcfs:
    return DramSchedulers(std::in_place_type<FcfsScheduler>, timing, queues);
  case DramControllerConfig::Scheduler::FrFcfs:
    break;
  }
  return DramSchedulers(std::in_place_type<FrFcfsScheduler>, timing, queues);
}

} // namespace npu
