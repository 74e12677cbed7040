#include "sweep/sweep_spec.h"

#include "common/file_identity.h"
#include "config/section.h"
#include "config/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>

namespace npu::sweep {

namespace fs = std::filesystem;

bool is_testbench_key(const std::string& key) {
  return key.rfind(kTestbenchPrefix, 0) == 0;
}

std::string target_key(const std::string& key) {
  return is_testbench_key(key) ? key.substr(std::string(kTestbenchPrefix).size()) : key;
}

std::vector<std::string> Parameter::keys() const {
  return linked() ? linked_keys : std::vector<std::string>{key};
}

const SourceLoc& Parameter::key_loc(size_t k) const {
  return linked() ? linked_locs[k] : loc;
}

std::string Parameter::where(size_t k) const {
  if (!linked() || linked_keys[k].rfind(key + ".", 0) == 0)
    return "parameters." + keys()[k];
  return "parameters." + key + ".link." + linked_keys[k];
}

std::vector<std::pair<std::string, std::string>> Parameter::settings(size_t i) const {
  if (!linked())
    return {{key, values[i]}};
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t k = 0; k < linked_keys.size(); ++k)
    out.emplace_back(linked_keys[k], linked_values[i][k]);
  return out;
}

namespace {

const std::string& scalar_of(const cfg::Node& node, const std::string& key, const char* expected) {
  if (!node.is_scalar() || node.scalar.empty())
    throw InputError(node.loc, key,
                     std::string("expected ") + expected + ", got " +
                         (node.is_scalar() ? "an empty value" : node.kind_name()));
  return node.scalar;
}

std::string resolve(const std::string& sweep_file, const std::string& path) {
  return (fs::path(sweep_file).parent_path() / path).lexically_normal().string();
}

// A kind of quantity a range can step through: how to read a bound and write a value.
struct Quantity {
  const char* what;
  std::function<std::optional<double>(const std::string&)> parse;
  std::function<std::string(double)> format;
  bool whole; ///< values are whole numbers (integers, bytes, picoseconds)
};

template <typename T> std::optional<double> as_double(std::optional<T> v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

const std::vector<Quantity>& quantities() {
  static const std::vector<Quantity> kinds = {
      {"whole numbers",
       [](const std::string& s) { return as_double(units::parse_int(s, nullptr)); },
       [](double v) { return std::to_string(static_cast<int64_t>(std::llround(v))); }, true},
      {"sizes", [](const std::string& s) { return as_double(units::parse_bytes(s, nullptr)); },
       [](double v) { return units::format_bytes(static_cast<uint64_t>(std::llround(v))); }, true},
      {"durations",
       [](const std::string& s) { return as_double(units::parse_time_ps(s, nullptr)); },
       [](double v) { return units::format_time_ps(static_cast<uint64_t>(std::llround(v))); },
       true},
      {"frequencies", [](const std::string& s) { return units::parse_frequency_hz(s, nullptr); },
       [](double v) { return units::format_frequency_hz(v); }, false},
      {"numbers", [](const std::string& s) { return units::parse_double(s, nullptr); },
       [](double v) {
         char buf[32];
         std::snprintf(buf, sizeof buf, "%.10g", v);
         return std::string(buf);
       },
       false},
  };
  return kinds;
}

std::vector<std::string> expand_range(const cfg::Node& node, const std::string& key) {
  cfg::Section s(&node, key, nullptr);
  const cfg::Node& from = s.require("from", "the first value of the range");
  const cfg::Node& to = s.require("to", "the last value of the range");
  s.accept("step");
  s.accept("factor");
  s.finish();
  const cfg::Node* step = s.value("step");
  const cfg::Node* factor = s.value("factor");
  if (step && factor)
    s.fail("factor", "a range takes either step (linear) or factor (logarithmic), not both");
  const std::string from_text = scalar_of(from, key + ".from", "a value");
  const std::string to_text = scalar_of(to, key + ".to", "a value");
  const std::string step_text =
      step ? scalar_of(*step, key + ".step", "a step such as 1 or 8KiB") : "";

  // The first kind that reads both bounds (and the step) is the range's kind.
  const Quantity* kind = nullptr;
  std::optional<double> lo, hi, by;
  for (const Quantity& q : quantities()) {
    lo = q.parse(from_text);
    hi = q.parse(to_text);
    by = step ? q.parse(step_text) : std::optional<double>(1.0);
    if (lo && hi && by) {
      kind = &q;
      break;
    }
  }
  if (!kind)
    s.fail("from", "cannot step from '" + from_text + "' to '" + to_text + "'" +
                       (step ? " by '" + step_text + "'" : "") +
                       ": expected whole numbers, sizes (8KiB), durations (10ns), frequencies "
                       "(1GHz) or numbers, all of one kind");
  if (*hi < *lo)
    s.fail("to", "must not be below from ('" + from_text + "'), got '" + to_text + "'");

  std::vector<std::string> values;
  auto add = [&](double v) {
    if (values.size() >= kMaxRangeValues)
      s.fail("to", "the range gives more than " + std::to_string(kMaxRangeValues) + " values");
    values.push_back(kind->format(v));
  };
  if (factor) {
    const std::string factor_text = scalar_of(*factor, key + ".factor", "a number above 1");
    const auto f = units::parse_double(factor_text, nullptr);
    if (!f || !(*f > 1.0))
      s.fail("factor", "expected a number above 1, got '" + factor_text + "'");
    if (*lo <= 0)
      s.fail("from", "a range with a factor must start above 0, got '" + from_text + "'");
    if (kind->whole && std::floor(*f) != *f)
      s.fail("factor", "must be a whole number for " + std::string(kind->what) + ", got '" +
                           factor_text + "'");
    const double slack = *hi * 1e-9;
    for (double v = *lo; v <= *hi + slack; v *= *f)
      add(v);
  } else {
    if (!(*by > 0))
      s.fail("step", "must be above 0, got '" + step_text + "'");
    // Multiply rather than accumulate, so that 0.1 steps do not drift.
    const double slack = *by * 1e-9;
    for (size_t i = 0; *lo + static_cast<double>(i) * *by <= *hi + slack; ++i)
      add(*lo + static_cast<double>(i) * *by);
  }
  return values;
}

// A map item of a map-valued list as dotted keys below it: {rows: 32, cols: 32} ->
// rows=32, cols=32; nested maps give "timing.CL".
void flatten(const cfg::Node& node, const std::string& prefix, const std::string& key,
             std::vector<std::pair<std::string, const cfg::MapEntry*>>* out) {
  for (const auto& e : node.entries) {
    const std::string name = prefix.empty() ? e.key : prefix + "." + e.key;
    if (e.value.is_map())
      flatten(e.value, name, key, out);
    else
      out->emplace_back(name, &e);
  }
  if (node.entries.empty())
    throw InputError(node.loc, key, "expected a map of key: value, got an empty map");
}

// The label of each value of a linked group, for its column: the value itself when
// every key takes the same one at every step ("32"), else "rows=32 cols=64".
void label_linked(Parameter* p, const std::vector<std::string>& names) {
  bool equal = true;
  for (const auto& step : p->linked_values)
    for (const auto& v : step)
      equal = equal && v == step.front();
  p->values.clear();
  for (const auto& step : p->linked_values) {
    std::string label;
    for (size_t k = 0; k < step.size() && !equal; ++k)
      label += (k ? " " : "") + names[k] + "=" + step[k];
    p->values.push_back(equal ? step.front() : label);
  }
}

// `key: [{rows: 32, cols: 32}, ...]`: every item sets key.rows and key.cols together.
Parameter read_map_list(const cfg::MapEntry& e) {
  const std::string where = "parameters." + e.key;
  Parameter p;
  p.key = e.key;
  p.loc = e.key_loc;
  std::vector<std::string> names;
  for (const auto& item : e.value.items) {
    if (!item.is_map())
      throw InputError(item.loc, where,
                       std::string("expected a map like the first item, got ") + item.kind_name());
    std::vector<std::pair<std::string, const cfg::MapEntry*>> flat;
    flatten(item, "", where, &flat);
    if (names.empty()) {
      for (const auto& [name, entry] : flat) {
        names.push_back(name);
        p.linked_keys.push_back(e.key + "." + name);
        p.linked_locs.push_back(entry->key_loc);
      }
    }
    std::vector<std::string> step(names.size());
    std::vector<bool> seen(names.size(), false);
    for (const auto& [name, entry] : flat) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        throw InputError(entry->key_loc, where + "." + name,
                         "not a key of the first item; every item sets the same keys (" +
                             fmt::format("{}", fmt::join(names, ", ")) + ")");
      const size_t k = static_cast<size_t>(it - names.begin());
      step[k] = scalar_of(entry->value, where + "." + name, "a value");
      seen[k] = true;
    }
    for (size_t k = 0; k < names.size(); ++k)
      if (!seen[k])
        throw InputError(item.loc, where,
                         "this item has no '" + names[k] + "'; every item sets the same keys (" +
                             fmt::format("{}", fmt::join(names, ", ")) + ")");
    p.linked_values.push_back(std::move(step));
    p.value_locs.push_back(item.loc);
  }
  label_linked(&p, names);
  return p;
}

// `name: {link: {key: values, key: values}}`: lists or ranges of one length, taken together.
Parameter read_link(const cfg::MapEntry& e) {
  const std::string where = "parameters." + e.key;
  cfg::Section s(&e.value, where, nullptr);
  const cfg::Node& link = s.require("link", "a map of key: values that move together");
  s.finish();
  if (!link.is_map() || link.entries.empty())
    throw InputError(link.loc, where + ".link",
                     std::string("expected a map of key: values, got ") +
                         (link.is_map() ? "an empty map" : link.kind_name()));
  Parameter p;
  p.key = e.key;
  p.loc = e.key_loc;
  std::vector<std::vector<std::string>> lists;
  for (const auto& k : link.entries) {
    lists.push_back(expand_values(k.value, where + ".link." + k.key));
    if (lists.back().size() != lists.front().size())
      throw InputError(k.key_loc, where + ".link." + k.key,
                       "linked keys need lists of one length: '" + link.entries.front().key +
                           "' has " + std::to_string(lists.front().size()) + " values, this one " +
                           std::to_string(lists.back().size()));
    p.linked_keys.push_back(k.key);
    p.linked_locs.push_back(k.key_loc);
  }
  // Each key by its last part when those differ ("rows=32 cols=32"), else in full.
  std::vector<std::string> names;
  for (const auto& key : p.linked_keys)
    names.push_back(split_path(key).back());
  for (size_t i = 0; i < names.size(); ++i)
    if (std::count(names.begin(), names.end(), names[i]) > 1) {
      names = p.linked_keys;
      break;
    }
  for (size_t i = 0; i < lists.front().size(); ++i) {
    std::vector<std::string> step;
    for (const auto& list : lists)
      step.push_back(list[i]);
    p.linked_values.push_back(std::move(step));
    p.value_locs.push_back(e.value.loc);
  }
  label_linked(&p, names);
  return p;
}

Parameter read_parameter(const cfg::MapEntry& e) {
  const std::string where = "parameters." + e.key;
  if (e.value.is_map() && e.value.find("link"))
    return read_link(e);
  if (e.value.is_seq() && !e.value.items.empty() && e.value.items.front().is_map())
    return read_map_list(e);
  Parameter p;
  p.key = e.key;
  p.loc = e.key_loc;
  p.values = expand_values(e.value, where);
  for (size_t i = 0; i < p.values.size(); ++i)
    p.value_locs.push_back(e.value.is_seq() ? e.value.items[i].loc : e.value.loc);
  return p;
}

} // namespace

