#include "cli/report_commands.h"

#include "cli/app.h"
#include "common/error.h"
#include "common/escape.h"
#include "common/input_file.h"
#include "common/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

namespace npu {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* k_expected_dir = "expected the --out directory of an npusim run";

// The sections every report has, with the JSON type each must be.
struct Section {
  const char* key;
  bool (Json::*is)() const noexcept;
  const char* type;
};
constexpr std::array<Section, 5> k_sections{{
    {"sim", &Json::is_object, "an object"},
    {"kernels", &Json::is_object, "an object"},
    {"host", &Json::is_object, "an object"},
    {"blocks", &Json::is_object, "an object"},
    {"config_name", &Json::is_string, "a string"},
}};

double number(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// The six phases that add up to a launch's total.
constexpr std::array<const char*, 6> k_phases{"prepare", "submit",  "schedule",
                                              "iload",   "execute", "complete"};

// Time spent in `phase` by all launches of `kernel`, in ns (mean x launches).
double phase_total_ns(const Json& kernel, const char* phase) {
  return number(json_member(kernel, phase), "mean_ns") * number(kernel, "launches");
}

std::string percent_change(double a, double b) {
  if (a == b)
    return "0.0%";
  if (a == 0)
    return "new";
  return fmt::format("{:+.1f}%", 100.0 * (b - a) / std::fabs(a));
}

// Symmetric relative change in [0, 2], to rank changes of different magnitudes.
double relative_change(double a, double b) {
  const double scale = (std::fabs(a) + std::fabs(b)) / 2;
  return scale > 0 ? std::fabs(b - a) / scale : 0.0;
}

std::string number_text(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{:.6g}", v);
}

// A name or value of a report, escaped and cut to `width` bytes.
std::string elide(const std::string& name, size_t width) {
  const std::string text = escape(name);
  if (text.size() <= width)
    return text;
  size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut; // at a UTF-8 character boundary
  return text.substr(0, cut) + "...";
}

// Every leaf under `j` as (dotted path, value as written), in document order.
void flatten(const Json& j, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      flatten(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      flatten(j[i], fmt::format("{}[{}]", path, i), out);
  } else {
    out.emplace_back(path, j.is_string() ? j.get<std::string>() : j.dump());
  }
}

// The keys of the effective configs and testbenches whose values differ, A's order first.
struct InputDifference {
  std::string key, a, b;
};
std::vector<InputDifference> input_differences(const Json& a, const Json& b) {
  std::vector<std::pair<std::string, std::string>> leaves_a, leaves_b;
  for (const char* section : {"config", "testbench"}) {
    if (!a.contains(section) || !b.contains(section)) // a C++ program's has no testbench
      continue;
    flatten(a[section], section, leaves_a);
    flatten(b[section], section, leaves_b);
  }
  std::map<std::string, const std::string*> in_b;
  for (const auto& [key, value] : leaves_b)
    in_b.emplace(key, &value);
  std::vector<InputDifference> diffs;
  std::set<std::string> in_a;
  for (const auto& [key, value] : leaves_a) {
    in_a.insert(key);
    const auto it = in_b.find(key);
    if (it == in_b.end())
      diffs.push_back({key, value, "-"});
    else if (*it->second != value)
      diffs.push_back({key, value, *it->second});
  }
  for (const auto& [key, value] : leaves_b)
    if (!in_a.count(key))
      diffs.push_back({key, "-", value});
  return diffs;
}

void print_input_differences(std::ostream& out, const Json& a, const Json& b) {
  const std::vector<InputDifference> diffs = input_differences(a, b);
  if (diffs.empty())
    out << "\nconfig and testbench: the same in A and B\n";
  else
    out << fmt::format("\n{:<36}{:>22}{:>22}\n",
                       fmt::format("config and testbench ({} differ)", diffs.size()), "A", "B");
  constexpr size_t k_top = 20;
  for (size_t i = 0; i < std::min(diffs.size(), k_top); ++i)
    out << fmt::format("  {:<34}{:>22}{:>22}\n", elide(diffs[i].key, 34),
                       " " + elide(diffs[i].a, 21), " " + elide(diffs[i].b, 21));
  if (diffs.size() > k_top)
    out << fmt::format("  ... and {} more\n", diffs.size() - k_top);
  if (a.contains("testbench") != b.contains("testbench"))
    out << "  (only one report has its testbench: a C++ host program or an older report)\n";
}

// Prints the tables of `npusim diff` in one time unit (us or ms, by the longer run).
class DiffPrinter {
public:
  DiffPrinter(std::ostream& out, double sim_a_ns, double sim_b_ns)
      : m_out(out), m_scale_ns(std::max(sim_a_ns, sim_b_ns) < 1e7 ? 1e3 : 1e6),
        m_unit(m_scale_ns == 1e3 ? "us" : "ms") {}

  void header(const std::string& title) {
    m_out << fmt::format("\n{:<38}{:>14}{:>14}{:>12}\n", title, "A", "B", "change");
  }
  void row(const std::string& label, double va, double vb, const std::string& fmt_) {
    m_out << fmt::format("  {:<36}{:>14}{:>14}{:>12}\n", elide(label, 36),
                         fmt::format(fmt::runtime(fmt_), va), fmt::format(fmt::runtime(fmt_), vb),
                         percent_change(va, vb));
  }
  /// A row of times in nanoseconds, shown in the printer's unit.
  void time_row(const std::string& label, double a_ns, double b_ns) {
    row(label, a_ns / m_scale_ns, b_ns / m_scale_ns, "{:.3f}");
  }
  /// `title (unit)`.
  std::string in_unit(const std::string& title) const {
    return fmt::format("{} ({})", title, m_unit);
  }
  double scale_ns() const { return m_scale_ns; }
  const char* unit() const { return m_unit; }

private:
  std::ostream& m_out;
  double m_scale_ns;
  const char* m_unit;
};

// Each phase's time summed over all launches of all kernels, in nanoseconds.
using PhaseTotals = std::array<double, k_phases.size()>;
PhaseTotals phase_totals(const Json& kernels) {
  PhaseTotals totals{};
  for (size_t p = 0; p < k_phases.size(); ++p)
    for (const auto& [name, k] : kernels.items())
      totals[p] += phase_total_ns(k, k_phases[p]);
  return totals;
}

// Overall: each phase's time summed over all launches, the most changed first.
void print_phases(DiffPrinter& print, const PhaseTotals& total_a, const PhaseTotals& total_b) {
  print.header(print.in_unit("phases, all launches"));
  std::array<size_t, k_phases.size()> order{};
  for (size_t p = 0; p < k_phases.size(); ++p)
    order[p] = p;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return relative_change(total_a[x], total_b[x]) > relative_change(total_a[y], total_b[y]);
  });
  for (const size_t p : order)
    print.time_row(k_phases[p], total_a[p], total_b[p]);
}

