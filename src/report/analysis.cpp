#include "report/analysis.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>
#include <set>
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
  static_cast<LaunchCauses&>(row) = record;
  row.kernel = intern(record.kernel, m_kernels, m_kernel_index);
  row.stream = intern(record.stream, m_streams, m_stream_index);
  row.unit = record.unit;
  row.async = record.async;
  m_rows.push_back(row);
  if (row.kernel >= m_work.size())
    m_work.resize(row.kernel + 1);
  LaunchWork& sum = m_work[row.kernel];
  sum.macs += record.work.macs;
  sum.vector_ops += record.work.vector_ops;
  sum.dram_bytes += record.work.dram_bytes;
  sum.mac_roof_ps += record.work.mac_roof_ps;
  sum.compute_roof_ps += record.work.compute_roof_ps;
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
    drain_until(row.at[Stamp::Called]);
    for (size_t k = 0; k + 1 < row.at.size(); ++k) {
      if (row.at.nth(k + 1) <= row.at.nth(k))
        continue;
      const auto category = static_cast<uint8_t>(k_interval_category[k]);
      pending.emplace(row.at.nth(k), +1, category);
      pending.emplace(row.at.nth(k + 1), -1, category);
    }
  }
  drain_until(UINT64_MAX);
  advance_to(end_ps);
  return parts;
}

std::vector<uint64_t> kernel_time(const LaunchTable& table, uint64_t end_ps) {
  // The sweep of breakdown(), with the launches in each category instead of a count.
  using Boundary = std::tuple<uint64_t, int, uint8_t, uint32_t>; // time, +1/-1, category, row
  std::priority_queue<Boundary, std::vector<Boundary>, std::greater<>> pending;
  std::array<std::set<uint32_t>, k_time_categories> active;
  std::vector<uint64_t> kernel_ps(table.kernels().size(), 0);
  const std::vector<LaunchRow>& rows = table.rows();
  uint64_t now = 0;
  const auto advance_to = [&](uint64_t t) {
    if (t <= now)
      return;
    const auto top = std::find_if(active.begin(), active.end(),
                                  [](const std::set<uint32_t>& s) { return !s.empty(); });
    if (top != active.end()) {
      // Whole picoseconds: the remainder goes to the earliest launches.
      const uint64_t n = top->size();
      const uint64_t each = (t - now) / n;
      uint64_t extra = (t - now) % n;
      for (const uint32_t i : *top) {
        kernel_ps[rows[i].kernel] += each + (extra > 0 ? 1 : 0);
        extra -= extra > 0 ? 1 : 0;
      }
    }
    now = t;
  };
  const auto drain_until = [&](uint64_t t) {
    while (!pending.empty() && std::get<0>(pending.top()) <= t) {
      const auto [time, delta, category, row] = pending.top();
      pending.pop();
      advance_to(std::min(time, end_ps));
      if (delta > 0)
        active[category].insert(row);
      else
        active[category].erase(row);
    }
  };
  for (uint32_t i = 0; i < rows.size(); ++i) {
    const LaunchRow& row = rows[i];
    drain_until(row.at[Stamp::Called]);
    for (size_t k = 0; k + 1 < row.at.size(); ++k) {
      if (row.at.nth(k + 1) <= row.at.nth(k))
        continue;
      const auto category = static_cast<uint8_t>(k_interval_category[k]);
      pending.emplace(row.at.nth(k), +1, category, i);
      pending.emplace(row.at.nth(k + 1), -1, category, i);
    }
  }
  drain_until(UINT64_MAX);
  return kernel_ps;
}

namespace {

// Walks the path backwards through the causes each launch recorded; `cursor` is the
// earliest time already on the path.
class PathWalk {
public:
  PathWalk(const LaunchTable& table, uint64_t end_ps)
      : m_table(table), m_rows(table.rows()), m_cursor(end_ps), m_on_path(m_rows.size(), false),
        m_kernel_ps(table.kernels().size(), 0), m_kernel_launches(table.kernels().size(), 0) {}

