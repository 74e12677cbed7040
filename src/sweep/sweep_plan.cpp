#include "sweep/sweep_plan.h"

#include "common/input_file.h"
#include "platform/platform_config.h"
#include "report/report.h"
#include "testbench/testbench.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

namespace npu::sweep {

namespace fs = std::filesystem;

std::string bare_message(const InputError& error) {
  const std::string what = error.what();
  const std::string marker = "error: " + (error.key().empty() ? "" : error.key() + ": ");
  const size_t at = what.find(marker);
  return at == std::string::npos ? what : what.substr(at + marker.size());
}

std::string point_dir(size_t index) {
  return fmt::format("points/{:04}", index);
}

namespace {

using Json = nlohmann::ordered_json;

// The parsed inputs every point starts from.
struct Base {
  cfg::Node config;
  std::vector<cfg::Node> testbenches;
};

// Runs `load` on the file `path` that the sweep file names at `loc`: a file that cannot
// be read (missing, a directory, a device) is reported there, naming the file and why.
template <typename Load>
auto load_named(const std::string& path, const SourceLoc& loc, const std::string& key, Load load) {
  try {
    return load();
  } catch (const InputFileError& e) {
    if (e.path() != path)
      throw;
    throw InputError(loc, key, "file '" + path + "' " + e.reason());
  }
}

std::vector<std::string> keys_of(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items())
    keys.push_back(item.key());
  return keys;
}

std::string unknown(const std::string& what, const std::string& name,
                    const std::vector<std::string>& candidates) {
  std::string message = what + " has no '" + name + "'";
  const std::string hint = did_you_mean(name, candidates);
  if (!hint.empty())
    return message + "; did you mean '" + hint + "'?";
  if (candidates.empty())
    return message;
  message += "; expected one of ";
  for (size_t i = 0; i < candidates.size(); ++i)
    message += (i ? ", " : "") + candidates[i];
  return message;
}

// A testbench key must name something the testbench has (up to its last part): an
// override would otherwise create a new kernel or buffer instead of changing one.
void check_testbench_path(const cfg::Node& root, const std::string& key, const SourceLoc& loc,
                          const std::string& where) {
  const std::vector<std::string> parts = split_path(target_key(key));
  const cfg::Node* node = &root;
  std::string walked = "the testbench";
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const cfg::Node* child = node->find(parts[i]);
    if (!child || !child->is_map()) {
      std::vector<std::string> names;
      for (const auto& e : node->entries)
        names.push_back(e.key);
      throw InputError(loc, where, unknown(walked, parts[i], names));
    }
    walked = "'" + parts[i] + "'";
    node = child;
  }
}

// Loads one point: config and testbench trees with the overrides, then the full checks.
// Throws InputError on the first problem.
void load_point(const Base& base, size_t testbench, const std::string& testbench_file,
                const std::string& config_file, const std::vector<std::string>& config_sets,
                const std::vector<std::string>& testbench_sets, PlatformConfig* out = nullptr) {
  cfg::Node config = base.config;
  for (const auto& s : config_sets)
    cfg::apply_override(config, s);
  PlatformConfig pc = read_platform_config(config, config_file);
  cfg::Node tb_root = base.testbenches[testbench];
  for (const auto& s : testbench_sets)
    cfg::apply_override(tb_root, s, "--tb-set");
  const Testbench tb = read_testbench(tb_root, testbench_file);
  check_testbench(tb, pc);
  if (out)
    *out = std::move(pc);
}

// True when `e` says that `key` (or a section on its path) is not a key at all.
bool is_unknown_key(const InputError& e, const std::string& key) {
  const bool on_path = e.key() == key || key.rfind(e.key() + ".", 0) == 0;
  return !e.key().empty() && on_path &&
         std::string(e.what()).find(": unknown key") != std::string::npos;
}

// What report.json holds for this testbench on this config, with every kernel present;
// block statistics are known only after a run.
Json report_skeleton(const PlatformConfig& config, const cfg::Node& tb_root,
                     const std::string& tb_file) {
  RunReport r;
  r.effective_config = config.effective;
  for (const auto& k : read_testbench(tb_root, tb_file).kernels) {
    LaunchRecord record;
    record.kernel = k.desc.name;
    r.launches.push_back(record);
  }
  for (const auto& block : block_names())
    r.blocks.push_back(StatGroup{block, {}});
  if (config.energy_enabled)
    for (const auto& block : energy_block_names(config))
      r.energy.push_back(BlockEnergy{block, {}});
  Json j = to_json(r);
  j["events"] = Json::array();
  return j;
}

