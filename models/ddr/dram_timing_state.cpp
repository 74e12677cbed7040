#include "models/ddr/dram_timing_state.h"

#include <algorithm>

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

DramTimingState::DramTimingState(const DramSpec& spec)
    : m_t(spec.t), m_banks_per_rank(spec.banks()) {
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
  m_rd_done = static_cast<uint64_t>(cl + bl);
  m_wr_done = static_cast<uint64_t>(cwl + bl);
  // Another rank: the data bursts must not overlap and need tRTRS between them.
  m_rank_rd_to_rd = static_cast<uint64_t>(bl + rtrs);
  m_rank_wr_to_wr = static_cast<uint64_t>(bl + rtrs);
  m_rank_rd_to_wr = at_least(std::max(bl + rtrs, cl + bl + rtrs - cwl), 1);
  m_rank_wr_to_rd = at_least(cwl + bl + rtrs - cl, 1);

  m_ranks.resize(spec.ranks);
  m_groups.resize(size_t{spec.ranks} * spec.bank_groups);
  m_banks.resize(size_t{spec.ranks} * spec.banks());
  for (size_t i = 0; i < m_banks.size(); ++i) {
    m_banks[i].group = static_cast<uint32_t>(i / spec.banks_per_group);
    m_banks[i].rank = static_cast<uint32_t>(i / spec.banks());
  }
}

uint64_t DramTimingState::earliest(uint32_t bank, Kind kind) const {
  const Bank& b = m_banks[bank];
  return std::max({b.next[kind], m_groups[b.group].next[kind], m_ranks[b.rank].next[kind]});
}

uint64_t DramTimingState::precharge_all_ready(uint32_t rank) const {
  uint64_t t = 0;
  const size_t first = size_t{rank} * m_banks_per_rank;
  for (size_t i = first; i < first + m_banks_per_rank; ++i)
    if (m_banks[i].open_row != kNoRow)
      t = std::max(t, m_banks[i].next[kPre]);
  return t;
}

uint64_t DramTimingState::refresh_ready(uint32_t rank) const {
  uint64_t t = 0;
  const size_t first = size_t{rank} * m_banks_per_rank;
  for (size_t i = first; i < first + m_banks_per_rank; ++i)
    t = std::max(t, m_banks[i].next[kAct]);
  return t;
}

void DramTimingState::refresh(uint32_t rank, uint64_t t) {
  const size_t first = size_t{rank} * m_banks_per_rank;
  for (size_t i = first; i < first + m_banks_per_rank; ++i)
    raise_to(m_banks[i].next[kAct], t + m_t.RFC);
  // DRAMPower counts a refresh's tRFC - tRP as active background (its rows open
  // internally) and the precharged state from then on; REF needs every bank closed.
  Rank& rk = m_ranks[rank];
  if (rk.first_close <= t)
    settle(rk, rank, t);
  on_open(rk, t);
  rk.active_cycles += refresh_active_cycles();
  rk.state_since = t + refresh_active_cycles();
  ++m_counts.refreshes;
}

void DramTimingState::refresh_run(uint32_t rank, uint64_t first, uint64_t next, uint64_t interval,
                                  uint64_t n) {
  const uint64_t last = n > 1 ? next + (n - 2) * interval : first;
  Rank& rk = m_ranks[rank];
  if (rk.first_close <= first)
    settle(rk, rank, first);
  if (rk.first_close <= last) { // a pending close to settle between them: one by one
    refresh(rank, first);
    for (uint64_t k = 0; k + 1 < n; ++k)
      refresh(rank, next + k * interval);
    return;
  }
  const size_t first_bank = size_t{rank} * m_banks_per_rank;
  for (size_t i = first_bank; i < first_bank + m_banks_per_rank; ++i)
    raise_to(m_banks[i].next[kAct], last + m_t.RFC);
  // As refresh() on each: precharged background up to each REF, then its active part.
  const uint64_t active = refresh_active_cycles();
  on_open(rk, first);
  rk.precharged_cycles += (last - first) - (n - 1) * active;
  rk.active_cycles += n * active;
  rk.state_since = last + active;
  m_counts.refreshes += n;
}

void DramTimingState::auto_precharge(uint32_t bank) {
  Bank& b = m_banks[bank];
  raise_to(b.next[kAct], b.next[kPre] + m_t.RP);
  if (!close(bank))
    return;
  // The device closes the row when the precharge starts, which may lie ahead of commands
  // still to come: settle() closes it for energy once time passes it.
  Rank& rk = m_ranks[b.rank];
  b.closes_at = b.next[kPre];
  rk.first_close = std::min(rk.first_close, b.closes_at);
}

void DramTimingState::settle(Rank& rk, uint32_t rank, uint64_t t) {
  Bank* const first = &m_banks[size_t{rank} * m_banks_per_rank];
  while (rk.first_close <= t) {
    const uint64_t at = rk.first_close;
    rk.first_close = kNoRow;
    for (Bank* b = first; b != first + m_banks_per_rank; ++b) {
      if (b->closes_at == at) {
        b->closes_at = kNoRow;
        if (--rk.powered_banks == 0)
          on_close(rk, at);
      } else {
        rk.first_close = std::min(rk.first_close, b->closes_at);
      }
    }
  }
}

DramTimingState::Background DramTimingState::background(uint32_t rank, uint64_t end) const {
  // Settle a copy up to `end`: the pending auto-precharges close their banks in time order.
  Rank rk = m_ranks[rank];
  const size_t first = size_t{rank} * m_banks_per_rank;
  std::vector<uint64_t> closes;
  for (size_t i = first; i < first + m_banks_per_rank; ++i)
    if (m_banks[i].closes_at <= end)
      closes.push_back(m_banks[i].closes_at);
  std::sort(closes.begin(), closes.end());
  for (const uint64_t at : closes)
    if (--rk.powered_banks == 0)
      on_close(rk, at);
  Background bg{rk.active_cycles, rk.precharged_cycles};
  if (end < rk.state_since) // the run ended inside a refresh's active part
    bg.active_cycles -= rk.state_since - end;
  else if (rk.powered_banks > 0)
    bg.active_cycles += end - rk.state_since;
  else
    bg.precharged_cycles += end - rk.state_since;
  return bg;
}

DramActivity DramTimingState::activity(uint64_t end) const {
  DramActivity a;
  a.activates = m_counts.activates;
  a.precharges = m_counts.precharges;
  a.reads = m_counts.reads;
  a.writes = m_counts.writes;
  a.refreshes = m_counts.refreshes;
  for (uint32_t r = 0; r < rank_count(); ++r) {
    const Background bg = background(r, end);
    a.active_cycles += bg.active_cycles;
    a.precharged_cycles += bg.precharged_cycles;
  }
  return a;
}

} // namespace npu
