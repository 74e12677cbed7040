#include "report/analysis.h"

#include <algorithm>
#include <array>
#include <cstdint>

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

namespace {

// The launches in each category during time_shares()'s sweep: a flag per launch and
// category, the number in each category and, per category, how many of them run each
// kernel, so that a category whose launches all run one kernel takes its time in O(1).
class CategoryMembers {
public:
  CategoryMembers(const std::vector<LaunchRow>& rows, size_t kernels)
      : m_rows(rows), m_in(rows.size(), 0), m_per_kernel(k_time_categories * kernels, 0),
        m_kernels(kernels) {}

  void insert(uint8_t category, uint32_t row) {
    const auto bit = static_cast<uint8_t>(1U << category);
    if (m_in[row] & bit)
      return;
    m_in[row] |= bit;
    Category& c = m_category[category];
    c.first = c.size == 0 ? row : std::min(c.first, row);
    ++c.size;
    if (m_per_kernel[category * m_kernels + m_rows[row].kernel]++ == 0 && ++c.distinct == 1)
      c.kernel = m_rows[row].kernel;
  }

  void erase(uint8_t category, uint32_t row) {
    const auto bit = static_cast<uint8_t>(1U << category);
    if (!(m_in[row] & bit))
      return;
    m_in[row] &= static_cast<uint8_t>(~bit);
    Category& c = m_category[category];
    --c.size;
    if (--m_per_kernel[category * m_kernels + m_rows[row].kernel] == 0 && --c.distinct == 1)
      c.kernel = k_unknown;
  }

  // Shares `ps` equally among the launches of the first non-empty category (whole
  // picoseconds, the remainder to the earliest launches).
  void share(uint64_t ps, std::vector<uint64_t>& kernel_ps) {
    const auto top = std::find_if(m_category.begin(), m_category.end(),
                                  [](const Category& c) { return c.size > 0; });
    if (top == m_category.end())
      return;
    const auto bit = static_cast<uint8_t>(1U << (top - m_category.begin()));
    if (top->distinct == 1 && top->kernel == k_unknown) {
      while (!(m_in[top->first] & bit))
        ++top->first;
      top->kernel = m_rows[top->first].kernel;
    }
    if (top->distinct == 1) {
      kernel_ps[top->kernel] += ps;
      return;
    }
    while (!(m_in[top->first] & bit))
      ++top->first;
    const uint64_t n = top->size;
    const uint64_t each = ps / n;
    uint64_t extra = ps % n;
    uint64_t left = n;
    for (uint32_t i = top->first; left > 0; ++i) {
      if (!(m_in[i] & bit))
        continue;
      kernel_ps[m_rows[i].kernel] += each + (extra > 0 ? 1 : 0);
      extra -= extra > 0 ? 1 : 0;
      --left;
    }
  }

private:
  static constexpr uint32_t k_unknown = UINT32_MAX;
  struct Category {
    uint64_t size = 0;
    uint64_t distinct = 0; ///< kernels with a launch in it
    uint32_t kernel = 0;   ///< the only one when distinct is 1 (or k_unknown)
    uint32_t first = 0;    ///< no launch below it is in the category
  };
  const std::vector<LaunchRow>& m_rows;
  std::vector<uint8_t> m_in; ///< per launch, a bit per category it is in
  std::vector<uint32_t> m_per_kernel;
  size_t m_kernels;
  std::array<Category, k_time_categories> m_category{};
};

// One end of a launch interval, as the sweep orders them: by time, then ends before
// starts, then category, then launch. `key` holds (start, category, launch, next):
// next is the launch's following boundary (2k for the start of interval k, 2k + 1 for
// its end), or k_no_next when every boundary of the launch went in at once.
struct Boundary {
  uint64_t time;
  uint64_t key;

  bool operator<(const Boundary& o) const { return time != o.time ? time < o.time : key < o.key; }
  bool start() const { return (key >> 47) & 1; }
  uint8_t category() const { return static_cast<uint8_t>((key >> 40) & 0x7f); }
  uint32_t row() const { return static_cast<uint32_t>(key >> 8); }
  uint8_t next() const { return static_cast<uint8_t>(key); }
};
constexpr uint8_t k_no_next = 0xff;

Boundary make_boundary(const LaunchRow& row, uint32_t i, size_t end_of_interval, size_t k,
                       uint8_t next) {
  const uint64_t start = end_of_interval == 0 ? 1 : 0;
  const auto category = static_cast<uint64_t>(k_interval_category[k]);
  return {row.at.nth(k + end_of_interval),
          start << 47 | category << 40 | static_cast<uint64_t>(i) << 8 | next};
}

// The boundaries of the launches in flight, least first. A launch whose stamps never
// decrease has its boundaries in order, so only its next one waits here; the others
// put all theirs in at once.
class Boundaries {
public:
  explicit Boundaries(const std::vector<LaunchRow>& rows) : m_rows(rows) {}