// True for the sections whose children are blocks, known by name only after a run.
bool by_block(const std::vector<std::string>& walked) {
  return walked.size() == 1 && (walked[0] == "blocks" || walked[0] == "utilisation");
}

// A block instance ("compute.unit0", "icache.l2") is a configured block or one of its parts.
bool is_block(const std::string& name) {
  for (const auto& block : block_names())
    if (name == block || name.rfind(block + ".", 0) == 0)
      return true;
  return false;
}

// Checks a metric path against a report skeleton; returns the problem, or nullopt. Keys
// may hold dots: an unquoted path takes the longest key that matches, as value_at does.
std::optional<std::string> check_metric(const Json& skeleton, const std::string& path) {
  const std::vector<PathPart> parts = split_metric_path(path);
  const Json* node = &skeleton;
  std::vector<std::string> walked;
  std::string name = "report.json";
  for (size_t i = 0; i < parts.size();) {
    // Lists (events), blocks and units are only known once a point has run.
    if (node->is_array() || (walked.size() == 1 && walked[0] == "stat_units"))
      return std::nullopt;
    // A block's energy parts ("mac_int8") are known only once a point has run.
    if (walked.size() == 3 && walked[0] == "energy" && walked[1] == "parts")
      return std::nullopt;
    if (!node->is_object())
      return name + " is a value; it has no '" + parts[i].text + "'";
    const auto candidates = key_candidates(parts, i);
    if (by_block(walked)) {
      // A block instance followed by a statistic will do; the statistics come later.
      bool block_alone = false;
      for (const auto& [key, next] : candidates)
        if (is_block(key)) {
          if (next < parts.size())
            return std::nullopt;
          block_alone = true;
        }
      if (block_alone)
        return "'" + walked[0] + "." + parts[i].text +
               "' is a block; expected one of its statistics after it";
      // The hint quotes the metric's own parts, never a name it does not hold.
      const bool dotted = !parts[i].quoted && i + 1 < parts.size() && !parts[i + 1].quoted;
      return unknown(name, parts[i].text, block_names()) +
             (dotted ? " (a block with a dot in its name goes in quotes: \"" + parts[i].text + "." +
                           parts[i + 1].text + "\")"
                     : "");
    }
    const auto found = std::find_if(candidates.begin(), candidates.end(),
                                    [&](const auto& c) { return node->contains(c.first); });
    if (found == candidates.end())
      return unknown(name, parts[i].text, keys_of(*node));
    node = &(*node)[found->first];
    walked.push_back(found->first);
    name = "'" + fmt::format("{}", fmt::join(walked, ".")) + "'";
    i = found->second;
  }
  if (by_block(walked))
    return name + " is a section; expected a block and one of its statistics after it (" +
           walked[0] + ".BLOCK.STATISTIC, a block with a dot in its name in double quotes)";
  if (node->is_object())
    return name + " is a section; expected one of its values: " +
           fmt::format("{}", fmt::join(keys_of(*node), ", "));
  return std::nullopt;
}

// The sweep's config and testbenches as read, before any setting.
Base load_base(const Spec& spec) {
  Base base;
  base.config = load_named(spec.config, spec.config_loc, "config",
                           [&] { return cfg::load_with_extends(spec.config); });
  for (size_t i = 0; i < spec.testbenches.size(); ++i) {
    base.testbenches.push_back(
        load_named(spec.testbenches[i], spec.testbench_locs[i], "testbench",
                   [&] { return cfg::parse_yaml_file(spec.testbenches[i]); }));
    read_testbench(base.testbenches[i], spec.testbenches[i]);
  }
  return base;
}

// The `set:` overrides of every point, as --set and --tb-set arguments.
struct FixedSets {
  std::vector<std::string> config, testbench;
};

