#pragma once

#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_channel.h"
#include "models/ddr/dram_energy.h"
#include "models/ddr/dram_spec.h"

#include <array>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace npu {

/// An access to serve at the transaction level: `rows` rows of `row_bytes` bytes, each
/// `stride` bytes after the previous one (one row: a plain access). Its data arrives
/// evenly over [arrival, arrival + spread] in the order of its bytes (rows one after the
/// other), as a DMA's bursts do. Times in memory clocks.
struct DramTransaction {
  uint64_t addr = 0;
  uint64_t row_bytes = 0;
  uint64_t rows = 1;
  uint64_t stride = 0;
  bool is_write = false;
  uint64_t arrival = 0; ///< clock of its first byte
  uint64_t spread = 0;  ///< clocks from its first byte to its last
  /// The initiator's burst: each burst is its own 64-byte requests (a line that two
  /// bursts share is requested twice, as the cycle controller sees it), and first_done
  /// covers the first burst. 0: the whole row is one piece, first_done its first line.
  uint64_t unit_bytes = 0;
};

/// When a transaction's data bursts end: the first unit's and the last one's (clocks).
struct DramTransactionDone {
  uint64_t first = 0;
  uint64_t last = 0;
};

/// A DRAM served at the transaction level in closed form (`ddr.model: transaction`).
///
/// A transaction's 64-byte lines are grouped, per channel and in address order, into runs
/// that stay in one row of one bank index across bank groups, and each run is served
/// whole: from each bank's state (open row, when it may next activate, precharge and take
/// a column), the rank's activation window (tRRD_S/L, and at most four ACTs per tFAW,
/// placed in the gaps of the ACTs already booked), the data bus (a calendar of busy spans
/// in which a run takes the first gap that fits), read/write turnarounds, and refresh as
/// a periodic window per rank (PREA then REF, banks closed, nothing else issues). A run's
/// columns follow each other at tCCD_S between bank groups and tCCD_L within one.
///
/// Transactions served together (serve_batch: the ones a DMA has in flight at once) share
/// each channel by arrival, as the cycle controller's FR-FCFS does with its queue: runs go
/// in order of arrival, except that a run of a bank's open row goes before a run that would
/// close the row, when it arrives before that run's precharge could issue. There is no
/// queue and no per-request event: the cost is per run, plus a decode per line.
///
/// What it counts for energy (DramActivity) and statistics (DramChannelStats) is the same
/// as the cycle-approximate controller's: ACT, PRE (PREA per open bank), RD/WR per line,
/// REF, and per rank the cycles with a bank open or none.
class TransactionDram {
public:
  TransactionDram(const DramSpec& spec, const DramControllerConfig& config,
                  const AddressMapper& mapper);

  /// Serves `t`; returns when its first unit's and its last data burst end.
  DramTransactionDone serve(const DramTransaction& t);
  /// Serves transactions together; `done[i]` is transaction i's.
  void serve_batch(const std::vector<DramTransaction>& batch,
                   std::vector<DramTransactionDone>& done);

  /// Adds the 64-byte requests of `t` to `per_channel[0, channels())`, one count per channel.
  void count_lines(const DramTransaction& t, uint32_t* per_channel) const;

  /// Counters summed over the channels.
  DramChannelStats stats() const;
  /// Commands and background cycles of every channel from clock 0 to `end`, for
  /// dram_energy(), with the refreshes due by `refreshed_until` (the banks' state then kept
  /// to `end`).
  DramActivity activity(uint64_t end, uint64_t refreshed_until = UINT64_MAX) const;
  /// The first clock from `at` on when `channel`'s read queue is empty: the start of the
  /// first idle stretch between its booked reads that ends after `at` (the latest few are
  /// kept), else the end of its booked reads.
  uint64_t read_queue_empty_from(uint32_t channel, uint64_t at) const;
  uint32_t channels() const { return static_cast<uint32_t>(m_channels.size()); }
  /// The arrival of the latest transaction served (clocks).
  uint64_t last_arrival() const { return m_last_arrival; }
  /// Clocks from a RD (WR) to the end of its data burst.
  uint64_t read_done_cycles() const { return m_t.CL + m_burst; }
  uint64_t write_done_cycles() const { return m_t.CWL + m_burst; }

private:
  static constexpr uint64_t kNoRow = std::numeric_limits<uint64_t>::max();
  static constexpr uint32_t kGroupWords = 4;    ///< bank groups up to 256, as bits
  static constexpr uint32_t kIdleStretches = 8; ///< idle stretches of a read queue kept