std::vector<std::string> expand_values(const cfg::Node& node, const std::string& key) {
  if (node.is_seq()) {
    if (node.items.empty())
      throw InputError(node.loc, key, "expected at least one value, got an empty list");
    std::vector<std::string> values;
    for (const auto& item : node.items)
      values.push_back(scalar_of(item, key, "a value (one list item per value)"));
    return values;
  }
  if (node.is_map())
    return expand_range(node, key);
  if (node.is_scalar())
    return {node.scalar};
  throw InputError(node.loc, key,
                   "expected a list of values, {from, to, step} or {from, to, factor}, got " +
                       std::string(node.kind_name()));
}

namespace {

// `testbench`: one file or a list of them, each listed once.
void read_testbench_files(cfg::Section& top, const std::string& file, Spec& spec) {
  const cfg::Node& testbench = top.require("testbench", "a testbench file or a list of them");
  const std::vector<cfg::Node> tb_items =
      testbench.is_seq() ? testbench.items : std::vector<cfg::Node>{testbench};
  if (tb_items.empty())
    throw InputError(testbench.loc, "testbench", "expected at least one testbench");
  for (const auto& item : tb_items) {
    const std::string& label = scalar_of(item, "testbench", "a file name");
    for (size_t i = 0; i < spec.testbench_labels.size(); ++i)
      if (spec.testbench_labels[i] == label)
        throw InputError(item.loc, "testbench",
                         "'" + label + "' is listed twice (first at line " +
                             std::to_string(spec.testbench_locs[i].line) + ")");
    spec.testbench_labels.push_back(label);
    spec.testbenches.push_back(resolve(file, label));
    spec.testbench_locs.push_back(item.loc);
  }
}

// `parameters`: config (or testbench) key -> values; no key set twice.
void read_parameters(cfg::Section& top, Spec& spec) {
  top.accept("parameters");
  const cfg::Node* params = top.value("parameters");
  if (!params || params->is_null())
    return;
  if (!params->is_map())
    top.fail("parameters",
             std::string("expected a map of config key: values, got ") + params->kind_name());
  for (const auto& e : params->entries) {
    Parameter p = read_parameter(e);
    const std::vector<std::string> keys = p.keys();
    for (size_t k = 0; k < keys.size(); ++k) {
      const std::string where = p.where(k);
      for (const auto& f : spec.fixed)
        if (f.key == keys[k])
          throw InputError(p.key_loc(k), where,
                           "is also fixed under set (line " + std::to_string(f.loc.line) + ")");
      for (const auto& other : spec.parameters)
        for (const auto& key : other.keys())
          if (key == keys[k] && p.linked())
            throw InputError(p.key_loc(k), where,
                             "is also set by parameters." + other.key + " (line " +
                                 std::to_string(other.loc.line) + ")");
    }
    spec.parameters.push_back(std::move(p));
  }
}

// `metrics`: a list of report.json paths, or a map of column: path.
void read_metrics(cfg::Section& top, Spec& spec) {
  const cfg::Node& metrics = top.require("metrics", "a list of report.json paths");
  auto add_metric = [&](const std::string& name, const cfg::Node& value, const std::string& key) {
    const std::string& path = scalar_of(value, key, "a report.json path such as sim.simulated_ns");
    for (const auto& m : spec.metrics)
      if (m.name == name)
        throw InputError(value.loc, key, "column '" + name + "' is collected twice");
    try {
      split_metric_path(path);
    } catch (const std::invalid_argument& e) {
      throw InputError(value.loc, key, "'" + path + "': " + e.what());
    }
    spec.metrics.push_back({name, path, value.loc});
  };
  if (metrics.is_seq()) {
    for (const auto& item : metrics.items)
      add_metric(item.is_scalar() ? item.scalar : "", item, "metrics");
  } else if (metrics.is_map()) {
    for (const auto& e : metrics.entries)
      add_metric(e.key, e.value, "metrics." + e.key);
  } else {
    top.fail("metrics", "expected a list of report.json paths or a map of column: path, got " +
                            std::string(metrics.kind_name()));
  }
}

// `fidelity`: the DRAM model of every point, as a fixed `ddr.model` that nothing else sets.
void read_fidelity(cfg::Section& top, Spec& spec) {
  spec.fidelity = top.choice("fidelity", "cycle", {"cycle", "transaction"});
  const cfg::Node* node = top.value("fidelity");
  if (!node)
    return;
  for (const auto& f : spec.fixed)
    if (f.key == kFidelityKey)
      throw InputError(f.loc, "set." + f.key,
                       "is set by fidelity (line " + std::to_string(node->loc.line) +
                           "); give one of them");
  for (const auto& p : spec.parameters)
    for (const auto& key : p.keys())
      if (key == kFidelityKey)
        throw InputError(p.loc, "parameters." + p.key,
                         "sets ddr.model, which fidelity (line " + std::to_string(node->loc.line) +
                             ") fixes for every point");
  spec.fixed.push_back({kFidelityKey, spec.fidelity, node->loc});
}

// `objective`: a metric column, or {metric: column, goal: min | max}.
void read_objective(cfg::Section& top, Spec& spec) {
  top.accept("objective");
  const cfg::Node* node = top.value("objective");
  if (!node || node->is_null())
    return;
  Objective& o = spec.objective;
  o.loc = node->loc;
  if (node->is_map()) {
    cfg::Section obj(node, "objective", nullptr);
    const cfg::Node& metric = obj.require("metric", "a metric column");
    o.column = scalar_of(metric, "objective.metric", "a metric column");
    o.loc = metric.loc;
    o.maximize = obj.choice("goal", "min", {"min", "max"}) == "max";
    obj.finish();
  } else {
    o.column = scalar_of(*node, "objective", "a metric column, or {metric: column, goal: max}");
  }
  std::vector<std::string> columns;
  for (const auto& m : spec.metrics) {
    if (m.name == o.column)
      return;
    columns.push_back(m.name);
  }
  const std::string near = did_you_mean(o.column, columns);
  throw InputError(o.loc, "objective",
                   "'" + o.column + "' is not a metric column" +
                       (near.empty() ? "" : "; did you mean '" + near + "'?"));
}

// Column names must not collide with each other or with the fixed columns.
void check_columns(const Spec& spec) {
  std::vector<std::string> columns = {"point", "testbench", "status", "error", "wall_s"};
  auto claim = [&](const std::string& name, const SourceLoc& loc, const std::string& key) {
    for (const auto& c : columns)
      if (c == name)
        throw InputError(loc, key, "column '" + name + "' is already taken");
    columns.push_back(name);
  };
  for (const auto& p : spec.parameters) {
    claim(p.key, p.loc, "parameters." + p.key);
    for (size_t k = 0; k < p.linked_keys.size(); ++k)
      if (p.linked_keys[k] != p.key)
        claim(p.linked_keys[k], p.linked_locs[k], p.where(k));
  }
  for (const auto& m : spec.metrics)
    claim(m.name, m.loc, "metrics");
}

// Zipped lists have one length; a grid has at most kMaxPoints points.
void check_point_count(const Spec& spec) {
  if (spec.zip && !spec.parameters.empty()) {
    const Parameter& first = spec.parameters.front();
    for (const auto& p : spec.parameters)
      if (p.values.size() != first.values.size())
        throw InputError(p.loc, "parameters." + p.key,
                         "mode zip needs lists of one length: '" + first.key + "' has " +
                             std::to_string(first.values.size()) + " values, this one " +
                             std::to_string(p.values.size()));
  }
  // Counted before anything is planned or written, whichever way the points are made.
  const auto too_many = [&](const SourceLoc& loc, const std::string& key, const std::string& how) {
    return InputError(loc, key,
                      how + " more than " + std::to_string(kMaxPoints) +
                          " points, the most one sweep may have; split it into several sweeps");
  };
  const size_t testbenches = spec.testbenches.size();
  if (testbenches == 0)
    return;
  if (testbenches > kMaxPoints)
    throw too_many(spec.testbench_locs[kMaxPoints], "testbench", "the testbenches alone give");
  if (spec.zip) {
    const size_t length = spec.parameters.empty() ? 1 : spec.parameters.front().values.size();
    if (length > kMaxPoints / testbenches)
      throw too_many(spec.parameters.front().loc, "parameters." + spec.parameters.front().key,
                     fmt::format("{} values zipped on {} testbench{} give", length, testbenches,
                                 testbenches == 1 ? "" : "es"));
    return;
  }
  size_t points = testbenches;
  for (const auto& p : spec.parameters) {
    // Before the product: it must not overflow either.
    if (points > 0 && p.values.size() > kMaxPoints / points)
      throw too_many(p.loc, "parameters." + p.key, "the grid has");
    points *= p.values.size();
  }
}

} // namespace

