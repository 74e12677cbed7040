#include "report/report.h"
#include "report/report_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace npu {

namespace {

using report_detail::ps_to_ns;

constexpr size_t k_width = 80; // columns of every summary line

/// A display unit for durations: nanoseconds are divided by `ns_per_unit`.
struct TimeScale {
  double ns_per_unit;
  const char* name;
};

// The largest unit in which `max_ns` still shows at least 4 integer digits, so that
// 3 decimals keep nanosecond resolution for short phases.
TimeScale scale_for(double max_ns) {
  if (max_ns < 1e4)
    return {1, "ns"};
  if (max_ns < 1e7)
    return {1e3, "us"};
  if (max_ns < 1e10)
    return {1e6, "ms"};
  return {1e9, "s"};
}

std::string format_time(double ns, const TimeScale& scale) {
  return fmt::format("{:.3f} {}", ns / scale.ns_per_unit, scale.name);
}

// Cuts `text` to `width` bytes with a "..." marker, at a UTF-8 character boundary.
std::string elide(const std::string& text, size_t width) {
  if (text.size() <= width)
    return text;
  size_t cut = width > 3 ? width - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut) + "...";
}

double percent_of(uint64_t part_ps, uint64_t whole_ps) {
  return whole_ps == 0 ? 0.0 : 100.0 * static_cast<double>(part_ps) / static_cast<double>(whole_ps);
}

std::string format_stat(const Stat& stat) {
  std::string text = stat.name + " = ";
  if (const auto integer = report_detail::exact_integer(stat.value))
    text += std::to_string(*integer);
  else
    text += fmt::format("{:.6g}", stat.value);
  // A bare number already reads as a count.
  if (!stat.unit.empty() && stat.unit != "count")
    text += " " + stat.unit;
  return text;
}

// Greedy word wrap of `items` joined by ", " into lines of at most k_width columns,
// each starting with `indent`; an item too long for a line of its own is split.
void print_wrapped(std::ostream& out, const std::vector<std::string>& items,
                   const std::string& indent) {
  const size_t room = k_width - indent.size();
  std::string line;
  auto flush = [&] {
    if (!line.empty())
      out << indent << line << '\n';
    line.clear();
  };
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
    if (!line.empty() && line.size() + 1 + item.size() <= room) {
      line += " " + item;
      continue;
    }
    flush();
    for (size_t pos = 0; pos < item.size(); pos += room) {
      flush();
      line = item.substr(pos, room);
    }
  }
  flush();
}

void print_kernel(std::ostream& out, const report_detail::KernelLaunches& group) {
  std::vector<Distribution> rows;
  std::vector<uint64_t> values_ps(group.launches.size());
  for (const auto& phase : report_detail::k_summary_phases) {
    std::transform(group.launches.begin(), group.launches.end(), values_ps.begin(),
                   [&](const LaunchRecord* r) { return phase.duration_ps(*r); });
    rows.push_back(summarize(values_ps));
  }
  double max_ns = 0;
  for (const auto& row : rows)
    max_ns = std::max(max_ns, row.max_ns);
  const TimeScale scale = scale_for(max_ns);

  const std::string title = fmt::format(": {} launch{}, times in {}", group.launches.size(),
                                        group.launches.size() == 1 ? "" : "es", scale.name);
  out << "kernel " << elide(group.kernel, k_width - 7 - title.size()) << title << '\n';
  out << fmt::format("  {:<10}{:>13}{:>13}{:>13}{:>13}\n", "phase", "mean", "p50", "p99", "max");
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& d = rows[i];
    const double k = scale.ns_per_unit;
    out << fmt::format("  {:<10}{:>13.3f}{:>13.3f}{:>13.3f}{:>13.3f}\n",
                       report_detail::k_summary_phases[i].name, d.mean_ns / k, d.p50_ns / k,
                       d.p99_ns / k, d.max_ns / k);
  }
}

void print_host(std::ostream& out, const RunReport& report) {
  const HostTime& host = report.host;
  const uint64_t max_ps =
      std::max({report.simulated_ps, host.busy_ps, host.blocked_ps, host.idle_ps});
  const TimeScale scale = scale_for(ps_to_ns(max_ps));
  out << "host time (share of simulated time)\n";
  const std::pair<const char*, uint64_t> rows[] = {
      {"busy", host.busy_ps}, {"blocked", host.blocked_ps}, {"idle", host.idle_ps}};
  for (const auto& [name, ps] : rows)
    out << fmt::format("  {:<10}{:>20}  {:>6.1f}%\n", name, format_time(ps_to_ns(ps), scale),
                       percent_of(ps, report.simulated_ps));
  if (report.leaks.buffers > 0)
    out << fmt::format("  leaked: {} buffer{} ({} bytes) not freed\n", report.leaks.buffers,
                       report.leaks.buffers == 1 ? "" : "s", report.leaks.bytes);
}

void print_events(std::ostream& out, const std::vector<EventMeasurement>& events) {
  if (events.empty())
    return;
  out << "\nevents measured by the host program\n";
  for (const EventMeasurement& m : events) {
    const std::string what =
        m.is_query() ? "query " + m.start : "elapsed " + m.start + " -> " + m.end;
    const std::string value =
        m.is_query() ? (m.elapsed_ps ? "complete" : "not complete")
                     : fmt::format("{:.3f} us", static_cast<double>(m.elapsed_ps) / 1e6);
    out << fmt::format("  {:<20} {:<38} {:>16}\n", elide(m.label, 20), elide(what, 38), value);
  }
}

void print_blocks(std::ostream& out, const std::vector<StatGroup>& blocks) {
  if (blocks.empty())
    return;
  out << "\nstatistics\n";
  for (const auto& group : blocks) {
    out << "  " << elide(group.block, k_width - 2) << '\n';
    std::vector<std::string> items;
    items.reserve(group.stats.size());
    for (const auto& stat : group.stats)
      items.push_back(format_stat(stat));
    print_wrapped(out, items, "    ");
  }
}

} // namespace

void print_summary(std::ostream& out, const RunReport& report) {
  const double simulated_ns = ps_to_ns(report.simulated_ps);
  out << "npusim summary\n";
  out << "  config     " << elide(report.config_name, k_width - 13) << '\n';
  out << "  testbench  " << elide(report.testbench_name, k_width - 13) << '\n';
  out << "  simulated  " << format_time(simulated_ns, scale_for(simulated_ns)) << '\n';
  out << "  launches   " << report.launches.size() << '\n';

  for (const auto& group : report_detail::group_by_kernel(report.launches)) {
    out << '\n';
    print_kernel(out, group);
  }
  out << '\n';
  print_host(out, report);
  print_events(out, report.events);
  print_blocks(out, report.blocks);
  // The only line that differs between identical runs, so it comes last.
  out << fmt::format("\nwall time: {:.3f} s\n", report.wall_s);
}

} // namespace npu
