#include "models/ddr/dram_channel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace npu {
namespace {

uint64_t at_least(int64_t v, int64_t min) {
  return static_cast<uint64_t>(std::max(v, min));
}

} // namespace

const char* dram_command_name(DramCommand c) {
  static const char* const names[] = {"ACT", "PRE", "PREA", "RD", "WR", "RDA", "WRA", "REF"};
  return names[static_cast<size_t>(c)];
}

DramChannel::DramChannel(const DramSpec& spec, const DramControllerConfig& config,
                         const AddressMapper& mapper)
    : m_spec(spec), m_config(config), m_mapper(mapper) {
  const std::string error = check_dram_spec(spec);
  if (!error.empty())
    throw std::invalid_argument("DRAM spec: " + error);
  if (config.read_queue == 0 || config.write_queue == 0)
    throw std::invalid_argument("DRAM controller: queues need at least one entry");
  const DramTiming& t = spec.t;
  const auto bl = static_cast<int64_t>(spec.burst_cycles());
  const auto cl = static_cast<int64_t>(t.CL);
  const auto cwl = static_cast<int64_t>(t.CWL);
  const auto rtrs = static_cast<int64_t>(t.RTRS);
  m_burst = static_cast<uint64_t>(bl);
  // Same rank: read-to-write turnaround with a one-clock write preamble (JESD79-4).
  m_rd_to_wr = at_least(cl + bl + 2 - cwl, 1);
  m_wr_to_rd_s = static_cast<uint64_t>(cwl + bl + t.WTR_S);
  m_wr_to_rd_l = static_cast<uint64_t>(cwl + bl + t.WTR_L);
  m_wr_to_pre = static_cast<uint64_t>(cwl + bl + t.WR);
  m_rd_done_off = static_cast<uint64_t>(cl + bl);
  m_wr_done_off = static_cast<uint64_t>(cwl + bl);
  // Another rank: the data bursts must not overlap and need tRTRS between them.
  m_rank_rd_to_rd = static_cast<uint64_t>(bl + rtrs);
  m_rank_wr_to_wr = static_cast<uint64_t>(bl + rtrs);
  m_rank_rd_to_wr = at_least(std::max(bl + rtrs, cl + bl + rtrs - cwl), 1);
  m_rank_wr_to_rd = at_least(cwl + bl + rtrs - cl, 1);
  m_high = static_cast<uint32_t>(std::ceil(config.write_high * config.write_queue - 1e-9));
  m_low = static_cast<uint32_t>(std::floor(config.write_low * config.write_queue + 1e-9));
  m_high = std::clamp<uint32_t>(m_high, 1, config.write_queue);
  m_low = std::min(m_low, m_high - 1);

  m_ranks.resize(spec.ranks);
  m_groups.resize(size_t{spec.ranks} * spec.bank_groups);
  m_banks.resize(size_t{spec.ranks} * spec.banks());
  for (size_t i = 0; i < m_banks.size(); ++i) {
    m_banks[i].group = static_cast<uint32_t>(i / spec.banks_per_group);
    m_banks[i].rank = static_cast<uint32_t>(i / spec.banks());
  }
  // Stagger the ranks' refreshes over one interval so they do not stall together.
  for (uint32_t r = 0; r < spec.ranks; ++r)
    m_ranks[r].refresh_due = uint64_t{t.REFI} * (r + 1) / spec.ranks;
  for (auto [q, n] : {std::pair<Queue*, uint32_t>{&m_rq, config.read_queue},
                      std::pair<Queue*, uint32_t>{&m_wq, config.write_queue}}) {
    q->slots.resize(n);
    for (uint32_t i = n; i-- > 0;)
      q->free.push_back(i);
  }
  m_cands.reserve(m_banks.size());
  m_dirty = true;
  rescan();
}