Spec read_spec(const cfg::Node& root, const std::string& file) {
  if (!root.is_map())
    throw InputError(root.is_null() ? SourceLoc{file, 1, 1} : root.loc, "",
                     "expected a sweep: a map with config, testbench, parameters and metrics");
  Spec spec;
  spec.file = file;
  cfg::Section top(&root, "", nullptr);
  spec.name = top.string("name", fs::path(file).stem().string());

  const cfg::Node& config = top.require("config", "the hardware configuration file");
  spec.config = resolve(file, scalar_of(config, "config", "a file name"));
  spec.config_loc = config.loc;
  read_testbench_files(top, file, spec);

  top.accept("set");
  if (const cfg::Node* set = top.value("set"); set && !set->is_null()) {
    if (!set->is_map())
      top.fail("set", std::string("expected a map of key: value, got ") + set->kind_name());
    for (const auto& e : set->entries)
      spec.fixed.push_back({e.key, scalar_of(e.value, "set." + e.key, "a value"), e.key_loc});
  }

  spec.zip = top.choice("mode", "grid", {"grid", "zip"}) == "zip";
  read_parameters(top, spec);
  read_metrics(top, spec);
  read_fidelity(top, spec);
  read_objective(top, spec);
  top.finish();
  check_columns(spec);
  check_point_count(spec);
  return spec;
}

