#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

namespace npu {

/// A resource (a port) booked for intervals of time in any order: a booking takes the
/// earliest gap at or after its ready time that is long enough, so a request booked late
/// for an early time is not queued behind one booked earlier for a later time (as it would
/// be behind BusyResource's single free time). Initiators that run ahead of simulated time
/// (temporal decoupling) book out of order. Times are in picoseconds.
class BusyCalendar {
public:
  /// Books `duration_ps` starting no earlier than `ready_ps`; returns the start time.
  /// Bookings that end before `forget_before_ps` are dropped: no later booking may be ready
  /// before that time.
  uint64_t reserve(uint64_t ready_ps, uint64_t duration_ps, uint64_t forget_before_ps) {
    m_busy_ps += duration_ps;
    size_t drop = m_head;
    while (drop < m_busy.size() && m_busy[drop].end <= forget_before_ps)
      ++drop;
    m_head = drop;
    if (m_head > 64 && m_head * 2 > m_busy.size()) {
      m_busy.erase(m_busy.begin(), m_busy.begin() + static_cast<std::ptrdiff_t>(m_head));
      m_head = 0;
    }
    if (duration_ps == 0)
      return ready_ps;
    // Intervals are disjoint and sorted, so their ends are sorted too: skip those that end
    // by the ready time.
    auto it =
        std::partition_point(m_busy.begin() + static_cast<std::ptrdiff_t>(m_head), m_busy.end(),
                             [&](const Interval& i) { return i.end <= ready_ps; });
    uint64_t start = ready_ps;
    while (it != m_busy.end() && it->start < start + duration_ps) {
      start = std::max(start, it->end);
      ++it;
    }
    const uint64_t end = start + duration_ps;
    // Join the neighbours it touches, so a saturated port stays one interval.
    const bool joins_prev =
        it != m_busy.begin() + static_cast<std::ptrdiff_t>(m_head) && std::prev(it)->end == start;
    const bool joins_next = it != m_busy.end() && it->start == end;
    if (joins_prev && joins_next) {
      std::prev(it)->end = it->end;
      m_busy.erase(it);
    } else if (joins_prev) {
      std::prev(it)->end = end;
    } else if (joins_next) {
      it->start = start;
    } else {
      m_busy.insert(it, Interval{start, end});
    }
    return start;
  }
  /// Time booked in all.
  uint64_t busy_ps() const { return m_busy_ps; }
  /// Intervals still remembered (for tests).
  size_t intervals() const { return m_busy.size() - m_head; }

private:
  struct Interval {
    uint64_t start, end;
  };
  std::vector<Interval> m_busy; ///< from m_head on: disjoint, in order
  size_t m_head = 0;
  uint64_t m_busy_ps = 0;
};

} // namespace npu