void DramChannel::enqueue(const DramRequest& r, uint64_t cycle) {
  if (cycle < m_now)
    throw std::logic_error("DramChannel::enqueue: cycle " + std::to_string(cycle) +
                           " is before now " + std::to_string(m_now));
  if (cycle > m_now)
    advance_to(cycle);
  if (!can_accept(r.is_write))
    throw std::logic_error("DramChannel::enqueue: queue full");
  const DramAddress a = m_mapper.decode(r.addr);
  Queue& q = r.is_write ? m_wq : m_rq;
  const auto slot = static_cast<int32_t>(q.free.back());
  q.free.pop_back();
  ++q.count;
  Entry& e = q.slots[static_cast<size_t>(slot)];
  e.id = r.id;
  e.arrival = cycle;
  e.seq = m_seq++;
  e.row = a.row;
  e.bank = (a.rank * m_spec.bank_groups + a.bankgroup) * m_spec.banks_per_group + a.bank;
  e.column = a.column;
  e.outcome = Outcome::Unknown;
  e.is_write = r.is_write;
  e.valid = true;
  Bank& b = m_banks[e.bank];
  if (b.open_row == e.row)
    ++(e.is_write ? b.hits_wr : b.hits_rd);
  // Append to the bank's list of this queue.
  const size_t dir = e.is_write ? 1 : 0;
  e.older = b.youngest[dir];
  e.younger = -1;
  if (e.older >= 0)
    q.slots[static_cast<size_t>(e.older)].younger = slot;
  else
    b.oldest[dir] = slot;
  b.youngest[dir] = slot;
  const bool offered = e.is_write == m_write_mode && offer(slot);
  if (m_dirty || next_write_mode() != m_write_mode) {
    m_dirty = true;
    rescan(); // rebuilds every bank's candidate if the mode changes
    return;
  }
  if (!offered)
    return;
  // The bank's candidate changed. If it was the chosen one, choose again; otherwise
  // only the new candidate can beat the choice.
  if (m_best.slot >= 0 && m_best.bank == e.bank && m_best.prio > 0) {
    m_dirty = true;
    rescan();
    return;
  }
  Candidate c;
  if (bank_candidate(e.bank, c) && better(c, m_best)) {
    m_best = c;
    m_next_decision = std::min(m_next_decision, c.cycle);
  }
}

bool DramChannel::next_write_mode() const {
  if (!m_write_mode)
    return m_wq.count >= m_high || (m_rq.count == 0 && m_wq.count > 0);
  return !(m_wq.count == 0 || (m_wq.count <= m_low && m_rq.count > 0));
}

bool DramChannel::offer(int32_t slot) {
  return offer(active(), slot);
}