Spec load_spec(const std::string& path) {
  cfg::Node root = cfg::parse_yaml_file(path);
  note_input(path, "the sweep file");
  return read_spec(root, path);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos)
      return parts;
    start = dot + 1;
  }
}

std::vector<PathPart> split_metric_path(const std::string& path) {
  std::vector<PathPart> parts;
  size_t at = 0;
  while (true) {
    PathPart part;
    if (at < path.size() && path[at] == '"') {
      const size_t close = path.find('"', at + 1);
      if (close == std::string::npos)
        throw std::invalid_argument("the quote at character " + std::to_string(at + 1) +
                                    " is not closed");
      part.text = path.substr(at + 1, close - at - 1);
      part.quoted = true;
      at = close + 1;
      if (at < path.size() && path[at] != '.')
        throw std::invalid_argument("expected a dot after the quoted part \"" + part.text + "\"");
    } else {
      const size_t dot = path.find('.', at);
      part.text = path.substr(at, dot == std::string::npos ? std::string::npos : dot - at);
      if (part.text.find('"') != std::string::npos)
        throw std::invalid_argument("a quote may only enclose a whole part: \"compute.unit0\"");
      at = dot == std::string::npos ? path.size() : dot;
    }
    if (part.text.empty())
      throw std::invalid_argument("expected a key between two dots");
    parts.push_back(std::move(part));
    if (at >= path.size())
      return parts;
    ++at; // the dot
    if (at == path.size())
      throw std::invalid_argument("expected a key after the last dot");
  }
}

