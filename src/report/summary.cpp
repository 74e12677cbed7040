#include "report/energy_report.h"
#include "report/report.h"
#include "report/report_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ostream>
#include <stdexcept>
#include <utility>

namespace npu {

namespace {

using report_detail::elide;
using report_detail::format_time;
using report_detail::number;
using report_detail::ps_to_ns;
using report_detail::scale_for;
using report_detail::TimeScale;

constexpr size_t k_width = 80; // columns of every summary line

double percent_of(uint64_t part_ps, uint64_t whole_ps) {
  return whole_ps == 0 ? 0.0 : 100.0 * static_cast<double>(part_ps) / static_cast<double>(whole_ps);
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

using Json = nlohmann::ordered_json;

// Nanoseconds of the report back to the picoseconds they were made from.
uint64_t ps_of(double ns) {
  return ns > 0 ? static_cast<uint64_t>(std::llround(ns * 1000.0)) : 0;
}

uint64_t ps_at(const Json& j, const char* key) {
  return ps_of(number(j, key));
}

// The planner's tiling of each op and the launch's roofline bound (run --tiling).
void print_tiling(std::ostream& out, const Json& kernel) {
  for (const Json& t : json_member(kernel, "tiling")) {
    out << fmt::format("  {} on {} unit{}: {}\n", elide(t.value("op", std::string()), 20),
                       t.value("units", uint64_t{1}), t.value("units", uint64_t{1}) == 1 ? "" : "s",
                       elide(t.value("shape", std::string()), k_width - 30));
    out << fmt::format("    {} tiles, {} folds, {} array cycles, {} vector cycles\n",
                       t.value("tiles", uint64_t{0}), t.value("folds", uint64_t{0}),
                       t.value("array_cycles", uint64_t{0}), t.value("vector_cycles", uint64_t{0}));
    std::vector<std::string> items;
    const Json& operands = json_member(t, "operands");
    for (size_t i = 0; i < operands.size(); ++i) {
      const double bytes = number(operands[i], "bytes");
      const double loaded = number(operands[i], "loaded_bytes");
      items.push_back(fmt::format("in{} {:.3f} MB read {:.2f}x", i, loaded / 1e6,
                                  bytes > 0 ? loaded / bytes : 0.0));
    }
    items.push_back(fmt::format("out {:.3f} MB", number(t, "stored_bytes") / 1e6));
    print_wrapped(out, items, "    ");
    out << fmt::format("    bound {:.3f} us: compute {:.3f} us, memory {:.3f} us\n",
                       number(t, "bound_ns") / 1e3, number(t, "compute_bound_ns") / 1e3,
                       number(t, "memory_bound_ns") / 1e3);
  }
  const Json& roofline = json_member(kernel, "roofline");
  out << fmt::format("  execute {:.3f} us = {:.2f}x the roofline bound ({:.3f} us)\n",
                     number(roofline, "execute_ns") / 1e3, number(roofline, "execute_over_bound"),
                     number(roofline, "bound_ns") / 1e3);
}

void print_kernel(std::ostream& out, const std::string& name, const Json& kernel) {
  double max_ns = 0;
  for (const auto& phase : report_detail::k_summary_phases)
    max_ns = std::max(max_ns, number(json_member(kernel, phase.name), "max_ns"));
  const TimeScale scale = scale_for(max_ns);

  const auto launches = kernel.value("launches", uint64_t{0});
  const std::string title =
      fmt::format(": {} launch{}, times in {}", launches, launches == 1 ? "" : "es", scale.name);
  out << "kernel " << elide(name, k_width - 7 - title.size()) << title << '\n';
  out << fmt::format("  {:<10}{:>13}{:>13}{:>13}{:>13}\n", "phase", "mean", "p50", "p99", "max");
  const double k = scale.ns_per_unit;
  for (const auto& phase : report_detail::k_summary_phases) {
    const Json& d = json_member(kernel, phase.name);
    out << fmt::format("  {:<10}{:>13.3f}{:>13.3f}{:>13.3f}{:>13.3f}\n", phase.name,
                       number(d, "mean_ns") / k, number(d, "p50_ns") / k, number(d, "p99_ns") / k,
                       number(d, "max_ns") / k);
  }
}

void print_host(std::ostream& out, const Json& host, uint64_t simulated_ps) {
  const uint64_t busy_ps = ps_at(host, "busy_ns");
  const uint64_t blocked_ps = ps_at(host, "blocked_ns");
  const uint64_t idle_ps = ps_at(host, "idle_ns");
  const uint64_t max_ps = std::max({simulated_ps, busy_ps, blocked_ps, idle_ps});
  const TimeScale scale = scale_for(ps_to_ns(max_ps));
  out << "host time (share of simulated time)\n";
  const std::pair<const char*, uint64_t> rows[] = {
      {"busy", busy_ps}, {"blocked", blocked_ps}, {"idle", idle_ps}};
  for (const auto& [name, ps] : rows)
    out << fmt::format("  {:<10}{:>20}  {:>6.1f}%\n", name, format_time(ps_to_ns(ps), scale),
                       percent_of(ps, simulated_ps));
  const auto leaked = host.value("leaked_buffers", uint64_t{0});
  if (leaked > 0)
    out << fmt::format("  leaked: {} buffer{} ({} bytes) not freed\n", leaked,
                       leaked == 1 ? "" : "s", host.value("leaked_bytes", uint64_t{0}));
}

// The rows of the breakdown and critical path tables: report key, label.
constexpr std::array<std::pair<const char*, const char*>, 6> k_time_rows{{
    {"execute_ns", "execute"},
    {"iload_ns", "iload"},
    {"schedule_ns", "schedule"},
    {"complete_ns", "complete"},
    {"host_launch_ns", "host launch"},
    {"device_idle_ns", "device idle"},
}};

void print_time_went(std::ostream& out, const Json& report, uint64_t simulated_ps) {
  if (!report.contains("breakdown"))
    return;
  const Json& run = report["breakdown"];
  const Json& path = json_member(report, "critical_path");
  const TimeScale scale = scale_for(ps_to_ns(simulated_ps));
  out << fmt::format("\nwhere the time went, in {}\n", scale.name);
  out << fmt::format("  {:<14}{:>16}{:>8}{:>18}{:>8}\n", "", "whole run", "share", "critical path",
                     "share");
  const auto row = [&](const char* label, uint64_t run_ps, uint64_t path_ps) {
    out << fmt::format("  {:<14}{:>16.3f}{:>7.1f}%{:>18.3f}{:>7.1f}%\n", label,
                       ps_to_ns(run_ps) / scale.ns_per_unit, percent_of(run_ps, simulated_ps),
                       ps_to_ns(path_ps) / scale.ns_per_unit, percent_of(path_ps, simulated_ps));
  };
  for (const auto& [key, label] : k_time_rows)
    row(label, ps_at(run, key), ps_at(path, key));
  row("total", ps_at(run, "total_ns"), ps_at(path, "total_ns"));
  if (path.empty())
    return;
  const auto launches = path.value("launches", uint64_t{0});
  const auto gaps = path.value("host_gaps", uint64_t{0});
  out << fmt::format("  critical path: {} launch{}, {} host interval{}\n", launches,
                     launches == 1 ? "" : "es", gaps, gaps == 1 ? "" : "s");
  constexpr size_t k_top = 5;
  const Json& kernels = json_member(path, "kernels");
  for (size_t i = 0; i < std::min(kernels.size(), k_top); ++i) {
    const Json& k = kernels[i];
    const auto n = k.value("launches", uint64_t{0});
    const uint64_t ps = ps_at(k, "ns");
    const std::string count = fmt::format("{} launch{}", n, n == 1 ? "" : "es");
    out << fmt::format("    {:<32} {:>14}{:>18.3f}{:>7.1f}%\n",
                       elide(k.value("kernel", std::string()), 32), count,
                       ps_to_ns(ps) / scale.ns_per_unit, percent_of(ps, simulated_ps));
  }
  if (kernels.size() > k_top)
    out << fmt::format("    ... and {} more kernel{}\n", kernels.size() - k_top,
                       kernels.size() - k_top == 1 ? "" : "s");
}

// "hit rate 94.1%", "achieved 10.40 GB/s", "fetch stall 1.234 us", "mean depth 0.52".
std::string utilisation_item(const std::string& key, double value) {
  const auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return key.size() > s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
  };
  std::string label = key;
  std::string text;
  if (ends("_gbps")) {
    label = key.substr(0, key.size() - 5);
    text = fmt::format("{:.2f} GB/s", value);
  } else if (ends("_ns")) {
    label = key.substr(0, key.size() - 3);
    text = format_time(value, scale_for(value));
  } else if (ends("_depth")) {
    text = fmt::format("{:.2f}", value);
  } else {
    text = fmt::format("{:.1f}%", 100.0 * value);
  }
  std::replace(label.begin(), label.end(), '_', ' ');
  return escape(label) + " " + text;
}

void print_utilisation(std::ostream& out, const Json& report) {
  const Json& blocks = json_member(report, "utilisation");
  if (blocks.empty())
    return;
  out << "\nutilisation (share of simulated time)\n";
  constexpr size_t k_name = 18;
  const std::string indent(2 + k_name, ' ');
  for (const auto& [block, values] : blocks.items()) {
    std::string line = "  " + fmt::format("{:<{}}", elide(block, k_name - 1), k_name);
    bool first = true;
    size_t i = 0;
    for (const auto& [key, value] : values.items()) {
      const std::string item = utilisation_item(key, value.is_number() ? value.get<double>() : 0) +
                               (++i < values.size() ? "," : "");
      if (!first && line.size() + 1 + item.size() > k_width) {
        out << line << '\n';
        line = indent;
        first = true;
      }
      line += (first ? "" : " ") + item;
      first = false;
    }
    out << line << '\n';
  }
}

void print_events(std::ostream& out, const Json& events) {
  if (events.empty())
    return;
  out << "\nevents measured by the host program\n";
  for (const Json& m : events) {
    const bool query = m.contains("event");
    const std::string label = m.value("label", std::string());
    const std::string what = query ? "query " + m.value("event", std::string())
                                   : "elapsed " + m.value("start", std::string()) + " -> " +
                                         m.value("end", std::string());
    const std::string value =
        query ? (m.value("complete", false) ? "complete" : "not complete")
              : fmt::format("{:.3f} us", std::round(number(m, "elapsed_ns") * 1000.0) / 1e6);
    out << fmt::format("  {:<20} {:<38} {:>16}\n", elide(label, 20), elide(what, 38), value);
  }
}

std::string format_stat(const std::string& name, const Json& value, const std::string& unit) {
  std::string text = escape(name) + " = ";
  if (value.is_number_integer())
    text += value.dump();
  else if (value.is_number())
    text += fmt::format("{:.6g}", value.get<double>());
  else
    text += "nan";
  // A bare number already reads as a count.
  if (!unit.empty() && unit != "count")
    text += " " + escape(unit);
  return text;
}

void print_blocks(std::ostream& out, const Json& report) {
  const Json& blocks = json_member(report, "blocks");
  if (blocks.empty())
    return;
  const Json& units = json_member(report, "stat_units");
  out << "\nstatistics\n";
  for (const auto& [block, stats] : blocks.items()) {
    out << "  " << elide(block, k_width - 2) << '\n';
    std::vector<std::string> items;
    items.reserve(stats.size());
    for (const auto& [name, value] : stats.items()) {
      const Json& unit = json_member(units, block + "." + name);
      items.push_back(format_stat(name, value, unit.value("unit", std::string())));
    }
    print_wrapped(out, items, "    ");
  }
}

// "1GHz: dma, sram, icache, scheduler, compute; ddr 3.2GT/s": the blocks of the effective
// config that have a `frequency`, grouped by it in config order, then the DDR's data rate.
// Empty for a report without a config.
std::string clocks_line(const Json& config) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& [block, keys] : config.items()) {
    if (!keys.is_object() || !keys.contains("frequency") || !keys["frequency"].is_string())
      continue;
    const std::string hz = keys["frequency"].get<std::string>();
    auto group =
        std::find_if(groups.begin(), groups.end(), [&hz](const auto& g) { return g.first == hz; });
    if (group == groups.end())
      group = groups.insert(groups.end(), {hz, {}});
    group->second.push_back(block);
  }
  std::string line;
  for (const auto& [hz, blocks] : groups) {
    line += (line.empty() ? "" : "; ") + hz + ":";
    for (size_t i = 0; i < blocks.size(); ++i)
      line += (i ? ", " : " ") + blocks[i];
  }
  const Json& ddr = json_member(config, "ddr");
  if (ddr.contains("data_rate") && ddr["data_rate"].is_string())
    line += (line.empty() ? "ddr " : "; ddr ") + ddr["data_rate"].get<std::string>();
  return line;
}

