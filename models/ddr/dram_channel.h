#pragma once

#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_spec.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <vector>

namespace npu {

/// One 64-byte access offered to a channel.
struct DramRequest {
  uint64_t id = 0;
  uint64_t addr = 0;
  bool is_write = false;
};

/// DRAM commands. RDA/WRA carry an auto-precharge (closed-page policy).
enum class DramCommand : uint8_t { ACT, PRE, PREA, RD, WR, RDA, WRA, REF };
const char* dram_command_name(DramCommand c);

/// One issued command, for tests and traces. PREA and REF name only the rank.
struct DramCommandRecord {
  uint64_t cycle = 0;
  DramCommand command = DramCommand::ACT;
  uint32_t rank = 0;
  uint32_t bankgroup = 0;
  uint32_t bank = 0;
  uint64_t row = 0;
  uint32_t column = 0;
};

/// Counters of one channel. Row outcome is decided by the first command a request needs:
/// RD/WR (hit), ACT (miss: bank closed) or PRE (conflict: another row open).
struct DramChannelStats {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t row_hits = 0;
  uint64_t row_misses = 0;
  uint64_t row_conflicts = 0;
  uint64_t activates = 0;
  uint64_t precharges = 0; ///< PRE, PREA and auto-precharges
  uint64_t refreshes = 0;
  uint64_t data_bus_busy_cycles = 0;
  uint64_t read_latency_sum_cycles = 0;
  uint64_t read_latency_max_cycles = 0;
};

/// A cycle-approximate controller and device for one DRAM channel: separate read and
/// write queues, FR-FCFS (ready row hits first, then oldest), open- or closed-page policy,
/// write draining between watermarks, all-bank refresh per rank, and the JEDEC
/// constraints of DramTiming checked for every command. Event driven: it jumps from one
/// cycle at which a command can issue (or a burst ends) to the next. Time is in memory
/// clocks. A request accepted at cycle a issues its first command at a + 1 or later.
class DramChannel {
public:
  DramChannel(const DramSpec& spec, const DramControllerConfig& config,
              const AddressMapper& mapper);

  /// Whether the read (or write) queue has a free entry. A request leaves its queue when
  /// its RD or WR issues (see on_dequeue), before its data burst.
  bool can_accept(bool is_write) const {
    return is_write ? m_wq.count < m_config.write_queue : m_rq.count < m_config.read_queue;
  }
  /// Accepts `r` into its queue at `cycle` (>= now(); the channel first advances to it).
  /// The queue must have room (can_accept). Only the address's non-channel fields are used.
  void enqueue(const DramRequest& r, uint64_t cycle);
  /// Runs the controller through `cycle`, issuing commands and calling on_done for every
  /// request whose data burst ended at or before it.
  void advance_to(uint64_t cycle);
  /// Earliest cycle > now() at which a command may issue or a request completes;
  /// UINT64_MAX when no request is queued or in flight (refreshes due meanwhile are
  /// caught up by the next enqueue or advance_to).
  uint64_t next_event() const;
  /// A lower bound on the next completion: the next data burst's end, or for a queued
  /// request the next decision plus the shortest CAS-to-data-end. Until then the channel
  /// only issues commands, which advance_to() replays exactly when called later, so a
  /// caller that needs only completions (and arrivals, which enqueue at their cycle)
  /// may sleep until this cycle instead of next_event().
  uint64_t next_completion_bound() const;
  /// Whether advance_to(cycle) would do anything but move the clock: new requests, or
  /// an event at or before `cycle`. An idle channel can be left behind; it catches up
  /// (refreshes included) when it is next advanced or given a request.
  bool due(uint64_t cycle) const { return m_dirty || next_event() <= cycle; }
  uint64_t now() const { return m_now; }
  /// Fewest cycles from a request's RD/WR to the end of its data burst.
  uint64_t min_done_cycles() const { return std::min(m_rd_done_off, m_wr_done_off); }
  /// Requests waiting in the read (or write) queue.
  uint32_t queued(bool is_write) const { return is_write ? m_wq.count : m_rq.count; }
  /// Queued plus in-flight requests.
  size_t pending() const { return m_rq.count + m_wq.count + m_rd_done.size() + m_wr_done.size(); }

