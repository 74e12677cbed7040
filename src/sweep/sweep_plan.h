#pragma once

#include "sweep/sweep_spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

// A sweep turned into concrete `npusim run` command lines, one per point, after every
// point was checked against the config and testbench schemas. The plan is written to
// DIR/plan.json, so that Slurm tasks and `npusim sweep collect` need only DIR.
namespace npu::sweep {

struct PlannedPoint {
  size_t index = 0;
  std::string dir;       ///< relative to the sweep's output directory: "points/0007"
  std::string testbench; ///< as written in the sweep file
  /// Column, value: each parameter (a linked group: its label, then each of its keys).
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<std::string> args; ///< npusim's arguments, `run ...` without --out
  std::string invalid;           ///< why the point was rejected before running; "" if valid
};

struct Plan {
  std::string name;
  std::string sweep_file;
  std::string cwd;                         ///< where the command lines' relative paths start
  std::vector<std::string> parameter_keys; ///< one per axis: a key or a linked group's name
  /// Each linked group's name and keys (their own columns after the group's).
  std::vector<std::pair<std::string, std::vector<std::string>>> linked;
  std::vector<Metric> metrics;
  uint64_t timeout_ms = 0;        ///< per point; 0: none
  std::string fidelity = "cycle"; ///< the sweep's `fidelity:`
  Objective objective;            ///< the sweep's `objective:` (no column: simulated time)
  std::vector<PlannedPoint> points;
};

/// Checks the sweep against its config and testbenches and builds the plan. A problem
/// that concerns every point (a missing file, an unknown key, a metric the report
/// cannot have) throws InputError at its place in the sweep file; a value that only
/// some points take makes those points invalid.
Plan make_plan(const Spec& spec, uint64_t timeout_ms);

/// The message of an InputError without its position and key.
std::string bare_message(const InputError& error);

/// Folder of point `index`: "points/0007" (at least four digits).
std::string point_dir(size_t index);

/// The metrics as a JSON list of {name, path}.
nlohmann::ordered_json metrics_json(const std::vector<Metric>& metrics);

/// The linked groups as a JSON object of name: [keys].
nlohmann::ordered_json
linked_json(const std::vector<std::pair<std::string, std::vector<std::string>>>& linked);

nlohmann::ordered_json plan_to_json(const Plan& plan);
Plan plan_from_json(const nlohmann::ordered_json& json);

} // namespace npu::sweep
