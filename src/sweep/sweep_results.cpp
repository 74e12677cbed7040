#include "sweep/sweep_results.h"

#include "common/escape.h"
#include "common/input_file.h"
#include "common/json_input.h"
#include "common/publish.h"
#include "sweep/point_runner.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>
#include <vector>

namespace npu::sweep {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::optional<Json> value_at_part(const Json& node, const std::vector<PathPart>& parts, size_t at) {
  if (at == parts.size())
    return node;
  if (node.is_object()) {
    // Keys may hold dots themselves ("compute.unit0"): the longest that matches wins.
    for (const auto& [key, next] : key_candidates(parts, at))
      if (node.contains(key))
        if (auto v = value_at_part(node[key], parts, next))
          return v;
    return std::nullopt;
  }
  const std::string& part = parts[at].text;
  if (node.is_array() && !part.empty() && part.size() < 10 &&
      part.find_first_not_of("0123456789") == std::string::npos && std::stoul(part) < node.size())
    return value_at_part(node[std::stoul(part)], parts, at + 1);
  return std::nullopt;
}

} // namespace

std::optional<Json> value_at(const Json& json, const std::string& path) {
  try {
    return value_at_part(json, split_metric_path(path), 0);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::string csv_field(const std::string& name) {
  const std::string text = escape(name); // one record a line, nothing that acts on a terminal
  if (text.find_first_of(",\"") == std::string::npos)
    return text;
  std::string out = "\"";
  for (const char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {

std::string cell(const std::optional<Json>& v) {
  if (!v || v->is_null())
    return "";
  if (v->is_string())
    return v->get<std::string>();
  return v->dump();
}

// A point's report.json; discarded (no metrics) when it cannot be read or parsed.
Json read_report(const fs::path& file) {
  try {
    return parse_json_or_discarded(read_input_file(file.string(), "a report.json"));
  } catch (const InputError&) {
    return Json(Json::value_t::discarded);
  }
}

} // namespace

MergeCounts merge_results(const fs::path& out_dir, const Plan& plan) {
  MergeCounts counts;
  std::ostringstream csv;
  csv << "point,testbench";
  for (const auto& key : plan.parameter_keys) {
    csv << ',' << csv_field(key);
    for (const auto& [name, keys] : plan.linked)
      for (const auto& linked : keys)
        if (name == key && linked != key)
          csv << ',' << csv_field(linked);
  }
  for (const auto& m : plan.metrics)
    csv << ',' << csv_field(m.name);
  csv << ",status,error,wall_s\n";

  Json rows = Json::array();
  for (const PlannedPoint& point : plan.points) {
    std::optional<PointResult> result = read_result(out_dir, point);
    if (!result) {
      ++counts.missing;
      result = PointResult{"missing", "no result: the point has not run to its end yet", 0, 0.0};
    } else if (result->status == "ok") {
      ++counts.ok;
    } else {
      ++counts.failed;
    }
    Json report;
    if (result->status == "ok")
      report = read_report(out_dir / point.dir / "report.json");

    Json row;
    row["point"] = point.index;
    row["dir"] = point.dir;
    row["testbench"] = point.testbench;
    Json params = Json::object();
    csv << point.index << ',' << csv_field(point.testbench);
    for (const auto& [key, value] : point.parameters) {
      params[key] = value;
      csv << ',' << csv_field(value);
    }
    row["parameters"] = std::move(params);
    Json metrics = Json::object();
    for (const auto& m : plan.metrics) {
      const std::optional<Json> v = report.is_object() ? value_at(report, m.path) : std::nullopt;
      metrics[m.name] = v ? *v : Json();
      csv << ',' << csv_field(cell(v));
    }
    row["metrics"] = std::move(metrics);
    row["status"] = result->status;
    row["error"] = result->error;
    row["wall_s"] = result->wall_s;
    csv << ',' << result->status << ',' << csv_field(result->error) << ','
        << fmt::format("{:.3f}", result->wall_s) << '\n';
    rows.push_back(std::move(row));
  }

  Json j;
  j["sweep"] = plan.name;
  j["parameters"] = plan.parameter_keys;
  j["linked"] = linked_json(plan.linked);
  j["metrics"] = metrics_json(plan.metrics);
  j["points"] = std::move(rows);
  write_file_atomically(out_dir / "results.csv", csv.str());
  write_file_atomically(out_dir / "results.json",
                        j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  return counts;
}

} // namespace npu::sweep
