#pragma once
// Internal to npu_report: helpers shared by the JSON and text reports.

#include "common/escape.h"
#include "models/common/launch_record.h"
#include "report/analysis.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npu::report_detail {

/// `j[key]` as a number; 0 when it is missing or not a number.
inline double number(const nlohmann::ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

/// One reported phase of a launch: its name and how to read it, in picoseconds.
struct Phase {
  const char* name;
  uint64_t (*duration_ps)(const LaunchTimes&);
};

/// Every phase in the JSON report, in report order.
inline constexpr std::array<Phase, 10> k_json_phases{{
    {"prepare", [](const LaunchTimes& r) { return r.prepare_ps(); }},
    {"submit", [](const LaunchTimes& r) { return r.submit_ps(); }},
    {"schedule", [](const LaunchTimes& r) { return r.schedule_ps(); }},
    {"schedule_wait", [](const LaunchTimes& r) { return r.schedule_wait_ps(); }},
    {"schedule_dispatch", [](const LaunchTimes& r) { return r.schedule_dispatch_ps; }},
    {"iload", [](const LaunchTimes& r) { return r.iload_ps(); }},
    {"execute", [](const LaunchTimes& r) { return r.execute_ps(); }},
    {"execute_ifetch_stall", [](const LaunchTimes& r) { return r.ifetch_stall_ps; }},
    {"complete", [](const LaunchTimes& r) { return r.complete_ps(); }},
    {"total", [](const LaunchTimes& r) { return r.total_ps(); }},
}};

/// The phases of the text summary: the ones that add up to total, then total.
inline constexpr std::array<Phase, 7> k_summary_phases{{
    {"prepare", [](const LaunchTimes& r) { return r.prepare_ps(); }},
    {"submit", [](const LaunchTimes& r) { return r.submit_ps(); }},
    {"schedule", [](const LaunchTimes& r) { return r.schedule_ps(); }},
    {"iload", [](const LaunchTimes& r) { return r.iload_ps(); }},
    {"execute", [](const LaunchTimes& r) { return r.execute_ps(); }},
    {"complete", [](const LaunchTimes& r) { return r.complete_ps(); }},
    {"total", [](const LaunchTimes& r) { return r.total_ps(); }},
}};

/// Picoseconds as nanoseconds; the nearest double to the exact 3-decimal value, so
/// JSON prints it with at most 3 decimals.
inline double ps_to_ns(uint64_t ps) {
  return static_cast<double>(ps) / 1000.0;
}

/// A display unit for durations: nanoseconds are divided by `ns_per_unit`.
struct TimeScale {
  double ns_per_unit;
  const char* name;
};

/// The largest unit in which `max_ns` still shows at least 4 integer digits, so that
/// 3 decimals keep nanosecond resolution for short phases.
inline TimeScale scale_for(double max_ns) {
  if (max_ns < 1e4)
    return {1, "ns"};
  if (max_ns < 1e7)
    return {1e3, "us"};
  if (max_ns < 1e10)
    return {1e6, "ms"};
  return {1e9, "s"};
}

/// "12.345 us": `ns` in `scale` with 3 decimals.
inline std::string format_time(double ns, const TimeScale& scale) {
  return fmt::format("{:.3f} {}", ns / scale.ns_per_unit, scale.name);
}

/// `text` escaped (a name from an input: see escape()), cut to `width` bytes with a "..."
/// marker at a UTF-8 character boundary.
inline std::string elide(const std::string& name, size_t width) {
  const std::string text = escape(name);
  if (text.size() <= width)
    return text;
  size_t cut = width > 3 ? width - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut) + "...";
}

/// The launches of one kernel (indices into a LaunchTable's rows), in launch order.
struct KernelLaunches {
  uint32_t kernel = 0; ///< index into LaunchTable::kernels()
  std::vector<uint32_t> launches;
};

/// Launches grouped by kernel; kernels in order of their first launch.
std::vector<KernelLaunches> group_by_kernel(const LaunchTable& table);

/// A CSV field, quoted per RFC 4180 when it holds a separator, a quote or a line break.
std::string csv_field(const std::string& field);

/// The value as an integer when it is one and a double holds it exactly (|v| < 2^53),
/// so that counters print as "256" rather than "256.0".
std::optional<int64_t> exact_integer(double value);

} // namespace npu::report_detail
