#include "models/ddr/dram_refresh.h"

#include <algorithm>
#include <limits>

namespace npu {

AllBankRefresh::AllBankRefresh(const DramSpec& spec)
    : RefreshPolicy(spec.ranks), m_refi(spec.t.REFI), m_due(spec.ranks) {
  for (uint32_t r = 0; r < spec.ranks; ++r)
    m_due[r] = uint64_t{spec.t.REFI} * (r + 1) / spec.ranks;
  update_next_due();
}

void AllBankRefresh::update_next_due() {
  m_next_due = std::numeric_limits<uint64_t>::max();
  for (size_t r = 0; r < m_due.size(); ++r)
    if (!m_held[r])
      m_next_due = std::min(m_next_due, m_due[r]);
}

void AllBankRefresh::poll(uint64_t cycle) {
  for (size_t r = 0; r < m_due.size(); ++r) {
    if (!m_held[r] && m_due[r] <= cycle) {
      m_held[r] = 1;
      m_any_held = true;
    }
  }
  update_next_due();
}

void AllBankRefresh::propose(const DramTimingState& timing, uint64_t floor,
                             DramCandidate& best) const {
  for (uint32_t r = 0; r < m_due.size(); ++r) {
    if (!m_held[r])
      continue;
    DramCandidate c;
    c.prio = 0;
    c.rank = r;
    uint64_t t = 0;
    if (timing.rank(r).open_banks > 0) {
      c.command = DramCommand::PREA;
      t = timing.precharge_all_ready(r);
    } else {
      c.command = DramCommand::REF;
      t = timing.refresh_ready(r);
    }
    c.cycle = std::max(t, floor);
    if (DramCandidate::better(c, best))
      best = c;
  }
}

void AllBankRefresh::on_refresh(uint32_t rank) {
  m_held[rank] = 0;
  m_due[rank] += m_refi;
  m_any_held = std::any_of(m_held.begin(), m_held.end(), [](uint8_t h) { return h != 0; });
  update_next_due();
}

bool AllBankRefresh::first_due(uint32_t& rank, uint64_t& cycle, uint64_t& others) const {
  // The rank due first; a tie between ranks goes to the scheduler, which orders them.
  uint32_t r = 0;
  for (uint32_t i = 1; i < m_due.size(); ++i)
    if (m_due[i] < m_due[r])
      r = i;
  others = std::numeric_limits<uint64_t>::max();
  for (uint32_t i = 0; i < m_due.size(); ++i)
    if (i != r)
      others = std::min(others, m_due[i]);
  rank = r;
  cycle = m_due[r];
  return others > cycle;
}

DramRefreshPolicies make_refresh_policy(const DramControllerConfig& config, const DramSpec& spec) {
  if (!config.refresh)
    return NoRefresh(spec.ranks);
  return AllBankRefresh(spec);
}

} // namespace npu
