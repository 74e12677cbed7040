#include "sweep/sweep_confirm.h"

#include "common/error.h"
#include "common/publish.h"
#include "sweep/sweep_results.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

namespace npu::sweep {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<Json> read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in)
    return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  Json j = Json::parse(text.str(), nullptr, false);
  if (j.is_discarded())
    return std::nullopt;
  return j;
}

std::optional<double> number_at(const Json& report, const std::string& path) {
  const std::optional<Json> v = value_at(report, path);
  if (!v || !v->is_number())
    return std::nullopt;
  return v->get<double>();
}

/// The objective's report path and column name.
std::pair<std::string, std::string> objective_of(const Plan& plan) {
  for (const auto& m : plan.metrics)
    if (m.name == plan.objective.column)
      return {m.path, m.name};
  return {"sim.simulated_ns", "sim.simulated_ns"};
}

/// `args` with the fidelity set to cycle.
std::vector<std::string> at_cycle(std::vector<std::string> args) {
  const std::string transaction = std::string(kFidelityKey) + "=transaction";
  for (auto& a : args)
    if (a == transaction)
      a = std::string(kFidelityKey) + "=cycle";
  return args;
}

double difference_pct(double fast, double reference) {
  return reference == 0 ? (fast == 0 ? 0.0 : INFINITY) : 100.0 * (fast - reference) / reference;
}

/// A confirmed point: its reports at both levels.
struct Confirmed {
  const PlannedPoint* point = nullptr;
  std::optional<Json> fast, cycle;
  std::string error; ///< why the cycle run gave no report
};

/// The points that finished ok, best first by the objective (ties by point order).
std::vector<const PlannedPoint*> ranked(const fs::path& out_dir, const Plan& plan) {
  const auto [path, column] = objective_of(plan);
  std::vector<std::pair<double, const PlannedPoint*>> scored;
  for (const auto& p : plan.points) {
    const std::optional<PointResult> r = read_result(out_dir, p);
    if (!r || r->status != "ok")
      continue;
    const std::optional<Json> report = read_json(out_dir / p.dir / "report.json");
    const std::optional<double> v = report ? number_at(*report, path) : std::nullopt;
    if (v)
      scored.emplace_back(plan.objective.maximize ? -*v : *v, &p);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const PlannedPoint*> out;
  for (const auto& [score, p] : scored)
    out.push_back(p);
  return out;
}

void print_and_write(const fs::path& out_dir, const Plan& plan,
                     const std::vector<Confirmed>& confirmed, std::ostream& out) {
  const auto [path, column] = objective_of(plan);
  out << fmt::format("confirm: {} best point{} by {} ({} first), rerun at fidelity cycle\n",
                     confirmed.size(), confirmed.size() == 1 ? "" : "s", column,
                     plan.objective.maximize ? "greatest" : "least");
  Json rows = Json::array();
  std::string csv = "point";
  for (const auto& m : plan.metrics)
    csv += "," + csv_field(m.name + " (transaction)") + "," + csv_field(m.name + " (cycle)") + "," +
           csv_field(m.name + " difference %");
  csv += ",status\n";
  double worst = 0;
  for (const Confirmed& c : confirmed) {
    std::string params;
    for (const auto& [key, value] : c.point->parameters)
      params += (params.empty() ? "" : " ") + key + "=" + value;
    Json row{{"point", c.point->index}, {"dir", c.point->dir}, {"parameters", params}};
    std::string line = fmt::format("{:04}", c.point->index);
    const double fast_v = c.fast ? number_at(*c.fast, path).value_or(NAN) : NAN;
    const double cycle_v = c.cycle ? number_at(*c.cycle, path).value_or(NAN) : NAN;
    if (!std::isnan(fast_v) && !std::isnan(cycle_v)) {
      const double d = difference_pct(fast_v, cycle_v);
      worst = std::max(worst, std::abs(d));
      out << fmt::format("  {} {}: {} transaction {:.6g}, cycle {:.6g}, difference {:+.2f}%\n",
                         line, params, column, fast_v, cycle_v, d);
    } else {
      out << fmt::format("  {} {}: cycle rerun failed: {}\n", line, params, c.error);
    }
    Json metrics = Json::object();
    csv += std::to_string(c.point->index);
    for (const auto& m : plan.metrics) {
      // NaN: not in that run's report.
      const double a = c.fast ? number_at(*c.fast, m.path).value_or(NAN) : NAN;
      const double b = c.cycle ? number_at(*c.cycle, m.path).value_or(NAN) : NAN;
      const double d = std::isnan(a) || std::isnan(b) ? NAN : difference_pct(a, b);
      const auto cell = [](double v) { return std::isnan(v) ? Json() : Json(v); };
      const auto text = [](double v, const char* f) {
        return std::isnan(v) ? std::string() : fmt::format(fmt::runtime(f), v);
      };
      metrics[m.name] = {{"transaction", cell(a)}, {"cycle", cell(b)}, {"difference_pct", cell(d)}};
      csv += "," + text(a, "{}") + "," + text(b, "{}") + "," + text(d, "{:.4f}");
    }
    const std::string status = c.cycle ? "ok" : "failed";
    csv += "," + status + "\n";
    row["metrics"] = std::move(metrics);
    row["status"] = status;
    row["error"] = c.error;
    rows.push_back(std::move(row));
  }
  out << fmt::format("confirmation error: {:.2f}% at most ({}, transaction against cycle)\n", worst,
                     column);
  const Json doc{{"sweep", plan.name},
                 {"objective", column},
                 {"goal", plan.objective.maximize ? "max" : "min"},
                 {"confirmation_error_pct", worst},
                 {"points", std::move(rows)}};
  write_file_atomically(out_dir / "confirm.json", doc.dump(2) + "\n");
  write_file_atomically(out_dir / "confirm.csv", csv);
}

} // namespace