  /// A row a bank held open and has closed since: columns to it fit from `col_from` until
  /// the PRE at `pre` (less tRTP or write recovery) without moving what came after.
  struct OpenSpan {
    uint64_t row = kNoRow;
    uint64_t act = 0;      ///< its ACT
    uint64_t col_from = 0; ///< its first column at the earliest
    uint64_t pre_min = 0;  ///< the earliest PRE its own columns allowed
    uint64_t pre = 0;      ///< its PRE
  };
  static constexpr uint32_t kSpans = 4; ///< closed rows a bank remembers
  /// A bank's state after what is booked, and its calendar: the rows it closed last.
  struct Bank {
    uint64_t row = kNoRow;  ///< the run key of its open row
    uint64_t act_ready = 0; ///< earliest ACT (tRC, tRP after a PRE, refresh)
    uint64_t pre_ready = 0; ///< earliest PRE (tRAS, tRTP, write recovery)
    uint64_t col_ready = 0; ///< earliest RD/WR (tRCD, tCCD_L)
    uint64_t open_act = 0;  ///< the ACT of its open row
    uint64_t open_at = 0;   ///< when the access that opened it could first issue
    uint64_t open_col = 0;  ///< when its open row took its first column at the earliest
    std::array<OpenSpan, kSpans> closed{}; ///< its latest closed rows, a ring
    uint32_t next_closed = 0;
  };
  /// A recent ACT of a rank: clock and bank group.
  struct Act {
    uint64_t at;
    uint32_t group;
  };
  struct Rank {
    std::vector<Act> acts; ///< recent ACTs, by clock, from acts_head on
    size_t acts_head = 0;  ///< ACTs before it no longer constrain any
    /// The gaps after acts[packed_from] to acts[packed_to - 1] are each under two tRRD: none
    /// takes an ACT (place_act_between() skips them at once). None when the two are equal.
    size_t packed_from = 0, packed_to = 0;
    uint64_t next_refresh = 0;    ///< when its next refresh falls due (kNoRow: never)
    uint64_t refreshes = 0;       ///< refreshes applied
    uint32_t open_banks = 0;      ///< banks with a row open
    uint64_t open_since = 0;      ///< clock its first open bank opened
    uint64_t active_cycles = 0;   ///< with a bank open, up to open_since
    uint64_t closed_page_end = 0; ///< closed page: when its latest open span ends
    uint64_t held_from = 0;       ///< the latest refresh applied: when it fell due
    uint64_t held_prea = 0;       ///< its PREA
    uint64_t ready_before = 0;    ///< when the refresh before it let ACTs go again
    uint64_t ready_after = 0;     ///< when it lets ACTs go again
  };
  /// Busy spans of a data bus, by start, non-overlapping, merged when they touch.
  class BusCalendar {
  public:
    /// The earliest s >= t with [s, s + len) free.
    uint64_t find(uint64_t t, uint64_t len) const;
    /// Books [start, start + len), which must be free.
    void add(uint64_t start, uint64_t len);
    /// Forgets spans that end by `t`; later bookings start after them.
    void forget_before(uint64_t t) {
      if (m_head < m_spans.size() && m_spans[m_head].second <= t) // at least one (seldom)
        forget_through(t);
    }
    size_t size() const { return m_spans.size() - m_head; }

  private:
    /// forget_before() where the first span ends by `t`.
    void forget_through(uint64_t t);