  /// Calls on_done now, in order of their cycles, for every request whose RD/WR has issued
  /// and whose data burst ends later: its end no longer depends on anything but that
  /// command. on_done must not enqueue from here.
  void deliver_issued() {
    while (!m_rd_done.empty() || !m_wr_done.empty())
      deliver_one();
  }

  /// Called from advance_to (or enqueue) for each request whose read data burst / write
  /// data burst ended, with that cycle. It may call enqueue at done_cycle.
  /// From deliver_issued, done_cycle may lie ahead of now().
  std::function<void(uint64_t id, uint64_t done_cycle)> on_done;
  /// Called from advance_to when a request's RD/WR issues at `cycle` and its queue entry
  /// frees (optional: lets a blocked initiator in at that cycle). It may call enqueue.
  std::function<void(bool is_write, uint64_t cycle)> on_dequeue;

  const DramChannelStats& stats() const { return m_stats; }
  /// Nearest-rank percentile (0 < p <= 1) of read latency in cycles, from acceptance to
  /// the end of the data burst; 0 without reads.
  uint64_t read_latency_percentile_cycles(double p) const;
  double read_latency_mean_cycles() const;

  /// Keeps every issued command in command_log() (off by default: it grows without bound).
  void set_command_log(bool on) { m_log_on = on; }
  const std::vector<DramCommandRecord>& command_log() const { return m_log; }
  bool write_mode() const { return m_write_mode; }
  const DramSpec& spec() const { return m_spec; }

private:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kNoRow = std::numeric_limits<uint64_t>::max();
  // Timer slots: the earliest cycle each command may issue, per bank, group and rank.
  enum Kind : uint8_t { kAct = 0, kPre = 1, kRd = 2, kWr = 3 };

  enum class Outcome : uint8_t { Unknown, Hit, Miss, Conflict };

  struct Entry {
    uint64_t id = 0;
    uint64_t arrival = 0;
    uint64_t seq = 0; ///< acceptance order: smaller is older
    uint64_t row = 0;
    uint32_t bank = 0; ///< flat index in m_banks
    uint32_t column = 0;
    int32_t older = -1, younger = -1; ///< neighbours in the bank's list (slots of this queue)
    Outcome outcome = Outcome::Unknown;
    bool is_write = false;
    bool valid = false;
  };
  /// A request queue with stable slots, so banks can point at their candidate.
  struct Queue {
    std::vector<Entry> slots;
    std::vector<uint32_t> free;
    uint32_t count = 0;
  };
  struct Bank {
    uint64_t open_row = kNoRow;
    std::array<uint64_t, 4> next{};    ///< by Kind
    uint32_t hits_rd = 0, hits_wr = 0; ///< queued requests (both queues) to the open row
    uint32_t group = 0, rank = 0;      ///< flat indices
    int32_t cand = -1;                 ///< its entry in m_cands, or -1
    /// The request whose ACT opened the row (slot in the queue of `opener_write`) until its
    /// RD/WR issues or the row closes, or -1. A mode switch does not take the row from it.
    int32_t opener = -1;
    bool opener_write = false;
    /// This bank's requests in each queue, oldest first: [0] reads, [1] writes (slots).
    std::array<int32_t, 2> oldest{-1, -1}, youngest{-1, -1};
  };
  /// A bank's FR-FCFS choice in the active queue: its oldest row hit, else its oldest
  /// request (which needs ACT or PRE); but the other queue's request that its row was opened
  /// for (Bank::opener) until that RD/WR issues. Every request of a bank that needs the same
  /// command may issue at the same cycle, so the oldest one stands for all.
  struct CandView {
    uint64_t bank_part = 0; ///< max(bank timer of the command, arrival + 1)
    uint64_t earliest = 0;  ///< arrival + 1
    uint64_t seq = 0;
    uint32_t bank = 0, group = 0, rank = 0;
    int32_t slot = -1;
    uint8_t kind = kAct;
  };
  struct Group {
    std::array<uint64_t, 4> next{}; ///< by Kind (kPre unused)
  };
  struct Rank {
    std::array<uint64_t, 4> next{}; ///< by Kind (kPre unused); kAct holds tRRD_S and tFAW
    std::array<uint64_t, 4> acts{}; ///< last four ACTs, for tFAW
    uint32_t act_head = 0;
    uint64_t act_count = 0;
    uint64_t refresh_due = 0;
    bool refresh_pending = false;
    uint32_t open_banks = 0;
  };
  /// What the scheduler would issue next.
  struct Candidate {
    uint64_t cycle = kNever;
    int prio = 3; ///< 0 refresh, 1 row hit, 2 ACT/PRE
    uint64_t seq = 0;
    DramCommand command = DramCommand::ACT;
    uint32_t rank = 0;
    uint32_t bank = 0;
    int32_t slot = -1;
  };
  struct Completion {
    uint64_t id;
    uint64_t done;
  };