// Fixed overrides change the base of every point, so a problem with one is the sweep's.
FixedSets apply_fixed(const Spec& spec, Base& base) {
  FixedSets fixed;
  for (const auto& f : spec.fixed) {
    (f.on_testbench() ? fixed.testbench : fixed.config)
        .push_back(target_key(f.key) + "=" + f.value);
    try {
      for (size_t tb = 0; tb < base.testbenches.size(); ++tb) {
        if (f.on_testbench())
          check_testbench_path(base.testbenches[tb], f.key, f.loc, "set." + f.key);
        load_point(base, tb, spec.testbenches[tb], spec.config, fixed.config, fixed.testbench);
      }
    } catch (const InputError& e) {
      throw InputError(f.loc, "set." + f.key, bare_message(e));
    }
  }
  for (const auto& s : fixed.config)
    cfg::apply_override(base.config, s);
  for (auto& tb_root : base.testbenches)
    for (const auto& s : fixed.testbench)
      cfg::apply_override(tb_root, s, "--tb-set");
  return fixed;
}

// A key that names nothing fails every point: report it at its place in the sweep file.
void check_parameter_keys(const Spec& spec, const Base& base) {
  for (const auto& p : spec.parameters) {
    const std::vector<std::pair<std::string, std::string>> first = p.settings(0);
    for (size_t k = 0; k < first.size(); ++k) {
      const auto& [key, value] = first[k];
      const std::string where = p.where(k);
      const bool on_tb = is_testbench_key(key);
      const std::string set = target_key(key) + "=" + value;
      for (size_t tb = 0; tb < base.testbenches.size(); ++tb) {
        if (on_tb)
          check_testbench_path(base.testbenches[tb], key, p.key_loc(k), where);
        try {
          load_point(base, tb, spec.testbenches[tb], spec.config,
                     on_tb ? std::vector<std::string>{} : std::vector{set},
                     on_tb ? std::vector{set} : std::vector<std::string>{});
        } catch (const InputError& e) {
          if (is_unknown_key(e, target_key(key)))
            throw InputError(p.key_loc(k), where,
                             "not a key of the " + std::string(on_tb ? "testbench" : "config") +
                                 ": " + e.key() + ": " + bare_message(e));
        }
      }
    }
  }
}

// Metrics must name something report.json has, for at least one testbench.
void check_metrics(const Spec& spec, const Base& base) {
  const PlatformConfig base_config = read_platform_config(base.config, spec.config);
  std::vector<Json> skeletons;
  for (size_t tb = 0; tb < base.testbenches.size(); ++tb)
    skeletons.push_back(report_skeleton(base_config, base.testbenches[tb], spec.testbenches[tb]));
  for (const auto& m : spec.metrics) {
    std::optional<std::string> problem;
    for (const auto& skeleton : skeletons) {
      problem = check_metric(skeleton, m.path);
      if (!problem)
        break;
    }
    if (problem)
      throw InputError(m.loc, "metrics." + m.name, *problem);
  }
}

// One point: its parameters, the command line that runs it, and why it cannot run (if so).
PlannedPoint plan_point(const Spec& spec, const Base& base, const FixedSets& fixed,
                        const Point& point) {
  PlannedPoint pp;
  pp.index = point.index;
  pp.dir = point_dir(point.index);
  pp.testbench = spec.testbench_labels[point.testbench];
  std::vector<std::string> config_sets = fixed.config, tb_sets = fixed.testbench, own_config,
                           own_tb;
  for (size_t i = 0; i < spec.parameters.size(); ++i) {
    const Parameter& p = spec.parameters[i];
    pp.parameters.emplace_back(p.key, point.value(spec, i));
    for (const auto& [key, value] : p.settings(point.value_index[i])) {
      if (p.linked() && key != p.key)
        pp.parameters.emplace_back(key, value);
      (is_testbench_key(key) ? own_tb : own_config).push_back(target_key(key) + "=" + value);
    }
  }
  config_sets.insert(config_sets.end(), own_config.begin(), own_config.end());
  tb_sets.insert(tb_sets.end(), own_tb.begin(), own_tb.end());
  pp.args = {"run", "--config", spec.config, "--testbench", spec.testbenches[point.testbench]};
  for (const auto& s : config_sets)
    pp.args.insert(pp.args.end(), {"--set", s});
  for (const auto& s : tb_sets)
    pp.args.insert(pp.args.end(), {"--tb-set", s});
  try {
    load_point(base, point.testbench, spec.testbenches[point.testbench], spec.config, own_config,
               own_tb);
  } catch (const InputError& e) {
    pp.invalid = e.what();
  }
  return pp;
}

} // namespace