bool DramChannel::offer(const Queue& q, int32_t slot) {
  const Entry& e = q.slots[static_cast<size_t>(slot)];
  Bank& b = m_banks[e.bank];
  const bool hit = b.open_row == e.row;
  Kind kind = b.open_row == kNoRow ? kAct : kPre;
  if (hit)
    kind = e.is_write ? kWr : kRd;
  if (b.cand < 0) {
    b.cand = static_cast<int32_t>(m_cands.size());
    m_cands.emplace_back();
  } else {
    const CandView& cur = m_cands[static_cast<size_t>(b.cand)];
    const bool cur_hit = cur.kind >= kRd;
    if (!(hit && !cur_hit) && !(hit == cur_hit && e.seq < cur.seq))
      return false;
  }
  CandView& v = m_cands[static_cast<size_t>(b.cand)];
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

void DramChannel::refresh_bank_part(uint32_t bank) {
  const Bank& b = m_banks[bank];
  if (b.cand < 0)
    return;
  CandView& v = m_cands[static_cast<size_t>(b.cand)];
  v.bank_part = std::max(b.next[v.kind], v.earliest);
}

void DramChannel::clear_candidate(uint32_t bank) {
  Bank& b = m_banks[bank];
  if (b.cand < 0)
    return;
  const auto pos = static_cast<size_t>(b.cand);
  if (pos + 1 != m_cands.size()) {
    m_cands[pos] = m_cands.back();
    m_banks[m_cands[pos].bank].cand = b.cand;
  }
  m_cands.pop_back();
  b.cand = -1;
}

void DramChannel::recompute_bank(uint32_t bank) {
  clear_candidate(bank);
  const Queue& q = active();
  const Bank& b = m_banks[bank];
  // A row opened for the other queue first serves the request it was opened for, as the
  // Ramulator 2 (active buffer) and DRAMSys (bank machine) controllers do: closing it for
  // this queue would waste the ACT and cost that request another one.
  if (b.opener >= 0 && b.opener_write != m_write_mode) {
    offer(b.opener_write ? m_wq : m_rq, b.opener);
    return;
  }
  const int32_t head = b.oldest[m_write_mode ? 1 : 0];
  if (head < 0)
    return;
  // The oldest row hit, else the oldest request.
  if (b.open_row != kNoRow) {
    for (int32_t i = head; i >= 0; i = q.slots[static_cast<size_t>(i)].younger) {
      if (q.slots[static_cast<size_t>(i)].row == b.open_row) {
        offer(i);
        return;
      }
    }
  }
  offer(head);
}

void DramChannel::rebuild_candidates() {
  for (const CandView& v : m_cands)
    m_banks[v.bank].cand = -1;
  m_cands.clear();
  const Queue& q = active();
  // Free slots are reused lowest first, so the valid ones cluster at the start.
  uint32_t seen = 0;
  for (size_t i = 0; i < q.slots.size() && seen < q.count; ++i) {
    if (q.slots[i].valid) {
      offer(static_cast<int32_t>(i));
      ++seen;
    }
  }
  for (uint32_t i = 0; i < m_banks.size(); ++i)
    if (m_banks[i].opener >= 0 && m_banks[i].opener_write != m_write_mode)
      recompute_bank(i);
}

void DramChannel::fill_candidate(const CandView& v, uint64_t cycle, Candidate& out) const {
  static constexpr DramCommand kCommand[] = {DramCommand::ACT, DramCommand::PRE, DramCommand::RD,
                                             DramCommand::WR};
  out.cycle = cycle;
  out.prio = v.kind >= kRd ? 1 : 2;
  out.seq = v.seq;
  out.command = kCommand[v.kind];
  out.rank = v.rank;
  out.bank = v.bank;
  out.slot = v.slot;
}

bool DramChannel::bank_candidate(uint32_t bank, Candidate& out) const {
  const Bank& b = m_banks[bank];
  if (b.cand < 0 || m_ranks[b.rank].refresh_pending)
    return false;
  const CandView& v = m_cands[static_cast<size_t>(b.cand)];
  fill_candidate(v, earliest(v), out);
  return true;
}

void DramChannel::rescan() {
  m_dirty = false;
  const bool mode = next_write_mode();
  if (mode != m_write_mode) {
    m_write_mode = mode;
    rebuild_candidates();
  }
  Candidate best;
  uint64_t next_due = kNever;
  if (m_config.refresh) {
    for (uint32_t r = 0; r < m_ranks.size(); ++r) {
      const Rank& rk = m_ranks[r];
      if (!rk.refresh_pending) {
        next_due = std::min(next_due, rk.refresh_due);
        continue;
      }
      Candidate c;
      c.prio = 0;
      c.rank = r;
      uint64_t t = 0;
      const size_t first = size_t{r} * m_spec.banks();
      if (rk.open_banks > 0) {
        c.command = DramCommand::PREA;
        for (size_t i = first; i < first + m_spec.banks(); ++i)
          if (m_banks[i].open_row != kNoRow)
            t = std::max(t, m_banks[i].next[kPre]);
      } else {
        c.command = DramCommand::REF;
        for (size_t i = first; i < first + m_spec.banks(); ++i)
          t = std::max(t, m_banks[i].next[kAct]);
      }
      c.cycle = std::max(t, m_floor);
      if (better(c, best))
        best = c;
    }
  }
  // The hot loop: compare (cycle, priority, age) without building candidates.
  uint64_t best_cycle = best.cycle;
  int best_prio = best.prio;
  uint64_t best_seq = best.seq;
  const CandView* chosen = nullptr;
  // Locals, so the compiler keeps them in registers across the loop.
  const uint64_t floor = m_floor;
  const bool refresh_pending = m_refresh_pending;
  const Group* const groups = m_groups.data();
  const Rank* const ranks = m_ranks.data();
  for (const CandView& v : m_cands) {
    if (v.bank_part > best_cycle)
      continue; // its own bank holds it back longer already
    const Rank& rk = ranks[v.rank];
    uint64_t t = std::max(v.bank_part, groups[v.group].next[v.kind]);
    t = std::max(t, std::max(rk.next[v.kind], floor));
    if (t > best_cycle || (refresh_pending && rk.refresh_pending))
      continue;
    const int prio = v.kind >= kRd ? 1 : 2;
    if (t == best_cycle && (prio > best_prio || (prio == best_prio && v.seq > best_seq)))
      continue;
    best_cycle = t;
    best_prio = prio;
    best_seq = v.seq;
    chosen = &v;
  }
  if (chosen)
    fill_candidate(*chosen, best_cycle, best);
  m_best = best;
  m_next_decision = std::min(best.cycle, next_due);
}

void DramChannel::decide(uint64_t cycle) {
  m_now = cycle;
  m_floor = std::max(m_floor, cycle);
  if (m_config.refresh) {
    for (Rank& rk : m_ranks) {
      if (!rk.refresh_pending && rk.refresh_due <= cycle) {
        rk.refresh_pending = true;
        m_refresh_pending = true;
        m_dirty = true;
      }
    }
  }
  if (m_dirty)
    rescan();
  if (m_best.cycle == cycle) {
    issue(m_best, cycle);
    m_floor = cycle + 1;
    m_dirty = true;
  }
}

void DramChannel::skip_idle_refreshes(uint64_t cycle) {
  if (!m_config.refresh || m_refresh_pending || m_rq.count > 0 || m_wq.count > 0 ||
      !m_rd_done.empty() || !m_wr_done.empty())
    return;
  for (const Rank& rk : m_ranks)
    if (rk.open_banks > 0)
      return; // the first refresh needs a PREA: leave it to decide()
  for (;;) {
    // The rank due first; a tie between ranks goes to decide(), which orders them.
    uint32_t r = 0;
    bool tie = false;
    for (uint32_t i = 1; i < m_ranks.size(); ++i) {
      if (m_ranks[i].refresh_due < m_ranks[r].refresh_due) {
        r = i;
        tie = false;
      } else if (m_ranks[i].refresh_due == m_ranks[r].refresh_due) {
        tie = true;
      }
    }
    const uint64_t t = m_ranks[r].refresh_due;
    if (tie || t > cycle || t < m_floor)
      return;
    const size_t first = size_t{r} * m_spec.banks();
    for (size_t i = first; i < first + m_spec.banks(); ++i)
      if (m_banks[i].next[kAct] > t)
        return; // the REF would wait for a bank: decide() times it
    issue_ref(r, t);
    m_now = t;
    m_floor = t + 1;
    m_dirty = true;
  }
}

void DramChannel::advance_to(uint64_t cycle) {
  skip_idle_refreshes(cycle);
  for (;;) {
    if (m_dirty)
      rescan();
    const uint64_t td = m_next_decision;
    const uint64_t tc = next_completion();
    if (td <= cycle && td <= tc) {
      decide(td);
    } else if (tc <= cycle) {
      m_now = std::max(m_now, tc);
      m_floor = std::max(m_floor, m_now + 1);
      deliver_one();
    } else {
      break;
    }
  }
  if (cycle > m_now) {
    m_now = cycle;
    m_floor = std::max(m_floor, cycle + 1);
  }
}

uint64_t DramChannel::next_completion() const {
  uint64_t t = kNever;
  if (!m_rd_done.empty())
    t = m_rd_done.front().done;
  if (!m_wr_done.empty())
    t = std::min(t, m_wr_done.front().done);
  return t;
}

void DramChannel::deliver_one() {
  const bool rd =
      !m_rd_done.empty() && (m_wr_done.empty() || m_rd_done.front().done <= m_wr_done.front().done);
  auto& fifo = rd ? m_rd_done : m_wr_done;
  const Completion c = fifo.front();
  fifo.pop_front();
  if (on_done)
    on_done(c.id, c.done);
}

uint64_t DramChannel::next_event() const {
  if (m_rq.count == 0 && m_wq.count == 0)
    return next_completion();
  return std::min(m_next_decision, next_completion());
}

uint64_t DramChannel::next_completion_bound() const {
  uint64_t t = next_completion();
  if (m_rq.count > 0)
    t = std::min(t, m_next_decision + m_rd_done_off);
  if (m_wq.count > 0)
    t = std::min(t, m_next_decision + m_wr_done_off);
  return t;
}

void DramChannel::issue(const Candidate& c, uint64_t t) {
  switch (c.command) {
  case DramCommand::PREA:
    issue_prea(c.rank, t);
    return;
  case DramCommand::REF:
    issue_ref(c.rank, t);
    return;
  default:
    break;
  }
  // RD/WR may serve the other queue (Bank::opener); ACT and PRE serve the active one.
  Queue& q = c.command == DramCommand::RD ? m_rq : c.command == DramCommand::WR ? m_wq : active();
  Entry& e = q.slots[static_cast<size_t>(c.slot)];
  switch (c.command) {
  case DramCommand::ACT:
    if (e.outcome == Outcome::Unknown)
      e.outcome = Outcome::Miss;
    m_banks[e.bank].opener = c.slot;
    m_banks[e.bank].opener_write = e.is_write;
    issue_act(e, t);
    break;
  case DramCommand::PRE:
    if (e.outcome == Outcome::Unknown)
      e.outcome = Outcome::Conflict;
    log(DramCommand::PRE, t, e.bank, m_banks[e.bank].open_row, e.column);
    issue_pre(e.bank, t);
    break;
  default:
    issue_cas(q, c.slot, t);
    break;
  }
}

void DramChannel::issue_act(const Entry& e, uint64_t t) {
  const DramTiming& tm = m_spec.t;
  Bank& b = m_banks[e.bank];
  Group& g = m_groups[b.group];
  Rank& rk = m_ranks[b.rank];
  b.open_row = e.row;
  ++rk.open_banks;
  b.next[kAct] = std::max(b.next[kAct], t + tm.RC);
  b.next[kPre] = std::max(b.next[kPre], t + tm.RAS);
  b.next[kRd] = std::max(b.next[kRd], t + tm.RCD);
  b.next[kWr] = std::max(b.next[kWr], t + tm.RCD);
  g.next[kAct] = std::max(g.next[kAct], t + tm.RRD_L);
  rk.acts[rk.act_head] = t;
  rk.act_head = (rk.act_head + 1) % 4;
  ++rk.act_count;
  rk.next[kAct] = std::max(rk.next[kAct], t + tm.RRD_S);
  if (rk.act_count >= 4) // the oldest of the last four ACTs opens the window
    rk.next[kAct] = std::max(rk.next[kAct], rk.acts[rk.act_head] + tm.FAW);
  // Requests already queued for this row are now row hits.
  b.hits_rd = 0;
  b.hits_wr = 0;
  for (int32_t i = b.oldest[0]; i >= 0; i = m_rq.slots[static_cast<size_t>(i)].younger)
    b.hits_rd += m_rq.slots[static_cast<size_t>(i)].row == e.row;
  for (int32_t i = b.oldest[1]; i >= 0; i = m_wq.slots[static_cast<size_t>(i)].younger)
    b.hits_wr += m_wq.slots[static_cast<size_t>(i)].row == e.row;
  ++m_stats.activates;
  log(DramCommand::ACT, t, e.bank, e.row, e.column);
  recompute_bank(e.bank);
}

void DramChannel::close_bank(uint32_t bank) {
  Bank& b = m_banks[bank];
  if (b.open_row == kNoRow)
    return;
  b.open_row = kNoRow;
  b.opener = -1;
  b.hits_rd = 0;
  b.hits_wr = 0;
  --m_ranks[b.rank].open_banks;
  ++m_stats.precharges;
}

void DramChannel::issue_pre(uint32_t bank, uint64_t t) {
  Bank& b = m_banks[bank];
  b.next[kAct] = std::max(b.next[kAct], t + m_spec.t.RP);
  close_bank(bank);
  recompute_bank(bank);
}

void DramChannel::issue_prea(uint32_t rank, uint64_t t) {
  const auto first = rank * m_spec.banks();
  log(DramCommand::PREA, t, first, 0, 0);
  for (uint32_t i = first; i < first + m_spec.banks(); ++i) {
    Bank& b = m_banks[i];
    b.next[kAct] = std::max(b.next[kAct], t + m_spec.t.RP);
    if (b.open_row != kNoRow) {
      close_bank(i);
      recompute_bank(i);
    } else {
      refresh_bank_part(i);
    }
  }
}

void DramChannel::issue_ref(uint32_t rank, uint64_t t) {
  const auto first = rank * m_spec.banks();
  for (uint32_t i = first; i < first + m_spec.banks(); ++i) {
    m_banks[i].next[kAct] = std::max(m_banks[i].next[kAct], t + m_spec.t.RFC);
    refresh_bank_part(i);
  }
  Rank& rk = m_ranks[rank];
  rk.refresh_pending = false;
  rk.refresh_due += m_spec.t.REFI;
  m_refresh_pending =
      std::any_of(m_ranks.begin(), m_ranks.end(), [](const Rank& x) { return x.refresh_pending; });
  ++m_stats.refreshes;
  log(DramCommand::REF, t, first, 0, 0);
}

void DramChannel::issue_cas(Queue& q, int32_t slot, uint64_t t) {
  const DramTiming& tm = m_spec.t;
  Entry& e = q.slots[static_cast<size_t>(slot)];
  e.valid = false;
  q.free.push_back(static_cast<uint32_t>(slot));
  --q.count;
  Bank& b = m_banks[e.bank];
  // Unlink from the bank's list.
  const size_t dir = e.is_write ? 1 : 0;
  if (e.older >= 0)
    q.slots[static_cast<size_t>(e.older)].younger = e.younger;
  else
    b.oldest[dir] = e.younger;
  if (e.younger >= 0)
    q.slots[static_cast<size_t>(e.younger)].older = e.older;
  else
    b.youngest[dir] = e.older;
  if (b.opener == slot && b.opener_write == e.is_write)
    b.opener = -1;
  Group& g = m_groups[b.group];
  Rank& rk = m_ranks[b.rank];
  switch (e.outcome) {
  case Outcome::Unknown:
  case Outcome::Hit:
    ++m_stats.row_hits;
    break;
  case Outcome::Miss:
    ++m_stats.row_misses;
    break;
  case Outcome::Conflict:
    ++m_stats.row_conflicts;
    break;
  }
  uint64_t pre_ready;
  if (e.is_write) {
    --b.hits_wr;
    g.next[kWr] = std::max(g.next[kWr], t + tm.CCD_L);
    rk.next[kWr] = std::max(rk.next[kWr], t + tm.CCD_S);
    g.next[kRd] = std::max(g.next[kRd], t + m_wr_to_rd_l);
    rk.next[kRd] = std::max(rk.next[kRd], t + m_wr_to_rd_s);
    pre_ready = t + m_wr_to_pre;
    for (Rank& other : m_ranks) {
      if (&other == &rk)
        continue;
      other.next[kWr] = std::max(other.next[kWr], t + m_rank_wr_to_wr);
      other.next[kRd] = std::max(other.next[kRd], t + m_rank_wr_to_rd);
    }
    m_wr_done.push_back({e.id, t + m_wr_done_off});
    ++m_stats.writes;
  } else {
    --b.hits_rd;
    g.next[kRd] = std::max(g.next[kRd], t + tm.CCD_L);
    rk.next[kRd] = std::max(rk.next[kRd], t + tm.CCD_S);
    rk.next[kWr] = std::max(rk.next[kWr], t + m_rd_to_wr);
    pre_ready = t + tm.RTP;
    for (Rank& other : m_ranks) {
      if (&other == &rk)
        continue;
      other.next[kRd] = std::max(other.next[kRd], t + m_rank_rd_to_rd);
      other.next[kWr] = std::max(other.next[kWr], t + m_rank_rd_to_wr);
    }
    const uint64_t done = t + m_rd_done_off;
    m_rd_done.push_back({e.id, done});
    ++m_stats.reads;
    const uint64_t latency = done - e.arrival;
    m_stats.read_latency_sum_cycles += latency;
    m_stats.read_latency_max_cycles = std::max(m_stats.read_latency_max_cycles, latency);
    if (latency >= m_latency_hist.size())
      m_latency_hist.resize(std::max<size_t>(latency + 1, m_latency_hist.size() * 2), 0);
    ++m_latency_hist[latency];
  }
  b.next[kPre] = std::max(b.next[kPre], pre_ready);
  m_stats.data_bus_busy_cycles += m_burst;
  // Closed page: precharge with the access unless another queued request wants the row.
  const bool auto_pre = m_config.page_policy == DramControllerConfig::PagePolicy::Closed &&
                        b.hits_rd == 0 && b.hits_wr == 0;
  log(auto_pre ? (e.is_write ? DramCommand::WRA : DramCommand::RDA)
               : (e.is_write ? DramCommand::WR : DramCommand::RD),
      t, e.bank, e.row, e.column);
  if (auto_pre) {
    // The internal precharge starts once tRAS and tRTP (or write recovery) allow.
    b.next[kAct] = std::max(b.next[kAct], b.next[kPre] + tm.RP);
    close_bank(e.bank);
  }
  recompute_bank(e.bank);
  if (on_dequeue) {
    // The callback may enqueue: leave the scheduler consistent first.
    m_floor = t + 1;
    m_dirty = true;
    on_dequeue(e.is_write, t);
  }
}

void DramChannel::log(DramCommand c, uint64_t t, uint32_t bank_flat, uint64_t row,
                      uint32_t column) {
  if (!m_log_on)
    return;
  const uint32_t in_rank = bank_flat % m_spec.banks();
  m_log.push_back({t, c, bank_flat / m_spec.banks(), in_rank / m_spec.banks_per_group,
                   in_rank % m_spec.banks_per_group, row, column});
}

uint64_t DramChannel::read_latency_percentile_cycles(double p) const {
  if (m_stats.reads == 0)
    return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(m_stats.reads)));
  const uint64_t target = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (size_t i = 0; i < m_latency_hist.size(); ++i) {
    seen += m_latency_hist[i];
    if (seen >= target)
      return i;
  }
  return m_latency_hist.empty() ? 0 : m_latency_hist.size() - 1;
}

double DramChannel::read_latency_mean_cycles() const {
  return m_stats.reads ? static_cast<double>(m_stats.read_latency_sum_cycles) /
                             static_cast<double>(m_stats.reads)
                       : 0.0;
}

} // namespace npu