  Queue& active() { return m_write_mode ? m_wq : m_rq; }
  const Queue& active() const { return m_write_mode ? m_wq : m_rq; }
  bool next_write_mode() const;
  /// Offers the request in `slot` of `q` (by default the active queue) as its bank's
  /// candidate; true when it became the candidate.
  bool offer(int32_t slot);
  bool offer(const Queue& q, int32_t slot);
  void clear_candidate(uint32_t bank);
  void recompute_bank(uint32_t bank);
  void rebuild_candidates();
  /// The bank's candidate with its earliest cycle; false when it has none or is blocked.
  bool bank_candidate(uint32_t bank, Candidate& out) const;
  uint64_t earliest(const CandView& v) const {
    const uint64_t g = m_groups[v.group].next[v.kind];
    const uint64_t r = m_ranks[v.rank].next[v.kind];
    const uint64_t t = v.bank_part > g ? v.bank_part : g;
    const uint64_t u = r > m_floor ? r : m_floor;
    return t > u ? t : u;
  }
  void fill_candidate(const CandView& v, uint64_t cycle, Candidate& out) const;
  /// After a bank's timers moved without a change of its candidate (PREA, REF).
  void refresh_bank_part(uint32_t bank);
  static bool better(const Candidate& a, const Candidate& b) {
    if (a.cycle != b.cycle)
      return a.cycle < b.cycle;
    if (a.prio != b.prio)
      return a.prio < b.prio;
    return a.seq < b.seq;
  }
  void rescan();
  /// With nothing queued or in flight and every bank closed, issues the refreshes due
  /// up to `cycle` directly, each at its due cycle as decide() would, without rescans.
  void skip_idle_refreshes(uint64_t cycle);
  void decide(uint64_t cycle);
  void issue(const Candidate& c, uint64_t cycle);
  void issue_act(const Entry& e, uint64_t t);
  void issue_pre(uint32_t bank, uint64_t t);
  void issue_cas(Queue& q, int32_t slot, uint64_t t);
  void issue_prea(uint32_t rank, uint64_t t);
  void issue_ref(uint32_t rank, uint64_t t);
  void close_bank(uint32_t bank);
  void log(DramCommand c, uint64_t t, uint32_t bank_flat, uint64_t row, uint32_t column);
  uint64_t next_completion() const;
  void deliver_one();

  DramSpec m_spec;
  DramControllerConfig m_config;
  AddressMapper m_mapper;
  // Timing in cycles, derived once.
  uint64_t m_burst;
  uint64_t m_rd_to_wr, m_wr_to_rd_s, m_wr_to_rd_l, m_wr_to_pre, m_rd_done_off, m_wr_done_off;
  uint64_t m_rank_rd_to_rd, m_rank_rd_to_wr, m_rank_wr_to_wr, m_rank_wr_to_rd;
  uint32_t m_high, m_low; ///< write-queue watermarks in entries

  std::vector<Bank> m_banks;
  std::vector<Group> m_groups;
  std::vector<Rank> m_ranks;
  Queue m_rq, m_wq;
  std::vector<CandView> m_cands; ///< one per bank with requests in the active queue
  std::deque<Completion> m_rd_done, m_wr_done;
  bool m_write_mode = false;
  bool m_refresh_pending = false; ///< some rank waits for its refresh
  uint64_t m_seq = 0;

  uint64_t m_now = 0;
  uint64_t m_floor = 1; ///< earliest cycle the next command may issue
  bool m_dirty = false; ///< m_best / m_next_decision need a rescan
  Candidate m_best;     ///< valid when !m_dirty
  uint64_t m_next_decision = kNever;

  DramChannelStats m_stats;
  std::vector<uint64_t> m_latency_hist; ///< read latency in cycles -> count
  bool m_log_on = false;
  std::vector<DramCommandRecord> m_log;
};

} // namespace npu