// Per kernel: mean launch time and the phase that moved it most, the most changed first.
void print_kernel_changes(std::ostream& out, const Json& kernels_a, const Json& kernels_b) {
  struct KernelChange {
    std::string name;
    double a, b;
    const char* most;
  };
  std::vector<KernelChange> kernel_changes;
  size_t only_a = 0;
  for (const auto& [name, ka] : kernels_a.items()) {
    if (!kernels_b.contains(name)) {
      ++only_a;
      continue;
    }
    const Json& kb = kernels_b[name];
    const char* most = "-";
    double most_delta = 0;
    for (const char* phase : k_phases) {
      const double d = std::fabs(number(json_member(kb, phase), "mean_ns") -
                                 number(json_member(ka, phase), "mean_ns"));
      if (d > most_delta) {
        most_delta = d;
        most = phase;
      }
    }
    kernel_changes.push_back({name, number(json_member(ka, "total"), "mean_ns"),
                              number(json_member(kb, "total"), "mean_ns"), most});
  }
  std::stable_sort(kernel_changes.begin(), kernel_changes.end(),
                   [](const KernelChange& x, const KernelChange& y) {
                     return relative_change(x.a, x.b) > relative_change(y.a, y.b);
                   });
  out << fmt::format("\n{:<30}{:>12}{:>12}{:>10}  {}\n", "kernels, mean launch (us)", "A", "B",
                     "change", "most changed");
  constexpr size_t k_top_kernels = 20;
  for (size_t i = 0; i < std::min(kernel_changes.size(), k_top_kernels); ++i) {
    const KernelChange& k = kernel_changes[i];
    out << fmt::format("  {:<28}{:>12.3f}{:>12.3f}{:>10}  {}\n", elide(k.name, 28), k.a / 1e3,
                       k.b / 1e3, percent_change(k.a, k.b), k.most);
  }
  if (kernel_changes.size() > k_top_kernels)
    out << fmt::format("  ... and {} more\n", kernel_changes.size() - k_top_kernels);
  size_t only_b = 0;
  for (const auto& item : kernels_b.items())
    only_b += kernels_a.contains(item.key()) ? 0 : 1;
  if (only_a + only_b > 0)
    out << fmt::format("  kernels only in A: {}, only in B: {}\n", only_a, only_b);
}