// Each kernel's table of phases (--detail), its tiling (--tiling), or both.
void print_kernels(std::ostream& out, const Json& report, const SummaryOptions& options) {
  if (!options.detail && !options.tiling)
    return;
  for (const auto& [name, kernel] : json_member(report, "kernels").items()) {
    const bool tiling = options.tiling && kernel.contains("tiling");
    if (!options.detail && !tiling)
      continue;
    out << '\n';
    if (options.detail)
      print_kernel(out, name, kernel);
    else
      out << "kernel " << elide(name, k_width - 7) << '\n';
    if (tiling)
      print_tiling(out, kernel);
  }
}

// The fidelity the run was simulated at, in words.
std::string fidelity_line(const Json& report) {
  const std::string fidelity = report_fidelity(report);
  if (fidelity == "cycle")
    return "cycle (cycle-approximate DRAM, the reference)";
  if (fidelity == "transaction")
    return "transaction (closed-form DRAM; docs/validation.md gives its error)";
  return fidelity;
}

void print_text(std::ostream& out, const Json& report, const SummaryOptions& options) {
  const Json& sim = json_member(report, "sim");
  const uint64_t simulated_ps = ps_at(sim, "simulated_ns");
  const double simulated_ns = ps_to_ns(simulated_ps);
  out << "npusim summary\n";
  out << "  config     " << elide(report.value("config_name", std::string()), k_width - 13) << '\n';
  if (const std::string clocks = clocks_line(json_member(report, "config")); !clocks.empty())
    out << "  clocks     " << elide(clocks, k_width - 13) << '\n';
  out << "  testbench  " << elide(report.value("testbench_name", std::string()), k_width - 13)
      << '\n';
  out << "  fidelity   " << fidelity_line(report) << '\n';
  out << "  simulated  " << format_time(simulated_ns, scale_for(simulated_ns)) << '\n';
  out << "  launches   " << sim.value("launches", uint64_t{0}) << '\n';

  print_layers(out, report, options.layers);
  print_kernels(out, report, options);
  out << '\n';
  print_host(out, json_member(report, "host"), simulated_ps);
  print_time_went(out, report, simulated_ps);
  print_utilisation(out, report);
  print_events(out, json_member(report, "events"));
  print_blocks(out, report);
  print_energy(out, report);
  // The only line that differs between identical runs, so it comes last.
  out << fmt::format("\nwall time: {:.3f} s\n", number(sim, "wall_s"));
}

