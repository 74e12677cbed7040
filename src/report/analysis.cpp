#include "report/analysis.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <tuple>

namespace npu {

uint32_t LaunchTable::intern(const std::string& name, std::vector<std::string>& names,
                             std::unordered_map<std::string, uint32_t>& index) {
  const auto [it, inserted] = index.try_emplace(name, static_cast<uint32_t>(names.size()));
  if (inserted)
    names.push_back(name);
  return it->second;
}

void LaunchTable::add(const LaunchRecord& record) {
  LaunchRow row;
  static_cast<LaunchTimes&>(row) = record;
  row.kernel = intern(record.kernel, m_kernels, m_kernel_index);
  row.stream = intern(record.stream, m_streams, m_stream_index);
  row.unit = record.unit;
  row.async = record.async;
  m_rows.push_back(row);
}

LaunchTable make_launch_table(const std::vector<LaunchRecord>& records) {
  LaunchTable table;
  for (const LaunchRecord& r : records)
    table.add(r);
  return table;
}

const char* category_name(TimeCategory category) {
  switch (category) {
  case TimeCategory::Execute:
    return "execute";
  case TimeCategory::Iload:
    return "iload";
  case TimeCategory::Schedule:
    return "schedule";
  case TimeCategory::Complete:
    return "complete";
  case TimeCategory::Launch:
    return "host_launch";
  case TimeCategory::Idle:
    return "device_idle";
  }
  return "?";
}

namespace {

// The category of each launch interval [t_k, t_k+1).
constexpr std::array<TimeCategory, 6> k_interval_category{
    TimeCategory::Launch, TimeCategory::Launch,  TimeCategory::Schedule,
    TimeCategory::Iload,  TimeCategory::Execute, TimeCategory::Complete,
};

} // namespace

TimeBreakdown breakdown(const LaunchTable& table, uint64_t end_ps) {
  // A sweep over interval boundaries. Launches come in t0 order and all their
  // boundaries lie at or after t0, so only the boundaries of launches in flight wait
  // in the heap: memory stays bounded by the launches in flight.
  using Boundary = std::tuple<uint64_t, int, uint8_t>; // time, +1 / -1, category
  std::priority_queue<Boundary, std::vector<Boundary>, std::greater<>> pending;
  std::array<uint64_t, k_time_categories> active{};
  TimeBreakdown parts{};
  uint64_t now = 0;
  const auto advance_to = [&](uint64_t t) {
    if (t <= now)
      return;
    size_t top = static_cast<size_t>(TimeCategory::Idle);
    for (size_t c = 0; c < k_time_categories; ++c)
      if (active[c] > 0) {
        top = c;
        break;
      }
    parts[top] += t - now;
    now = t;
  };
  const auto drain_until = [&](uint64_t t) {
    while (!pending.empty() && std::get<0>(pending.top()) <= t) {
      const auto [time, delta, category] = pending.top();
      pending.pop();
      advance_to(std::min(time, end_ps));
      active[category] += static_cast<uint64_t>(static_cast<int64_t>(delta));
    }
  };
  for (const LaunchRow& row : table.rows()) {
    drain_until(row.t_ps[0]);
    for (size_t k = 0; k + 1 < row.t_ps.size(); ++k) {
      if (row.t_ps[k + 1] <= row.t_ps[k])
        continue;
      const auto category = static_cast<uint8_t>(k_interval_category[k]);
      pending.emplace(row.t_ps[k], +1, category);
      pending.emplace(row.t_ps[k + 1], -1, category);
    }
  }
  drain_until(UINT64_MAX);
  advance_to(end_ps);
  return parts;
}

namespace {

// Walks the path backwards; `cursor` is the earliest time already on the path.
class PathWalk {
public:
  PathWalk(const LaunchTable& table, uint64_t end_ps, uint64_t sync_call_ps)
      : m_table(table), m_rows(table.rows()), m_sync_call_ps(sync_call_ps), m_cursor(end_ps),
        m_on_path(m_rows.size(), false), m_kernel_ps(table.kernels().size(), 0),
        m_kernel_launches(table.kernels().size(), 0) {
    const auto n = static_cast<uint32_t>(m_rows.size());
    m_by_t5.resize(n);
    std::iota(m_by_t5.begin(), m_by_t5.end(), 0u);
    std::stable_sort(m_by_t5.begin(), m_by_t5.end(),
                     [&](uint32_t a, uint32_t b) { return m_rows[a].t_ps[5] < m_rows[b].t_ps[5]; });
    m_by_t6.resize(n);
    std::iota(m_by_t6.begin(), m_by_t6.end(), 0u);
    std::stable_sort(m_by_t6.begin(), m_by_t6.end(),
                     [&](uint32_t a, uint32_t b) { return m_rows[a].t_ps[6] < m_rows[b].t_ps[6]; });
  }