std::vector<std::pair<std::string, size_t>> key_candidates(const std::vector<PathPart>& parts,
                                                           size_t at) {
  if (parts[at].quoted)
    return {{parts[at].text, at + 1}};
  size_t end = at + 1;
  while (end < parts.size() && !parts[end].quoted)
    ++end;
  std::vector<std::pair<std::string, size_t>> out;
  for (; end > at; --end) {
    std::string key = parts[at].text;
    for (size_t i = at + 1; i < end; ++i)
      key += "." + parts[i].text;
    out.emplace_back(std::move(key), end);
  }
  return out;
}

std::vector<Point> expand_points(const Spec& spec) {
  std::vector<Point> points;
  const size_t n = spec.parameters.size();
  for (size_t tb = 0; tb < spec.testbenches.size(); ++tb) {
    if (spec.zip) {
      const size_t length = n == 0 ? 1 : spec.parameters.front().values.size();
      for (size_t i = 0; i < length; ++i)
        points.push_back({points.size(), tb, std::vector<size_t>(n, i)});
      continue;
    }
    // An odometer over the value indices: the last parameter turns fastest.
    std::vector<size_t> at(n, 0);
    while (true) {
      points.push_back({points.size(), tb, at});
      size_t k = n;
      while (k > 0 && ++at[k - 1] == spec.parameters[k - 1].values.size())
        at[--k] = 0;
      if (k == 0)
        break;
    }
  }
  return points;
}

} // namespace npu::sweep