  bool empty() const { return m_heap.empty(); }
  const Boundary& top() const { return m_heap.front(); }

  void add(uint32_t i) {
    const LaunchRow& row = m_rows[i];
    bool ordered = true;
    for (size_t k = 0; k + 1 < row.at.size(); ++k)
      ordered = ordered && row.at.nth(k + 1) >= row.at.nth(k);
    if (ordered) {
      const uint8_t first = following(row, 0);
      if (first != k_no_next)
        push(boundary(i, first));
      return;
    }
    for (size_t k = 0; k + 1 < row.at.size(); ++k) {
      if (row.at.nth(k + 1) <= row.at.nth(k))
        continue;
      push(make_boundary(row, i, 0, k, k_no_next));
      push(make_boundary(row, i, 1, k, k_no_next));
    }
  }

  // Removes the least boundary, putting in its launch's next one.
  void pop() {
    const Boundary b = m_heap.front();
    const uint8_t next =
        b.next() == k_no_next ? k_no_next : following(m_rows[b.row()], b.next() + 1);
    if (next == k_no_next) {
      m_heap.front() = m_heap.back();
      m_heap.pop_back();
    } else {
      m_heap.front() = boundary(b.row(), next);
    }
    if (!m_heap.empty())
      sift_down();
  }

private:
  // The first boundary at or after position j of an ordered launch's (2k start, 2k + 1
  // end of interval k; empty intervals have neither).
  static uint8_t following(const LaunchRow& row, size_t j) {
    if (j % 2 == 1)
      return static_cast<uint8_t>(j);
    for (size_t k = j / 2; k + 1 < row.at.size(); ++k)
      if (row.at.nth(k + 1) > row.at.nth(k))
        return static_cast<uint8_t>(2 * k);
    return k_no_next;
  }

  Boundary boundary(uint32_t i, uint8_t j) const {
    return make_boundary(m_rows[i], i, j % 2, j / 2, j);
  }

  void push(const Boundary& b) {
    size_t at = m_heap.size();
    m_heap.push_back(b);
    while (at > 0) {
      const size_t parent = (at - 1) / 2;
      if (!(b < m_heap[parent]))
        break;
      m_heap[at] = m_heap[parent];
      at = parent;
    }
    m_heap[at] = b;
  }

  void sift_down() {
    const Boundary b = m_heap.front();
    const size_t n = m_heap.size();
    size_t at = 0;
    for (;;) {
      size_t child = 2 * at + 1;
      if (child >= n)
        break;
      if (child + 1 < n && m_heap[child + 1] < m_heap[child])
        ++child;
      if (!(m_heap[child] < b))
        break;
      m_heap[at] = m_heap[child];
      at = child;
    }
    m_heap[at] = b;
  }

  const std::vector<LaunchRow>& m_rows;
  std::vector<Boundary> m_heap;
};

} // namespace

TimeShares time_shares(const LaunchTable& table, uint64_t end_ps) {
  // A sweep over interval boundaries. Launches come in t0 order and all their
  // boundaries lie at or after t0, so only the boundaries of launches in flight wait:
  // memory stays bounded by the launches in flight.
  const std::vector<LaunchRow>& rows = table.rows();
  Boundaries pending(rows);
  std::array<uint64_t, k_time_categories> active{};
  CategoryMembers members(rows, table.kernels().size());
  TimeShares shares{{}, std::vector<uint64_t>(table.kernels().size(), 0)};
  uint64_t now = 0;
  const auto advance_to = [&](uint64_t t, bool kernels) {
    if (t <= now)
      return;
    size_t top = static_cast<size_t>(TimeCategory::Idle);
    for (size_t c = 0; c < k_time_categories; ++c)
      if (active[c] > 0) {
        top = c;
        break;
      }
    shares.parts[top] += t - now;
    if (kernels)
      members.share(t - now, shares.kernel_ps);
    now = t;
  };
  const auto drain_until = [&](uint64_t t) {
    while (!pending.empty() && pending.top().time <= t) {
      const Boundary b = pending.top();
      pending.pop();
      advance_to(std::min(b.time, end_ps), true);
      if (b.start()) {
        ++active[b.category()];
        members.insert(b.category(), b.row());
      } else {
        --active[b.category()];
        members.erase(b.category(), b.row());
      }
    }
  };
  for (uint32_t i = 0; i < rows.size(); ++i) {
    drain_until(rows[i].at[Stamp::Called]);
    pending.add(i);
  }
  drain_until(UINT64_MAX);
  advance_to(end_ps, false);
  return shares;
}

TimeBreakdown breakdown(const LaunchTable& table, uint64_t end_ps) {
  return time_shares(table, end_ps).parts;
}

std::vector<uint64_t> kernel_time(const LaunchTable& table, uint64_t end_ps) {
  return time_shares(table, end_ps).kernel_ps;
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
