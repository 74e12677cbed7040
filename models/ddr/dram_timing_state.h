#pragma once

#include "models/ddr/dram_energy.h"
#include "models/ddr/dram_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace npu {

/// DRAM commands. RDA/WRA carry an auto-precharge (closed-page policy).
enum class DramCommand : uint8_t { ACT, PRE, PREA, RD, WR, RDA, WRA, REF };
const char* dram_command_name(DramCommand c);

/// The JEDEC constraints of one channel's device: per bank, bank group and rank the
/// earliest cycle each command may issue, the open rows and the tFAW window. It answers
/// "when may this command issue to this bank" and is told "this command issued at t";
/// it knows nothing of queues or policies (DRAMSys's checker, Ramulator 2's timing
/// state). Banks are flat: (rank x bank_groups + group) x banks_per_group + bank.
/// Time is in memory clocks.
class DramTimingState {
public:
  static constexpr uint64_t kNoRow = std::numeric_limits<uint64_t>::max();
  /// Timer slots: the earliest cycle each command may issue.
  enum Kind : uint8_t { kAct = 0, kPre = 1, kRd = 2, kWr = 3 };

  struct Bank {
    uint64_t open_row = kNoRow;
    std::array<uint64_t, 4> next{}; ///< by Kind
    uint32_t group = 0, rank = 0;   ///< flat indices
    uint64_t closes_at = kNoRow;    ///< cycle its pending auto-precharge starts (energy)
  };
  struct Group {
    std::array<uint64_t, 4> next{}; ///< by Kind (kPre unused)
  };
  struct Rank {
    std::array<uint64_t, 4> next{}; ///< by Kind (kPre unused); kAct holds tRRD_S and tFAW
    std::array<uint64_t, 4> acts{}; ///< last four ACTs, for tFAW
    uint32_t act_head = 0;
    uint64_t act_count = 0;
    uint32_t open_banks = 0;
    // Background energy (DRAMPower's actcycles/precycles): banks open as the device sees
    // them (an auto-precharge closes its bank when it starts, which may lie ahead), the
    // cycle the current state began, and the cycles spent with >= 1 bank open or none.
    uint32_t powered_banks = 0;
    uint64_t state_since = 0;
    uint64_t first_close = kNoRow; ///< earliest pending auto-precharge of its banks
    uint64_t active_cycles = 0, precharged_cycles = 0;
  };
  /// Commands that cost energy, over the channel. A precharge counts when it closes a row.
  struct CommandCounts {
    uint64_t activates = 0, precharges = 0, reads = 0, writes = 0, refreshes = 0;
  };
  /// Cycles of one rank in each background state from cycle 0 to some end.
  struct Background {
    uint64_t active_cycles = 0, precharged_cycles = 0;
  };

  explicit DramTimingState(const DramSpec& spec);

  uint32_t bank_count() const { return static_cast<uint32_t>(m_banks.size()); }
  uint32_t rank_count() const { return static_cast<uint32_t>(m_ranks.size()); }
  uint32_t banks_per_rank() const { return m_banks_per_rank; }
  const Bank& bank(uint32_t b) const { return m_banks[b]; }
  const Rank& rank(uint32_t r) const { return m_ranks[r]; }
  /// For schedulers' inner loops: every group's and rank's timers.
  const Group* groups() const { return m_groups.data(); }
  const Rank* ranks() const { return m_ranks.data(); }
  /// Earliest cycle a command of `kind` may issue to `bank`, by its bank, group and rank.
  uint64_t earliest(uint32_t bank, Kind kind) const;
  /// Earliest cycle a PREA may close every open bank of `rank`.
  uint64_t precharge_all_ready(uint32_t rank) const;
  /// Earliest cycle a REF may issue to `rank` once its banks are closed.
  uint64_t refresh_ready(uint32_t rank) const;

  /// Clocks a REF keeps its rank's banks busy (tRFC).
  uint64_t refresh_cycles() const { return m_t.RFC; }
  /// Clocks a RD or WR holds the data bus.
  uint64_t burst_cycles() const { return m_burst; }
  /// Clocks from a RD (WR) to the end of its data burst.
  uint64_t read_done_cycles() const { return m_rd_done; }
  uint64_t write_done_cycles() const { return m_wr_done; }

  /// ACT of `row` at t.
  void activate(uint32_t bank, uint64_t row, uint64_t t);
  /// PRE at t (also one bank's share of a PREA); true when the bank was open.
  bool precharge(uint32_t bank, uint64_t t);
  /// REF at t: every bank of the rank is busy for tRFC.
  void refresh(uint32_t rank, uint64_t t);
  /// `n` >= 1 REFs of `rank`, the first at `first`, the others at next, next + interval,
  /// next + 2 interval...: as `n` calls of refresh() (each at least tRFC after the one
  /// before), at a cost that does not grow with `n`.
  void refresh_run(uint32_t rank, uint64_t first, uint64_t next, uint64_t interval, uint64_t n);
  /// RD or WR at t to the bank's open row.
  void column(uint32_t bank, bool is_write, uint64_t t);
  /// The auto-precharge of the RDA/WRA just issued: it starts once tRAS and tRTP (or
  /// write recovery) allow, and the bank closes.
  void auto_precharge(uint32_t bank);