  CriticalPath run() {
    // Every step moves the cursor back or to an earlier launch; the cap is a safeguard.
    size_t steps = 4 * m_rows.size() + 4;
    if (!m_by_t6.empty()) {
      int64_t launch = m_by_t6.back();
      bool at_t6 = true;
      while (launch >= 0 && steps-- > 0)
        launch = step(static_cast<uint32_t>(launch), at_t6);
    }
    take(TimeCategory::Idle, 0, -1);

    CriticalPath path;
    path.ps = m_parts;
    path.host_gaps = m_host_gaps;
    for (size_t k = 0; k < m_kernel_ps.size(); ++k) {
      if (m_kernel_launches[k] == 0)
        continue;
      path.launches += m_kernel_launches[k];
      path.kernels.push_back({m_table.kernels()[k], m_kernel_launches[k], m_kernel_ps[k]});
    }
    std::stable_sort(path.kernels.begin(), path.kernels.end(),
                     [](const PathKernel& a, const PathKernel& b) { return a.ps > b.ps; });
    return path;
  }

private:
  // Puts [from, cursor) on the path as `category` (of `launch`, or -1 for the host).
  void take(TimeCategory category, uint64_t from, int64_t launch) {
    if (launch >= 0 && !m_on_path[static_cast<size_t>(launch)]) {
      m_on_path[static_cast<size_t>(launch)] = true;
      ++m_kernel_launches[m_rows[static_cast<size_t>(launch)].kernel];
    }
    if (from >= m_cursor)
      return;
    const uint64_t ps = m_cursor - from;
    m_parts[static_cast<size_t>(category)] += ps;
    if (launch >= 0)
      m_kernel_ps[m_rows[static_cast<size_t>(launch)].kernel] += ps;
    else if (category == TimeCategory::Idle)
      ++m_host_gaps;
    m_cursor = from;
  }

  // The launch among `order` (indices sorted by t_ps[k]) with the latest t_ps[k] in
  // (after, upto], other than `self` and accepted by `fits`; -1 when there is none.
  template <typename Fits>
  int64_t latest(const std::vector<uint32_t>& order, size_t k, uint64_t after, uint64_t upto,
                 uint32_t self, Fits fits) const {
    auto it = std::upper_bound(order.begin(), order.end(), upto,
                               [&](uint64_t t, uint32_t i) { return t < m_rows[i].t_ps[k]; });
    while (it != order.begin()) {
      --it;
      const LaunchRow& r = m_rows[*it];
      if (r.t_ps[k] <= after)
        break;
      if (*it != self && fits(r))
        return *it;
    }
    return -1;
  }

  // Puts launch `i` on the path, from its t6 (or its t5 when a later launch waited for
  // it to finish), and returns the next launch to follow, or -1 at the start of the run.
  int64_t step(uint32_t i, bool& at_t6) {
    const LaunchRow& row = m_rows[i];
    if (at_t6)
      take(TimeCategory::Idle, row.t_ps[6], -1); // the host after it learnt of completion
    take(TimeCategory::Complete, row.t_ps[5], i);
    take(TimeCategory::Execute, row.t_ps[4], i);
    take(TimeCategory::Iload, row.t_ps[3], i);
    if (row.schedule_wait_ps() > 0) {
      // What it waited for: a launch that finished meanwhile on its stream or unit,
      // else any launch that finished meanwhile (an event on another stream).
      int64_t before = latest(m_by_t5, 5, row.t_ps[2], row.t_ps[3], i, [&](const LaunchRow& r) {
        return r.stream == row.stream || (r.unit >= 0 && r.unit == row.unit);
      });
      if (before < 0)
        before =
            latest(m_by_t5, 5, row.t_ps[2], row.t_ps[3], i, [](const LaunchRow&) { return true; });
      if (before >= 0) {
        take(TimeCategory::Schedule, m_rows[static_cast<size_t>(before)].t_ps[5], i);
        at_t6 = false;
        return before;
      }
    }
    take(TimeCategory::Schedule, row.t_ps[2], i);
    take(TimeCategory::Launch, row.t_ps[0], i);
    return host_before(i, at_t6);
  }

  // What the host did before it entered launch `i`'s call at the cursor.
  int64_t host_before(uint32_t i, bool& at_t6) {
    for (;;) {
      // The previous launch call (a command list's launches share one call).
      int64_t q = static_cast<int64_t>(i) - 1;
      while (q >= 0 && m_rows[static_cast<size_t>(q)].t_ps[0] >= m_rows[i].t_ps[0])
        --q;
      const uint64_t host_free =
          q < 0 ? 0
                : (m_rows[static_cast<size_t>(q)].async ? m_rows[static_cast<size_t>(q)].t_ps[2]
                                                        : m_rows[static_cast<size_t>(q)].t_ps[6]);
      // A sync the host woke from: a completion it learnt of just before the cursor.
      const uint64_t wake_from = m_cursor > m_sync_call_ps ? m_cursor - m_sync_call_ps : 0;
      const int64_t waited = latest(m_by_t6, 6, std::max(host_free, wake_from + 1) - 1, m_cursor,
                                    UINT32_MAX, [](const LaunchRow&) { return true; });
      if (waited >= 0) {
        at_t6 = true;
        return waited;
      }
      if (q < 0)
        return -1;
      const LaunchRow& prev = m_rows[static_cast<size_t>(q)];
      if (!prev.async) {
        at_t6 = true; // the host waited for it
        return q;
      }
      take(TimeCategory::Idle, std::min(prev.t_ps[2], m_cursor), -1);
      take(TimeCategory::Launch, prev.t_ps[0], q);
      i = static_cast<uint32_t>(q);
    }
  }

  const LaunchTable& m_table;
  const std::vector<LaunchRow>& m_rows;
  uint64_t m_sync_call_ps;
  uint64_t m_cursor;
  TimeBreakdown m_parts{};
  uint64_t m_host_gaps = 0;
  std::vector<bool> m_on_path;
  std::vector<uint64_t> m_kernel_ps;
  std::vector<uint64_t> m_kernel_launches;
  std::vector<uint32_t> m_by_t5;
  std::vector<uint32_t> m_by_t6;
};

} // namespace

CriticalPath critical_path(const LaunchTable& table, uint64_t end_ps, uint64_t sync_call_ps) {
  return PathWalk(table, end_ps, sync_call_ps).run();
}

} // namespace npu