// A block statistic that differs between the two reports.
struct StatChange {
  std::string name;
  double a, b;
};

// The numeric block statistics both reports have and that differ, the most changed first.
std::vector<StatChange> stat_changes(const Json& a, const Json& b) {
  std::vector<StatChange> changes;
  for (const auto& [block, stats] : a["blocks"].items()) {
    if (!b["blocks"].contains(block))
      continue;
    for (const auto& [stat, va] : stats.items()) {
      const Json& other = b["blocks"][block];
      if (!va.is_number() || !other.contains(stat) || !other[stat].is_number())
        continue;
      const double x = va.get<double>();
      const double y = other[stat].get<double>();
      if (x != y)
        changes.push_back({block + "." + stat, x, y});
    }
  }
  std::stable_sort(changes.begin(), changes.end(), [](const StatChange& x, const StatChange& y) {
    return relative_change(x.a, x.b) > relative_change(y.a, y.b);
  });
  return changes;
}

void print_stat_changes(std::ostream& out, DiffPrinter& print,
                        const std::vector<StatChange>& changes) {
  constexpr size_t k_top = 15;
  print.header(fmt::format("statistics that changed ({} of them)", changes.size()));
  for (size_t i = 0; i < std::min(changes.size(), k_top); ++i)
    out << fmt::format("  {:<36}{:>14}{:>14}{:>12}\n", elide(changes[i].name, 36),
                       elide(number_text(changes[i].a), 13), elide(number_text(changes[i].b), 13),
                       percent_change(changes[i].a, changes[i].b));
  if (changes.size() > k_top)
    out << fmt::format("  ... and {} more\n", changes.size() - k_top);
}

// What changed most: the phase with the largest relative change of its total time,
// among the phases that take at least 1% of the launches' time in A or B (a phase of
// a few nanoseconds that doubles is not the news), and the statistic.
void print_most_changed(std::ostream& out, const DiffPrinter& print, const PhaseTotals& total_a,
                        const PhaseTotals& total_b, const std::vector<StatChange>& changes) {
  double sum_a = 0, sum_b = 0;
  for (size_t p = 0; p < k_phases.size(); ++p) {
    sum_a += total_a[p];
    sum_b += total_b[p];
  }
  const auto significant = [&](size_t p) {
    return total_a[p] >= 0.01 * sum_a || total_b[p] >= 0.01 * sum_b;
  };
  std::optional<size_t> most;
  for (size_t p = 0; p < k_phases.size(); ++p)
    if (significant(p) && total_a[p] != total_b[p] &&
        (!most ||
         relative_change(total_a[p], total_b[p]) > relative_change(total_a[*most], total_b[*most])))
      most = p;
  out << '\n';
  if (!most)
    out << "phase that changed most: none (every phase took the same time)\n";
  else
    out << fmt::format("phase that changed most: {} ({}, {:+.3f} {} over all launches)\n",
                       k_phases[*most], percent_change(total_a[*most], total_b[*most]),
                       (total_b[*most] - total_a[*most]) / print.scale_ns(), print.unit());
  if (changes.empty())
    out << "statistic that changed most: none\n";
  else
    out << fmt::format("statistic that changed most: {} ({} -> {}, {})\n",
                       elide(changes.front().name, 36), number_text(changes.front().a),
                       number_text(changes.front().b),
                       percent_change(changes.front().a, changes.front().b));
}

} // namespace