    std::vector<std::pair<uint64_t, uint64_t>> m_spans; ///< from m_head on
    size_t m_head = 0; ///< spans before it are forgotten (dropped in bulk)
    uint64_t m_floor = 0;
    mutable uint64_t m_hint_at = UINT64_MAX; ///< what find() returned last (none: UINT64_MAX)
    mutable size_t m_hint = 0;               ///< and the span it found first after it
  };
  /// The data bus slots a run of one bank group left free between its lines (tCCD_L apart,
  /// a burst each): the lines of another bank group's run take them, as FR-FCFS interleaves
  /// the two.
  struct Gaps {
    uint64_t next = 0;  ///< data start of the first slot left (m_slot_s after a line)
    uint64_t end = 0;   ///< where the run's booking of the bus ends
    uint32_t slots = 0; ///< slots left, m_slot_l apart
    uint32_t rank = 0, group = 0;
    bool is_write = false;
  };
  static constexpr uint32_t kGapRuns = 4;    ///< runs whose free slots a channel remembers
  static constexpr uint32_t kPacedLines = 4; ///< the fewest lines of a run that takes slots
  struct Channel {
    std::vector<Bank> banks;
    std::vector<Rank> ranks;
    BusCalendar bus;
    /// Of the latest runs of one bank group booked (their bookings do not overlap).
    std::array<Gaps, kGapRuns> gaps{};
    uint32_t next_gaps = 0; ///< the entry the next such run takes, a ring
    bool used = false;
    bool last_write = false;
    uint64_t direction_lines = 0;  ///< lines served since the direction last changed
    uint64_t last_read_column = 0; ///< the latest RD booked (clock)
    /// The latest stretches [first, second) with no read queued: a read arrived after every
    /// RD booked before it had issued (a ring, next at idle_next).
    std::array<std::pair<uint64_t, uint64_t>, kIdleStretches> idle{};
    uint32_t idle_next = 0;
    uint32_t last_rank = 0;
    DramChannelStats stats;
    uint64_t precharges = 0; ///< rows closed (PRE, each bank of a PREA, closed page)
  };
  /// The lines of one transaction on one channel that stay in one row of one bank index
  /// (and rank), in address order, possibly over several bank groups.
  struct Run {
    uint64_t key = kNoRow; ///< the address without its column, bank-group and channel bits
    std::array<uint64_t, kGroupWords> groups{}; ///< bank groups touched
    uint64_t first_arrival = 0, last_arrival = 0;
    uint32_t lines = 0;
    uint32_t same_group = 0;  ///< consecutive lines in one bank group (tCCD_L apart)
    uint32_t first_group = 0; ///< its first line's bank group
    uint32_t last_group = 0;
    uint32_t first_lines = 0; ///< leading lines within the transaction's first unit
    uint32_t tx = 0;          ///< its transaction in the batch
    uint32_t channel = 0;
    uint32_t rank = 0; ///< of its key
    uint32_t bank = 0; ///< of its key, in its bank groups
    bool is_write = false;
    bool listed = false; ///< forming: in m_forming
  };
  /// What serving (part of) a run gives: its first line's data start, its data end, and
  /// the end of its lines in the first unit (0: none).
  struct Served {
    uint64_t end = 0;
    uint64_t first_end = 0;
  };

