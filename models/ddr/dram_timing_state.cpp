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
}

void DramTimingState::auto_precharge(uint32_t bank) {
  Bank& b = m_banks[bank];
  raise_to(b.next[kAct], b.next[kPre] + m_t.RP);
  close(bank);
}

} // namespace npu