Json load_report_dir(const std::string& dir) {
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status))
    throw InputError(SourceLoc{dir, 0, 0}, "", std::string("no such directory; ") + k_expected_dir);
  if (!fs::is_directory(status))
    throw InputError(SourceLoc{dir, 0, 0}, "", std::string("not a directory; ") + k_expected_dir);
  const std::string file = (fs::path(dir) / "report.json").string();
  if (!fs::exists(fs::symlink_status(file, ec)))
    throw InputError(SourceLoc{file, 0, 0}, "",
                     "cannot read it; expected the report.json that `npusim run --out` writes");
  return parse_report(read_input_file(file, "the report.json of an npusim run"), file);
}

Json parse_report(const std::string& text, const std::string& file) {
  const Json doc = parse_json_input(text, file, "an npusim report.json");
  if (!doc.is_object())
    throw InputError(SourceLoc{file, 1, 1}, "", "expected a JSON object (an npusim report.json)");
  std::vector<std::string> keys;
  for (const auto& item : doc.items())
    keys.push_back(item.key());
  for (const Section& s : k_sections) {
    const auto it = doc.find(s.key);
    if (it == doc.end()) {
      const std::string near = did_you_mean(s.key, keys);
      throw InputError(SourceLoc{file, 0, 0}, s.key,
                       std::string("missing; expected ") + s.type + " in an npusim report.json" +
                           (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
    if (!((*it).*(s.is))())
      throw InputError(SourceLoc{file, 0, 0}, s.key, std::string("expected ") + s.type);
  }
  check_report_document(doc, file);
  return doc;
}

void print_diff(std::ostream& out, const std::string& name_a, const Json& a,
                const std::string& name_b, const Json& b) {
  const double sim_a = number(a["sim"], "simulated_ns");
  const double sim_b = number(b["sim"], "simulated_ns");
  DiffPrinter print(out, sim_a, sim_b);

  // Runs of different fidelity differ by more than their inputs: say so first.
  const std::string fidelity_a = report_fidelity(a), fidelity_b = report_fidelity(b);
  if (fidelity_a != fidelity_b)
    out << "npusim diff: runs of different fidelity, A " << fidelity_a << " and B " << fidelity_b
        << " (docs/validation.md: how far the transaction level is from cycle)\n";
  else
    out << "npusim diff\n";
  for (const auto& [label, name, doc, fidelity] :
       {std::tuple{"A", &name_a, &a, &fidelity_a}, std::tuple{"B", &name_b, &b, &fidelity_b}})
    out << "  " << label << "  "
        << elide(*name + " (" + doc->value("testbench_name", "") + " on " +
                     doc->value("config_name", "") + ", " + *fidelity + ")",
                 75)
        << '\n';
  print_input_differences(out, a, b);
  print.header("run");
  print.time_row(print.in_unit("simulated"), sim_a, sim_b);
  print.row("launches", number(a["sim"], "launches"), number(b["sim"], "launches"), "{:.0f}");

  const PhaseTotals total_a = phase_totals(a["kernels"]);
  const PhaseTotals total_b = phase_totals(b["kernels"]);
  print_phases(print, total_a, total_b);
  print_kernel_changes(out, a["kernels"], b["kernels"]);
  if (a.contains("breakdown") && b.contains("breakdown")) {
    print.header(print.in_unit("where the time went"));
    for (const auto& [key, va] : a["breakdown"].items()) {
      std::string label = key.substr(0, key.size() - 3);
      std::replace(label.begin(), label.end(), '_', ' ');
      print.time_row(label, number(a["breakdown"], key.c_str()),
                     number(b["breakdown"], key.c_str()));
    }
  }
  const std::vector<StatChange> changes = stat_changes(a, b);
  print_stat_changes(out, print, changes);
  print_most_changed(out, print, total_a, total_b, changes);
}

// Both commands render into memory first: a failure leaves nothing half-printed.
int run_report(const std::string& dir, SummaryFormat format, const SummaryOptions& options) {
  return run_guarded([&] {
    std::ostringstream text;
    print_summary(text, load_report_dir(dir), format, options);
    std::cout << text.str();
    return static_cast<int>(kExitOk);
  });
}

int run_diff(const std::string& dir_a, const std::string& dir_b) {
  return run_guarded([&] {
    const Json a = load_report_dir(dir_a);
    const Json b = load_report_dir(dir_b);
    std::ostringstream text;
    print_diff(text, dir_a, a, dir_b, b);
    std::cout << text.str();
    return static_cast<int>(kExitOk);
  });
}

} // namespace npu
