#pragma once

#include "models/common/ring_queue.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_energy.h"
#include "models/ddr/dram_page_policy.h"
#include "models/ddr/dram_queues.h"
#include "models/ddr/dram_refresh.h"
#include "models/ddr/dram_scheduler.h"
#include "models/ddr/dram_spec.h"
#include "models/ddr/dram_timing_state.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

namespace npu {

/// One 64-byte access offered to a channel.
struct DramRequest {
  uint64_t id = 0;
  uint64_t addr = 0;
  bool is_write = false;
};

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

  /// Adds another channel's counts (the maximum latency is the larger one).
  DramChannelStats& operator+=(const DramChannelStats& o);
};

/// A cycle-approximate controller and device for one DRAM channel: separate read and
/// write queues (DramQueues) drained between watermarks, a scheduler (FR-FCFS or FCFS), a
/// page policy (open or closed) and a refresh policy (all-bank per rank, or none), with
/// the JEDEC constraints of DramTiming kept by DramTimingState for every command. Event
/// driven: it jumps from one cycle at which a command can issue (or a burst ends) to the
/// next. Time is in memory clocks. A request accepted at cycle a issues its first command
/// at a + 1 or later.
class DramChannel {
public:
  DramChannel(const DramSpec& spec, const DramControllerConfig& config,
              const AddressMapper& mapper);
  // The policies point into the channel's own state.
  DramChannel(const DramChannel&) = delete;
  DramChannel& operator=(const DramChannel&) = delete;