  CriticalPath run() {
    // The run ends with the last completion the host learnt of (its final sync).
    int64_t launch = -1;
    for (size_t i = 0; i < m_rows.size(); ++i)
      if (launch < 0 ||
          m_rows[i].at[Stamp::Learnt] >= m_rows[static_cast<size_t>(launch)].at[Stamp::Learnt])
        launch = static_cast<int64_t>(i);
    // Causes point to earlier-finishing launches; the cap guards against a record
    // that does not.
    size_t steps = 2 * m_rows.size() + 2;
    bool at_t6 = true;
    while (launch >= 0 && steps-- > 0)
      launch = step(static_cast<uint32_t>(launch), at_t6);
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
  // Puts [from, cursor) on the path as `category` of `launch`, or with `launch` -1 as
  // time between launches: the host's own (a gap between its calls) or the device's
  // (copies and event commands between a launch and the one it released).
  void take(TimeCategory category, uint64_t from, int64_t launch, bool host = true) {
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
    else if (category == TimeCategory::Idle && host)
      ++m_host_gaps;
    m_cursor = from;
  }

  // A recorded cause as a row index, or -1 when it names no earlier launch of the table.
  int64_t row_of(int64_t launch, uint32_t self) const {
    return launch >= 0 && static_cast<uint64_t>(launch) < self ? launch : -1;
  }

  // Puts launch `i` on the path, from its t6 (or from its t5 when the launch it
  // released is what follows it on the path), and returns the next launch to follow,
  // or -1 at the start of the run.
  int64_t step(uint32_t i, bool& at_t6) {
    const LaunchRow& row = m_rows[i];
    if (at_t6)
      take(TimeCategory::Idle, row.at[Stamp::Learnt], -1); // the host after it learnt of completion
    take(TimeCategory::Complete, row.at[Stamp::Finished], i);
    take(TimeCategory::Execute, row.at[Stamp::Resident], i);
    take(TimeCategory::Iload, row.at[Stamp::Assigned], i);
    const int64_t before = row_of(row.released_by, i);
    if (before >= 0) {
      // Released on the device: dispatched after the release, which came at the end
      // of `before` or of the copies and event commands that followed it.
      take(TimeCategory::Schedule, std::max(row.released_ps, row.at[Stamp::Submitted]), i);
      take(TimeCategory::Idle, m_rows[static_cast<size_t>(before)].at[Stamp::Finished], -1, false);
      at_t6 = false;
      return before;
    }
    take(TimeCategory::Schedule, row.at[Stamp::Submitted], i);
    take(TimeCategory::Launch, row.at[Stamp::Called], i);
    return host_before(i, at_t6);
  }

  // What the host did before it entered launch `i`'s call: it woke from a wait for the
  // launch it recorded, or it came from its previous launch call.
  int64_t host_before(uint32_t i, bool& at_t6) {
    for (;;) {
      const int64_t woken_by = row_of(m_rows[i].host_after, i);
      if (woken_by >= 0) {
        at_t6 = true;
        return woken_by;
      }
      // The previous launch call (a command list's launches share one call).
      int64_t q = static_cast<int64_t>(i) - 1;
      while (q >= 0 &&
             m_rows[static_cast<size_t>(q)].at[Stamp::Called] >= m_rows[i].at[Stamp::Called])
        --q;
      if (q < 0)
        return -1;
      const LaunchRow& prev = m_rows[static_cast<size_t>(q)];
      take(TimeCategory::Idle, std::min(prev.at[Stamp::Submitted], m_cursor), -1);
      take(TimeCategory::Launch, prev.at[Stamp::Called], q);
      i = static_cast<uint32_t>(q);
    }
  }

  const LaunchTable& m_table;
  const std::vector<LaunchRow>& m_rows;
  uint64_t m_cursor;
  TimeBreakdown m_parts{};
  uint64_t m_host_gaps = 0;
  std::vector<bool> m_on_path;
  std::vector<uint64_t> m_kernel_ps;
  std::vector<uint64_t> m_kernel_launches;
};

} // namespace

CriticalPath critical_path(const LaunchTable& table, uint64_t end_ps) {
  return PathWalk(table, end_ps).run();
}

} // namespace npu