int confirm_best(const fs::path& out_dir, const Plan& plan, size_t n, const RunnerOptions& options,
                 std::ostream& out) {
  if (plan.fidelity != "transaction")
    throw InputError("--confirm reruns the best points of a transaction-level sweep at cycle "
                     "fidelity; this sweep runs at fidelity " +
                     plan.fidelity + " (set `fidelity: transaction` in the sweep file)");
  std::vector<const PlannedPoint*> best = ranked(out_dir, plan);
  if (best.size() > n)
    best.resize(n);
  Plan rerun = plan;
  rerun.points.clear();
  for (const PlannedPoint* p : best) {
    PlannedPoint c = *p;
    c.dir = "confirm/" + fmt::format("{:04}", p->index);
    c.args = at_cycle(p->args);
    rerun.points.push_back(std::move(c));
  }
  std::error_code ec;
  fs::create_directories(out_dir / "confirm", ec);
  std::vector<size_t> todo;
  for (size_t i = 0; i < rerun.points.size(); ++i) {
    salvage_finished_run(out_dir, rerun.points[i]);
    if (!read_result(out_dir, rerun.points[i]))
      todo.push_back(i);
  }
  const int stopped_by = run_points(
      out_dir, rerun, todo, options, [](const PlannedPoint&, const PointResult&) {}, [] {});
  if (stopped_by != 0)
    return stopped_by;
  std::vector<Confirmed> confirmed;
  for (size_t i = 0; i < best.size(); ++i) {
    Confirmed c;
    c.point = best[i];
    c.fast = read_json(out_dir / best[i]->dir / "report.json");
    const std::optional<PointResult> r = read_result(out_dir, rerun.points[i]);
    if (r && r->status == "ok")
      c.cycle = read_json(out_dir / rerun.points[i].dir / "report.json");
    else
      c.error = r ? r->status + (r->error.empty() ? "" : ": " + r->error) : "no result";
    confirmed.push_back(std::move(c));
  }
  print_and_write(out_dir, plan, confirmed, out);
  return 0;
}

} // namespace npu::sweep