  /// Whether the read (or write) queue has a free entry. A request leaves its queue when
  /// its RD or WR issues (see on_dequeue), before its data burst.
  bool can_accept(bool is_write) const {
    return is_write ? m_queues.wr.count < m_config.write_queue
                    : m_queues.rd.count < m_config.read_queue;
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
  uint64_t min_done_cycles() const {
    return std::min(m_timing.read_done_cycles(), m_timing.write_done_cycles());
  }
  /// Requests waiting in the read (or write) queue.
  uint32_t queued(bool is_write) const { return m_queues.queue(is_write).count; }
  /// Nothing queued or in flight (pending() == 0, without counting).
  bool idle() const {
    return m_queues.rd.count == 0 && m_queues.wr.count == 0 && m_rd_done.empty() &&
           m_wr_done.empty();
  }
  /// Queued plus in-flight requests.
  size_t pending() const {
    return m_queues.rd.count + m_queues.wr.count + m_rd_done.size() + m_wr_done.size();
  }

  /// Whether a request's RD/WR has issued and on_done has not been called for it yet.
  bool issued_pending() const { return !m_rd_done.empty() || !m_wr_done.empty(); }
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
  /// The commands issued so far and each rank's background cycles up to `end_cycle`
  /// (>= the last command issued), for dram_energy().
  DramActivity activity(uint64_t end_cycle) const { return m_timing.activity(end_cycle); }
  const DramTimingState& timing() const { return m_timing; }
  /// Nearest-rank percentile (0 < p <= 1) of read latency in cycles, from acceptance to
  /// the end of the data burst; 0 without reads.
  uint64_t read_latency_percentile_cycles(double p) const;
  double read_latency_mean_cycles() const;

  /// Keeps every issued command in command_log() (off by default: it grows without bound).
  void set_command_log(bool on) { m_log_on = on; }
  const std::vector<DramCommandRecord>& command_log() const { return m_log; }
  bool write_mode() const { return m_queues.write_mode; }
  const DramSpec& spec() const { return m_spec; }

private:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

  struct Completion {
    uint64_t id;
    uint64_t done;
  };

  bool next_write_mode() const;
  /// Calls `f` with the scheduler, as its own class.
  template <class F> decltype(auto) scheduler(F&& f) {
    return std::visit(std::forward<F>(f), m_scheduler);
  }
  /// Calls `f` with the refresh policy, as its own class.
  template <class F> decltype(auto) refresh(F&& f) {
    return std::visit(std::forward<F>(f), m_refresh);
  }
  const RefreshPolicy& refresh_state() const { return npu::refresh_state(m_refresh); }
  DramIssueLimits limits() const {
    return {m_floor, refresh_state().held(), refresh_state().any_held()};
  }
  /// Enqueue's fast path: only the new request's bank changed its choice.
  void reconsider_bank(uint32_t bank);
  void rescan();
  /// For an idle() channel: issues the refreshes due up to `cycle` directly (a PREA first
  /// where banks are open), each command at the cycle decide() would issue it, without
  /// rescans.
  void skip_idle_refreshes(uint64_t cycle);
  /// skip_idle_refreshes' fast path: where every rank with a refresh due by `cycle` has its
  /// banks closed and ready by then (or is the only rank: its PREA and first REF issue as
  /// decide() would), the rank's refreshes issue at the cycles they fall due, so its run of
  /// them issues in one step. False where decide()'s order is needed for the next command:
  /// open banks of one of several ranks, a late rank, a tie between ranks.
  bool issue_refresh_runs(uint64_t cycle);
  /// The only rank's PREA, then its first REF where it issues by `cycle` (else the rank is
  /// held, as decide() leaves it); returns that REF's cycle, or kNever.
  uint64_t close_for_refresh(AllBankRefresh& p, uint64_t due, uint64_t cycle);
  /// The refreshes of `rank` due by `cycle` (the first at t0, the rest when they fall due);
  /// returns the last one's cycle.
  uint64_t issue_refresh_run(AllBankRefresh& p, uint32_t rank, uint64_t t0, uint64_t cycle);
  void decide(uint64_t cycle);
  void issue(const DramCandidate& c, uint64_t cycle);
  void issue_act(const DramEntry& e, int32_t slot, uint64_t t);
  void issue_pre(uint32_t bank, uint64_t t);
  void issue_cas(bool is_write, int32_t slot, uint64_t t);
  void issue_prea(uint32_t rank, uint64_t t);
  void issue_ref(uint32_t rank, uint64_t t);
  /// After the bank's row closed (PRE, PREA, auto-precharge): nothing queued hits it.
  void forget_row(uint32_t bank);
  void count_outcome(DramOutcome outcome);
  void record_read(const DramEntry& e, uint64_t done);
  void log(DramCommand c, uint64_t t, uint32_t bank_flat, uint64_t row, uint32_t column);
  uint64_t next_completion() const;
  void deliver_one();

  DramSpec m_spec;
  DramControllerConfig m_config;
  AddressMapper m_mapper;
  uint32_t m_high, m_low; ///< write-queue watermarks in entries

  DramTimingState m_timing;
  DramQueues m_queues;
  DramSchedulers m_scheduler;
  DramPagePolicies m_page_policy;
  DramRefreshPolicies m_refresh;
  RingQueue<Completion> m_rd_done, m_wr_done;
  uint64_t m_seq = 0;

  uint64_t m_now = 0;
  uint64_t m_floor = 1; ///< earliest cycle the next command may issue
  bool m_dirty = false; ///< m_best / m_next_decision need a rescan
  DramCandidate m_best; ///< valid when !m_dirty
  uint64_t m_next_decision = kNever;

  DramChannelStats m_stats;
  std::vector<uint64_t> m_latency_hist; ///< read latency in cycles -> count
  bool m_log_on = false;
  std::vector<DramCommandRecord> m_log;
};

// Inline: the DDR asks every channel for these each time its controllers run.
inline uint64_t DramChannel::next_completion() const {
  uint64_t t = kNever;
  if (!m_rd_done.empty())
    t = m_rd_done.front().done;
  if (!m_wr_done.empty())
    t = std::min(t, m_wr_done.front().done);
  return t;
}

inline uint64_t DramChannel::next_event() const {
  if (m_queues.rd.count == 0 && m_queues.wr.count == 0)
    return next_completion();
  return std::min(m_next_decision, next_completion());
}

inline uint64_t DramChannel::next_completion_bound() const {
  uint64_t t = next_completion();
  if (m_queues.rd.count > 0)
    t = std::min(t, m_next_decision + m_timing.read_done_cycles());
  if (m_queues.wr.count > 0)
    t = std::min(t, m_next_decision + m_timing.write_done_cycles());
  return t;
}

} // namespace npu