  /// Orders the batch's runs by channel, then arrival, then as formed (m_queued), and marks
  /// where each channel's runs begin (m_channel_start).
  void order_runs();
  /// Cuts transaction `tx` of the batch into runs (m_formed).
  void form_runs(const DramTransaction& t, uint32_t tx);
  /// Adds lines `first` to `last` (line numbers: addresses over the line size), arriving at
  /// `arrival`, each to its channel's run, closing the run before when a line starts another.
  void add_lines(uint64_t first, uint64_t last, uint64_t arrival, bool first_unit, bool is_write,
                 uint32_t tx);
  /// Calls `f(group)` for each bank group run `r` touches, in order (the first word of
  /// Run::groups apart: most devices have up to 64 bank groups).
  template <typename F> void for_each_group(const Run& r, F f) const {
    for (uint64_t bits = r.groups[0]; bits != 0; bits &= bits - 1)
      f(static_cast<uint32_t>(__builtin_ctzll(bits)));
    for (uint32_t w = 1; w < m_group_words; ++w)
      for (uint64_t bits = r.groups[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
  }
  /// Serves the runs formed for one channel, FR-FCFS by arrival (serve_batch).
  void serve_channel(size_t begin, size_t end, std::vector<DramTransactionDone>& done);
  /// Serves run `r` whole (in parts when a refresh falls due within it).
  Served serve_run(Run& r);
  /// Serves lines [from, to) of run `r`, none before `floor`. A refresh due before its last
  /// column stops it there: `served` says how many lines it took, and `floor` is then the
  /// refresh's due time.
  void serve_part(Channel& ch, Run& r, uint32_t from, uint32_t to, uint64_t& floor,
                  uint32_t& served, Served& out);
  /// Opens run `r`'s row in each bank group it touches (counting them in `opened`); returns
  /// the earliest clock its first column of lines [from, from + n) may issue.
  uint64_t open_run_banks(Channel& ch, const Run& r, uint32_t from, uint32_t n, uint64_t c0,
                          uint64_t last_arrival, uint32_t& opened);
  /// A column window in a row `b` held open before (its calendar) for `n` lines of run `r`
  /// from `c0` whose last line arrives at `last_arrival`: the earliest first column, or
  /// kNoRow when none fits (open page policy).
  uint64_t closed_row_fit(const Bank& b, const Run& r, uint32_t n, uint64_t c0,
                          uint64_t last_arrival) const;
  /// Opens run `r`'s row in bank `b` (group `group`) ahead of what is booked, as
  /// open_between() or open_before_refresh() allow (open page policy): returns its first
  /// column, or kNoRow.
  uint64_t open_early(Channel& ch, Bank& b, const Run& r, uint32_t group, uint32_t n, uint64_t c0,
                      uint64_t last_arrival);
  /// Opens run `r`'s row in bank `b` (group `group`) between the row it closed last and its
  /// open row, when the access is older than the one that opened that row (open_early()
  /// checks) and both allow (the earlier row closes sooner); returns its first column, or
  /// kNoRow.
  uint64_t open_between(Channel& ch, Bank& b, const Run& r, uint32_t group, uint32_t n, uint64_t c0,
                        uint64_t last_arrival);
  /// Opens run `r`'s row in bank `b` (group `group`), closed by the rank's latest refresh or
  /// before it, ahead of that refresh when the access came before it fell due (open_early()
  /// checks) and its columns and PRE fit before the refresh's PREA; returns its first column,
  /// or kNoRow.
  uint64_t open_before_refresh(Channel& ch, Bank& b, const Run& r, uint32_t group, uint32_t n,
                               uint64_t c0, uint64_t last_arrival);
  /// The data start of `n` lines of run `r`, one bank group's (tCCD_L apart), in the slots
  /// that one of the channel's latest such runs of another bank group left (Gaps), from
  /// `earliest` (data clocks) and before `before` (where the bus has room for them all), with
  /// its columns before any refresh; or kNoRow. Takes the slots, and books the bus for the
  /// lines past that run's booking; when the bus is taken there, only the lines in its slots
  /// go (`n` says how many).
  uint64_t take_gaps(Channel& ch, const Run& r, uint64_t earliest, uint64_t latency,
                     uint64_t before, uint32_t& n);
  /// Clocks the data bus idles before `n` lines of this direction on `rank` (turnarounds).
  uint64_t turnaround(const Channel& ch, bool is_write, uint32_t n, uint32_t rank) const;
  /// The banks of run `r` after its columns from `first_col` to `last_col`.
  void book_banks(Channel& ch, const Run& r, uint64_t first_col, uint64_t last_col);
  /// Counters of `k` of `n` lines whose data takes [data, data + busy).
  void count_part(Channel& ch, bool is_write, uint32_t k, uint32_t n, uint32_t opened,
                  uint64_t data, uint64_t busy, uint64_t from_arrival, uint64_t last_arrival);
  /// Opens `row` in `bank` (group `group` of `rank`) no earlier than `at`; returns the
  /// clock its columns may start.
  uint64_t open_row(Channel& ch, uint32_t rank, uint32_t group, uint32_t bank, uint64_t row,
                    uint64_t at);
  /// The earliest clock >= `at` at which `rank` may take an ACT to `group` among the ACTs
  /// already booked (tRRD_S/L, tFAW); books it. ACTs before `arrival` (that of the access
  /// asking, which later ones do not precede) by more than the windows are forgotten.
  uint64_t place_act(Rank& rank, uint32_t group, uint64_t at, uint64_t arrival, bool book = true);
  /// place_act() where `at` falls before the last ACT booked: the gaps from there on.
  uint64_t place_act_between(Rank& rank, uint32_t group, uint64_t at, bool book);
  /// The first ACT from acts[g] on (relative to acts_head) whose gap to the next is not under
  /// two `rrd_min` (the last one when all are), remembering the packed ones (packed_from).
  int64_t skip_packed(Rank& rank, int64_t g, uint64_t rrd_min);
  /// The earliest clock from `at` for an ACT to `group` after acts[g] (none: g < 0) and the
  /// ones before it (tRRD_S/L from the last three, tFAW from the fourth).
  uint64_t act_after(const Act* acts, int64_t g, uint32_t group, uint64_t at) const;
  /// Applies every refresh of `rank` due at or before `at`.
  void refresh_until(Channel& ch, uint32_t rank, uint64_t at);
  void refresh(Channel& ch, uint32_t rank);
  void close_bank(Channel& ch, Rank& rk, Bank& b, uint64_t at);
  void open_bank(Rank& rk, uint64_t at);
  /// AddressMapper::channel_hash(addr), from the table of its low bits and the hash of the
  /// bits above kept while they stay the same.
  uint64_t channel_hash(uint64_t addr) const {
    if (m_hash_low_mask == 0) // no hash (the table has bits whenever there is one)
      return 0;
    const uint64_t high = addr >> m_hash_high_shift;
    if (high != m_hash_high_block) {
      m_hash_high_block = high;
      m_hash_high = m_mapper.channel_hash(high << m_hash_high_shift);
    }
    return m_hash_high ^ m_hash_low[(addr >> m_hash_low_shift) & m_hash_low_mask];
  }
  uint32_t rank_of(uint64_t key) const {
    return static_cast<uint32_t>(key >> m_rank_shift) & m_rank_mask;
  }
  uint32_t bank_of(uint64_t key) const {
    return static_cast<uint32_t>(key >> m_bank_shift) & m_bank_mask;
  }
  uint32_t bank_index(uint32_t rank, uint32_t group, uint32_t bank) const {
    return (rank * m_spec.bank_groups + group) * m_spec.banks_per_group + bank;
  }

  DramSpec m_spec;
  DramTiming m_t;
  DramControllerConfig m_config;
  const AddressMapper& m_mapper;
  uint64_t m_burst;          ///< clocks a line holds the data bus
  uint64_t m_slot_s;         ///< clocks between lines of other bank groups
  uint64_t m_slot_l;         ///< clocks between lines of one bank group
  uint64_t m_write_batch;    ///< writes the controller drains per turnaround
  uint64_t m_piece_window;   ///< clocks of arrivals one run may span (a queue's drain)
  uint64_t m_key_mask;       ///< address bits of rank, bank and row
  uint32_t m_line_shift = 0; ///< log2 of the line size
  uint32_t m_group_shift = 0, m_group_mask = 0;
  uint32_t m_group_words = kGroupWords; ///< words of Run::groups a bank group may set
  uint32_t m_rank_shift = 0, m_rank_mask = 0;
  uint32_t m_bank_shift = 0, m_bank_mask = 0;
  std::vector<uint8_t> m_hash_low; ///< the channel hash of the low bits it folds, by their value
  uint32_t m_hash_low_shift = 63;  ///< where those bits start
  uint64_t m_hash_low_mask = 0;    ///< and their mask from there
  uint32_t m_hash_high_shift = 63; ///< the bits above them start here
  mutable uint64_t m_hash_high_block = UINT64_MAX; ///< the bits above, of m_hash_high
  mutable uint64_t m_hash_high = 0;                ///< their channel hash
  std::vector<Channel> m_channels;
  std::vector<Run> m_runs;               ///< the run being formed, per channel
  std::vector<uint32_t> m_forming;       ///< channels with a run being formed
  std::vector<Run> m_formed;             ///< the batch's runs, as formed
  std::vector<uint32_t> m_channel_start; ///< scratch: each channel's first in m_queued
  std::vector<uint32_t> m_channel_next;  ///< scratch: where its next run goes in m_queued
  /// A run formed as serve_channel() scans it: its first arrival, its key (kNoRow once
  /// served) and its place in m_formed.
  struct Queued {
    uint64_t arrival;
    uint64_t key;
    uint32_t run;
  };
  /// scratch: the batch's runs by channel, then arrival, then as formed (order_runs())
  std::vector<Queued> m_queued;
  std::vector<DramTransactionDone> m_single; ///< scratch of serve()
  uint64_t m_last_arrival = 0;               ///< of any transaction served
  uint64_t m_horizon = 0;                    ///< the earliest arrival of the batch served
};

} // namespace npu