std::string csv_value(const Json& value) {
  if (value.is_string())
    return report_detail::csv_field(value.get<std::string>());
  if (value.is_null())
    return "";
  return value.dump();
}

// One row per figure: section,name,metric,value,unit.
void print_csv(std::ostream& out, const Json& report) {
  out << "section,name,metric,value,unit\n";
  const auto row = [&](const std::string& section, const std::string& name,
                       const std::string& metric, const Json& value, const std::string& unit) {
    out << report_detail::csv_field(section) << ',' << report_detail::csv_field(name) << ','
        << report_detail::csv_field(metric) << ',' << csv_value(value) << ','
        << report_detail::csv_field(unit) << '\n';
  };
  const Json& sim = json_member(report, "sim");
  row("run", "", "config", report.value("config_name", std::string()), "");
  row("run", "", "testbench", report.value("testbench_name", std::string()), "");
  row("run", "", "fidelity", report_fidelity(report), "");
  row("run", "", "simulated", sim.value("simulated_ns", Json(0)), "ns");
  row("run", "", "launches", sim.value("launches", Json(0)), "count");
  for (const auto& [name, kernel] : json_member(report, "kernels").items()) {
    row("kernel", name, "launches", kernel.value("launches", Json(0)), "count");
    for (const auto& phase : report_detail::k_json_phases)
      for (const auto& [metric, value] : json_member(kernel, phase.name).items())
        row("kernel", name, std::string(phase.name) + "." + metric.substr(0, metric.size() - 3),
            value, "ns");
  }
  for (const auto& [key, value] : json_member(report, "host").items()) {
    const bool ns = key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0;
    row("host", "", ns ? key.substr(0, key.size() - 3) : key, value, ns ? "ns" : "count");
  }
  for (const char* section : {"breakdown", "critical_path"})
    for (const auto& [key, value] : json_member(report, section).items()) {
      if (key == "kernels") {
        for (const Json& k : value) {
          row(section, k.value("kernel", std::string()), "launches", k.value("launches", Json(0)),
              "count");
          row(section, k.value("kernel", std::string()), "time", k.value("ns", Json(0)), "ns");
        }
        continue;
      }
      const bool ns = key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0;
      row(section, "", ns ? key.substr(0, key.size() - 3) : key, value, ns ? "ns" : "count");
    }
  for (const auto& [block, values] : json_member(report, "utilisation").items())
    for (const auto& [key, value] : values.items()) {
      std::string unit = "ratio";
      std::string metric = key;
      if (key.size() > 5 && key.compare(key.size() - 5, 5, "_gbps") == 0) {
        unit = "GB/s";
        metric = key.substr(0, key.size() - 5);
      } else if (key.size() > 3 && key.compare(key.size() - 3, 3, "_ns") == 0) {
        unit = "ns";
        metric = key.substr(0, key.size() - 3);
      } else if (key.size() > 6 && key.compare(key.size() - 6, 6, "_depth") == 0) {
        unit = "count";
      }
      row("utilisation", block, metric, value, unit);
    }
  size_t index = 0;
  for (const Json& m : json_member(report, "events")) {
    const std::string name = m.value("label", std::string("event " + std::to_string(index++)));
    if (m.contains("event"))
      row("event", name, "complete", m.value("complete", false) ? 1 : 0, "bool");
    else
      row("event", name, "elapsed", m.value("elapsed_ns", Json(0)), "ns");
  }
  const Json& units = json_member(report, "stat_units");
  for (const auto& [block, stats] : json_member(report, "blocks").items())
    for (const auto& [name, value] : stats.items())
      row("stat", block, name, value,
          json_member(units, block + "." + name).value("unit", std::string()));
  energy_csv_rows(report, row);
  row("run", "", "wall_time", sim.value("wall_s", Json(0)), "s");
}

} // namespace

const nlohmann::ordered_json& json_member(const nlohmann::ordered_json& j, const std::string& key) {
  static const nlohmann::ordered_json empty = nlohmann::ordered_json::object();
  if (!j.is_object())
    return empty;
  const auto it = j.find(key);
  return it != j.end() ? *it : empty;
}

SummaryFormat parse_summary_format(const std::string& name) {
  if (name == "json")
    return SummaryFormat::Json;
  if (name == "csv")
    return SummaryFormat::Csv;
  if (name == "text")
    return SummaryFormat::Text;
  throw std::invalid_argument("unknown summary format '" + name + "'; expected text, json or csv");
}

void print_summary(std::ostream& out, const nlohmann::ordered_json& report, SummaryFormat format,
                   const SummaryOptions& options) {
  switch (format) {
  case SummaryFormat::Text:
    print_text(out, report, options);
    return;
  case SummaryFormat::Json:
    out << dump_report(report);
    return;
  case SummaryFormat::Csv:
    print_csv(out, report);
    return;
  }
}

void print_summary(std::ostream& out, const RunReport& report) {
  print_summary(out, to_json(report), SummaryFormat::Text);
}

} // namespace npu
