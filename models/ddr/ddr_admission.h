#pragma once

#include "models/common/index_bits.h"
#include "models/ddr/dram_controllers.h"

#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <utility>
#include <vector>

namespace npu {

/// One transaction in the DDR: a blocked b_transport, or a non-blocking request, with its
/// 64-byte requests still in the controllers.
struct DdrTransaction {
  uint32_t index = 0;      ///< its place in the admission's pool: the id of its requests
  uint32_t remaining = 0;  ///< requests not yet done (plus one while some wait to be queued)
  uint64_t done_cycle = 0; ///< end of the latest data burst of its requests so far
  sc_core::sc_event done;
  tlm::tlm_generic_payload* payload = nullptr; ///< non-blocking: answer it when done
};

/// The DDR front end's admission queues (DRAMSys's arbiter): transactions split into
/// 64-byte requests and queued in their channels' controllers; requests that find their
/// queue full wait in line by order of arrival; non-blocking requests wait for their
/// arrival time and are taken in order of arrival.
class DdrAdmission {
public:
  /// `finished` is called once every request of a transaction is done.
  DdrAdmission(DramControllers& controllers, uint64_t access_bytes,
               std::function<void(DdrTransaction&)> finished);

  /// A transaction from the pool (an event is costly to build), and back into it.
  DdrTransaction& take();
  void give_back(DdrTransaction& t) { m_spare.push_back(&t); }
  /// A request of transaction `id` ended its data burst at `done_cycle`.
  void request_done(uint64_t id, uint64_t done_cycle);