Plan make_plan(const Spec& spec, uint64_t timeout_ms) {
  Plan plan;
  plan.name = spec.name;
  plan.sweep_file = spec.file;
  plan.cwd = fs::current_path().string();
  plan.metrics = spec.metrics;
  plan.timeout_ms = timeout_ms;
  plan.fidelity = spec.fidelity;
  plan.objective = spec.objective;
  for (const auto& p : spec.parameters) {
    plan.parameter_keys.push_back(p.key);
    if (p.linked())
      plan.linked.emplace_back(p.key, p.linked_keys);
  }

  Base base = load_base(spec);
  const FixedSets fixed = apply_fixed(spec, base);
  check_parameter_keys(spec, base);
  check_metrics(spec, base);
  for (const Point& point : expand_points(spec))
    plan.points.push_back(plan_point(spec, base, fixed, point));
  return plan;
}

nlohmann::ordered_json metrics_json(const std::vector<Metric>& metrics) {
  Json list = Json::array();
  for (const auto& m : metrics)
    list.push_back({{"name", m.name}, {"path", m.path}});
  return list;
}

nlohmann::ordered_json
linked_json(const std::vector<std::pair<std::string, std::vector<std::string>>>& linked) {
  Json j = Json::object();
  for (const auto& [name, keys] : linked)
    j[name] = keys;
  return j;
}

nlohmann::ordered_json plan_to_json(const Plan& plan) {
  Json j;
  j["name"] = plan.name;
  j["sweep_file"] = plan.sweep_file;
  j["cwd"] = plan.cwd;
  j["parameters"] = plan.parameter_keys;
  j["linked"] = linked_json(plan.linked);
  j["metrics"] = metrics_json(plan.metrics);
  j["timeout_ms"] = plan.timeout_ms;
  j["fidelity"] = plan.fidelity;
  j["objective"] = {{"metric", plan.objective.column},
                    {"goal", plan.objective.maximize ? "max" : "min"}};
  Json points = Json::array();
  for (const auto& p : plan.points) {
    Json params = Json::object();
    for (const auto& [key, value] : p.parameters)
      params[key] = value;
    points.push_back({{"index", p.index},
                      {"dir", p.dir},
                      {"testbench", p.testbench},
                      {"parameters", std::move(params)},
                      {"args", p.args},
                      {"invalid", p.invalid}});
  }
  j["points"] = std::move(points);
  return j;
}

Plan plan_from_json(const nlohmann::ordered_json& j) {
  Plan plan;
  plan.name = j.at("name").get<std::string>();
  plan.sweep_file = j.at("sweep_file").get<std::string>();
  plan.cwd = j.at("cwd").get<std::string>();
  plan.parameter_keys = j.at("parameters").get<std::vector<std::string>>();
  if (j.contains("linked"))
    for (const auto& item : j.at("linked").items())
      plan.linked.emplace_back(item.key(), item.value().get<std::vector<std::string>>());
  for (const auto& m : j.at("metrics"))
    plan.metrics.push_back({m.at("name").get<std::string>(), m.at("path").get<std::string>(), {}});
  plan.timeout_ms = j.at("timeout_ms").get<uint64_t>();
  plan.fidelity = j.value("fidelity", std::string("cycle"));
  if (const auto it = j.find("objective"); it != j.end() && it->is_object()) {
    plan.objective.column = it->value("metric", std::string());
    plan.objective.maximize = it->value("goal", std::string("min")) == "max";
  }
  for (const auto& p : j.at("points")) {
    PlannedPoint pp;
    pp.index = p.at("index").get<size_t>();
    pp.dir = p.at("dir").get<std::string>();
    pp.testbench = p.at("testbench").get<std::string>();
    for (const auto& item : p.at("parameters").items())
      pp.parameters.emplace_back(item.key(), item.value().get<std::string>());
    pp.args = p.at("args").get<std::vector<std::string>>();
    pp.invalid = p.at("invalid").get<std::string>();
    plan.points.push_back(std::move(pp));
  }
  return plan;
}

} // namespace npu::sweep
