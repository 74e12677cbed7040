#pragma once

#include "models/common/launch_record.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace npu {

/// Every launch's record, indexed by launch id. The host driver opens a record
/// at t0; the scheduler and units fill t3..t5; the driver closes it at t6.
///
/// Closed records leave the log in launch-id order: each goes to the sink (when one is
/// set) and, unless the log was told not to keep them, into records(). Only the records
/// from the oldest open launch on stay in memory, so a sink that streams to disk keeps
/// a long run's memory bounded.
class LaunchLog {
public:
  using Sink = std::function<void(const LaunchRecord&)>;

  /// Passes every closed record to `sink`, in launch-id order; `keep` false drops
  /// them afterwards (records() then stays empty).
  void set_sink(Sink sink, bool keep) {
    m_sink = std::move(sink);
    m_keep = keep;
  }

  LaunchRecord& open() {
    m_open.emplace_back();
    m_closed.push_back(false);
    m_open.back().launch_id = m_base + m_open.size() - 1;
    return m_open.back();
  }

  /// A launch that is still open (or kept).
  LaunchRecord& at(uint64_t launch_id) {
    if (launch_id >= m_base && launch_id - m_base < m_open.size())
      return m_open[launch_id - m_base];
    if (m_keep && launch_id < m_kept.size())
      return m_kept[launch_id];
    throw std::out_of_range("launch " + std::to_string(launch_id) + " is not in the log");
  }

  /// Sets t6 and releases every record up to the oldest one still open.
  void close(uint64_t launch_id, uint64_t t6_ps) {
    at(launch_id).t_ps[6] = t6_ps;
    if (launch_id >= m_base && launch_id - m_base < m_closed.size())
      m_closed[launch_id - m_base] = true;
    while (!m_open.empty() && m_closed.front())
      release();
  }

  /// Releases the records still open (the run ended; they are reported as they stand).
  void flush() {
    while (!m_open.empty())
      release();
  }

  /// Launches opened so far.
  uint64_t count() const { return m_base + m_open.size(); }
  const std::vector<LaunchRecord>& records() const { return m_kept; }
  std::vector<LaunchRecord>& records() { return m_kept; }

private:
  void release() {
    if (m_sink)
      m_sink(m_open.front());
    if (m_keep)
      m_kept.push_back(std::move(m_open.front()));
    m_open.pop_front();
    m_closed.pop_front();
    ++m_base;
  }

  std::deque<LaunchRecord> m_open; ///< launch ids m_base, m_base + 1, ...
  std::deque<bool> m_closed;       ///< t6 set, per record of m_open
  uint64_t m_base = 0;             ///< launch id of m_open.front()
  std::vector<LaunchRecord> m_kept;
  Sink m_sink;
  bool m_keep = true;
};

} // namespace npu