  /// Queues the requests of a blocking access at `cycle` while their queues have room;
  /// the rest wait in line. The transaction is done when its `remaining` reaches zero.
  void admit_blocking(DdrTransaction& t, uint64_t addr, uint64_t len, bool is_write,
                      uint64_t cycle);
  /// A non-blocking request arriving at `arrival_ps`; true when it must be taken at its
  /// arrival (it may find a full queue, or others wait in line), false when it surely
  /// finds room and may be taken late, by its deadline.
  bool arrive(tlm::tlm_generic_payload& payload, uint64_t arrival_ps);
  /// Queues every non-blocking request that arrived by `until_ps`, each at its own arrival
  /// cycle, in order of arrival.
  void take_arrivals(uint64_t until_ps) {
    if (!m_arrivals.empty() || !m_exact_arrivals.empty()) // inline: mostly none on the way
      take_due_arrivals(until_ps);
  }
  /// Lets requests waiting in line take the queue entries free at `cycle`, oldest first,
  /// as one pass over them all in order of arrival would.
  void admit_waiting(uint64_t cycle) {
    if (m_waiting_count > 0 && cycle != m_passed_cycle) // inline: mostly no one waits
      serve_waiting(cycle);
  }
  /// A channel advanced since the latest pass of admit_waiting (it may have freed entries).
  void channel_advanced() { m_passed_cycle = UINT64_MAX; }
  bool anyone_waiting() const { return m_waiting_count > 0; }
  /// The earliest time (ps) the controllers must run at for the arrivals not yet taken
  /// (UINT64_MAX: none), no earlier than `after_ps`.
  uint64_t next_arrival_ps(uint64_t after_ps) const {
    return m_arrivals.empty() && m_exact_arrivals.empty() ? UINT64_MAX
                                                          : next_due_arrival_ps(after_ps);
  }
  /// The latest time the controllers may first look at a request arriving at `arrival_ps`
  /// without answering anything late: its earliest possible data-burst end.
  uint64_t deadline_ps(uint64_t arrival_ps) const;

private:
  /// A non-blocking request on its way in: (arrival in ps, order of arrival, payload).
  struct Arrival {
    uint64_t at;  ///< ps
    uint64_t seq; ///< order of arrival: unique, so the payload never decides
    tlm::tlm_generic_payload* payload;
    bool operator>(const Arrival& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  /// A transaction whose next 64-byte request found its queue full: it waits, and so do
  /// its later requests.
  struct Blocked {
    DdrTransaction* transaction;
    uint64_t next; ///< address of its first request not yet queued
    uint64_t end;  ///< one past its last byte
    bool is_write;
    uint32_t channel = 0;  ///< channel whose full queue stops it
    uint64_t seq = 0;      ///< order of arrival among blocked requests
    bool reserved = false; ///< its requests not yet queued are still counted (reserve)
  };
  /// Blocked requests of one line, oldest (lowest seq) first: a vector taken from the
  /// front, so blocking and admitting allocate nothing once it has grown.
  class Line {
  public:
    bool empty() const { return m_head == m_items.size(); }
    const Blocked& front() const { return m_items[m_head]; }
    void pop_front();
    /// Puts `b` in order of seq: at the back, unless it keeps an older place in line.
    void insert(const Blocked& b);

  private:
    std::vector<Blocked> m_items;
    size_t m_head = 0;
  };

  void take_due_arrivals(uint64_t until_ps);             ///< take_arrivals with some not yet taken
  void serve_waiting(uint64_t cycle);                    ///< admit_waiting for a new pass
  uint64_t next_due_arrival_ps(uint64_t after_ps) const; ///< next_arrival_ps with some
  /// Counts the payload's requests as bound for their queues; true when every one of them
  /// has a free entry even if all counted requests before it take theirs. Each is
  /// uncounted as it is queued, or when it starts to wait in line (admit, accept).
  bool reserve(const tlm::tlm_generic_payload& payload);
  /// Queues the requests of a non-blocking request that arrived at `cycle`.
  void accept(tlm::tlm_generic_payload& payload, uint64_t cycle);
  /// Queues `b`'s requests in order at `cycle` (or their channel's clock, if later) while
  /// their queues have room; false when one is full.
  bool admit(Blocked& b, uint64_t cycle);
  /// Puts a newly blocked request (its channel set) in its line, after every earlier one.
  void block(Blocked b);
  /// Puts `b` (its seq set) in its line, in order of seq.
  void wait_in_line(const Blocked& b);
  /// Whether line `line` (channel * 2 + is_write) has a free entry at `cycle`.
  bool room(size_t line, uint64_t cycle);

  DramControllers& m_controllers;
  uint64_t m_access_bytes;
  std::function<void(DdrTransaction&)> m_finished;
  std::vector<std::unique_ptr<DdrTransaction>> m_pool; ///< every transaction ever made
  std::vector<DdrTransaction*> m_spare;                ///< those free for reuse
  /// Non-blocking requests not yet taken, and the arrival times of those that must be
  /// taken at their arrival.
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<Arrival>> m_arrivals;
  uint64_t m_arrival_seq = 0;
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> m_exact_arrivals;
  /// Requests of arrivals not yet taken, per channel: [0] reads, [1] writes.
  std::vector<std::array<uint32_t, 2>> m_reserved;
  /// Requests waiting for a queue entry, per line [channel * 2 + is_write], by order of
  /// arrival: a line is looked at only when its queue has room.
  std::vector<Line> m_lines;
  size_t m_waiting_count = 0;
  IndexBits m_waiting_lines; ///< lines that may hold requests (cleared when found empty)
  /// Scratch of admit_waiting: (oldest request, line) of the lines being served.
  std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                      std::greater<>>
      m_heads;
  uint64_t m_blocked_seq = 0;
  /// The cycle of admit_waiting's latest pass while nothing since can have freed a queue
  /// entry by then (UINT64_MAX: none). After a pass every line left waiting has a full
  /// queue whose channel is at that cycle or has nothing due by it; queuing more requests
  /// at that cycle frees nothing, only advancing a channel does. A second pass at that
  /// cycle would find nothing to admit.
  uint64_t m_passed_cycle = UINT64_MAX;
};

} // namespace npu