  const CommandCounts& command_counts() const { return m_counts; }
  /// Cycles of `rank` with >= 1 bank open (and inside a refresh's tRFC - tRP, as DRAMPower
  /// counts them) and with none, from cycle 0 to `end`, which must not precede the last
  /// command. The two add up to `end`.
  Background background(uint32_t rank, uint64_t end) const;
  /// The commands and every rank's background cycles up to `end`, for dram_energy().
  DramActivity activity(uint64_t end) const;

private:
  static void raise_to(uint64_t& timer, uint64_t t) { timer = t > timer ? t : timer; }
  bool close(uint32_t bank);
  /// Cycles of a refresh that DRAMPower counts as active background.
  uint64_t refresh_active_cycles() const { return m_t.RFC > m_t.RP ? m_t.RFC - m_t.RP : 0; }
  /// Energy view: the first bank of the rank opens at t, or its last one closes at t.
  static void on_open(Rank& rk, uint64_t t);
  static void on_close(Rank& rk, uint64_t t);
  /// Closes, in order of time, the banks of `rk` whose auto-precharge started by t.
  void settle(Rank& rk, uint32_t rank, uint64_t t);

  DramTiming m_t;
  uint32_t m_banks_per_rank;
  // Derived once, in clocks.
  uint64_t m_burst;
  uint64_t m_rd_to_wr, m_wr_to_rd_s, m_wr_to_rd_l, m_wr_to_pre, m_rd_done, m_wr_done;
  uint64_t m_rank_rd_to_rd, m_rank_rd_to_wr, m_rank_wr_to_wr, m_rank_wr_to_rd;

  std::vector<Bank> m_banks;
  std::vector<Group> m_groups;
  std::vector<Rank> m_ranks;
  CommandCounts m_counts;
};

// Inline: the controller calls these for every command.
inline void DramTimingState::activate(uint32_t bank, uint64_t row, uint64_t t) {
  Bank& b = m_banks[bank];
  Group& g = m_groups[b.group];
  Rank& rk = m_ranks[b.rank];
  b.open_row = row;
  ++rk.open_banks;
  if (rk.first_close <= t)
    settle(rk, b.rank, t);
  if (rk.powered_banks++ == 0)
    on_open(rk, t);
  ++m_counts.activates;
  raise_to(b.next[kAct], t + m_t.RC);
  raise_to(b.next[kPre], t + m_t.RAS);
  raise_to(b.next[kRd], t + m_t.RCD);
  raise_to(b.next[kWr], t + m_t.RCD);
  raise_to(g.next[kAct], t + m_t.RRD_L);
  rk.acts[rk.act_head] = t;
  rk.act_head = (rk.act_head + 1) % 4;
  ++rk.act_count;
  raise_to(rk.next[kAct], t + m_t.RRD_S);
  if (rk.act_count >= 4) // the oldest of the last four ACTs opens the window
    raise_to(rk.next[kAct], rk.acts[rk.act_head] + m_t.FAW);
}

inline void DramTimingState::on_open(Rank& rk, uint64_t t) {
  rk.precharged_cycles += t - rk.state_since;
  rk.state_since = t;
}

inline void DramTimingState::on_close(Rank& rk, uint64_t t) {
  rk.active_cycles += t - rk.state_since;
  rk.state_since = t;
}

inline bool DramTimingState::close(uint32_t bank) {
  Bank& b = m_banks[bank];
  if (b.open_row == kNoRow)
    return false;
  b.open_row = kNoRow;
  --m_ranks[b.rank].open_banks;
  ++m_counts.precharges;
  return true;
}

inline bool DramTimingState::precharge(uint32_t bank, uint64_t t) {
  raise_to(m_banks[bank].next[kAct], t + m_t.RP);
  if (!close(bank))
    return false;
  Rank& rk = m_ranks[m_banks[bank].rank];
  if (rk.first_close <= t)
    settle(rk, m_banks[bank].rank, t);
  if (--rk.powered_banks == 0)
    on_close(rk, t);
  return true;
}

inline void DramTimingState::column(uint32_t bank, bool is_write, uint64_t t) {
  Bank& b = m_banks[bank];
  Group& g = m_groups[b.group];
  Rank& rk = m_ranks[b.rank];
  ++(is_write ? m_counts.writes : m_counts.reads);
  if (is_write) {
    raise_to(g.next[kWr], t + m_t.CCD_L);
    raise_to(rk.next[kWr], t + m_t.CCD_S);
    raise_to(g.next[kRd], t + m_wr_to_rd_l);
    raise_to(rk.next[kRd], t + m_wr_to_rd_s);
    raise_to(b.next[kPre], t + m_wr_to_pre);
  } else {
    raise_to(g.next[kRd], t + m_t.CCD_L);
    raise_to(rk.next[kRd], t + m_t.CCD_S);
    raise_to(rk.next[kWr], t + m_rd_to_wr);
    raise_to(b.next[kPre], t + m_t.RTP);
  }
  for (Rank& other : m_ranks) {
    if (&other == &rk)
      continue;
    raise_to(other.next[kRd], t + (is_write ? m_rank_wr_to_rd : m_rank_rd_to_rd));
    raise_to(other.next[kWr], t + (is_write ? m_rank_wr_to_wr : m_rank_rd_to_wr));
  }
}

} // namespace npu
