#pragma once

#include "common/error.h"
#include "config/node.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

// The sweep file: what to vary, on which config and testbenches, and what to collect.
// Plain logic (no SystemC, no processes), so it is unit-tested alone.
namespace npu::sweep {

/// Parameters whose key starts with this prefix override the testbench, not the config.
inline constexpr const char* kTestbenchPrefix = "testbench.";

/// True for a key behind `testbench.`, which overrides the testbench.
bool is_testbench_key(const std::string& key);
/// The key inside its file: "icache.size", or "kernels.k.binary" for a testbench key.
std::string target_key(const std::string& key);

/// One axis of the sweep: a key and the values it takes, in order, or a linked group
/// of keys that take their i-th values together.
struct Parameter {
  std::string key;                 ///< "icache.size", "testbench.kernels.k.binary" or a group
  SourceLoc loc;                   ///< of the key in the sweep file
  std::vector<std::string> values; ///< as passed to --set (lists: as written); groups: labels
  std::vector<SourceLoc> value_locs;
  /// A linked group's keys and, per value, the value of each key; empty for one key.
  std::vector<std::string> linked_keys;
  std::vector<SourceLoc> linked_locs;
  std::vector<std::vector<std::string>> linked_values;

  bool linked() const { return !linked_keys.empty(); }
  /// The keys the parameter sets: its own, or the group's.
  std::vector<std::string> keys() const;
  /// Where key `k` (into keys()) is written in the sweep file.
  const SourceLoc& key_loc(size_t k) const;
  /// The name of key `k` in errors: "parameters.compute.array.rows" (a map-valued list)
  /// or "parameters.array.link.compute.array.rows" (a link group).
  std::string where(size_t k) const;
  /// `key=value` of every key at value `i`, as --set takes them.
  std::vector<std::pair<std::string, std::string>> settings(size_t i) const;
};

/// A fixed override of every point (`set:` in the sweep file).
struct Fixed {
  std::string key;
  std::string value;
  SourceLoc loc;

  bool on_testbench() const { return is_testbench_key(key); }
};

/// A value of report.json to collect, under a column name.
struct Metric {
  std::string name; ///< column name
  std::string path; ///< dotted path into report.json; "quoted" parts may hold dots
  SourceLoc loc;
};

/// One part of a metric path: a key as written, quoted or not.
struct PathPart {
  std::string text;
  bool quoted = false; ///< a "quoted" part names one key exactly, dots included
};

/// What `--confirm` ranks points by (`objective:`): a metric column, least first unless
/// `maximize`. No column: the simulated time, least first.
struct Objective {
  std::string column;
  bool maximize = false;
  SourceLoc loc;
};

/// The DRAM model every point runs at (`fidelity:`, ddr.model): cycle or transaction.
inline constexpr const char* kFidelityKey = "ddr.model";

struct Spec {
  std::string file;
  std::string name;
  std::string config; ///< resolved relative to the sweep file
  SourceLoc config_loc;
  std::vector<std::string> testbenches;      ///< resolved relative to the sweep file
  std::vector<std::string> testbench_labels; ///< as written in the sweep file
  std::vector<SourceLoc> testbench_locs;
  std::vector<Fixed> fixed;
  bool zip = false; ///< parameters advance together instead of as a grid
  std::vector<Parameter> parameters;
  std::vector<Metric> metrics;
  std::string fidelity = "cycle"; ///< `fidelity:`; transaction adds `set: {ddr.model: ...}`
  Objective objective;
};

/// One point of a sweep: a testbench and one value per parameter.
struct Point {
  size_t index = 0;
  size_t testbench = 0;            ///< into Spec::testbenches
  std::vector<size_t> value_index; ///< one per parameter, into Parameter::values

  const std::string& value(const Spec& spec, size_t parameter) const {
    return spec.parameters[parameter].values[value_index[parameter]];
  }
};

/// Most points one sweep may have, and most values one range may give.
inline constexpr size_t kMaxPoints = 100000;
inline constexpr size_t kMaxRangeValues = 10000;

/// Reads a parsed sweep file. Throws InputError with file, line, column and key.
Spec read_spec(const cfg::Node& root, const std::string& file);
Spec load_spec(const std::string& path);

/// The values of one parameter: a list, `{from, to, step}` or `{from, to, factor}`.
/// Ranges are inclusive and take the units of their bounds ("8KiB", "10ns", "1.5").
std::vector<std::string> expand_values(const cfg::Node& node, const std::string& key);

/// The parts of a dotted key or report path: "a.b.c" -> {a, b, c}.
std::vector<std::string> split_path(const std::string& path);

/// The parts of a metric path, where a part in double quotes may hold dots:
/// `blocks."compute.unit0".busy_ns` -> {blocks, compute.unit0 (quoted), busy_ns}.
/// Throws std::invalid_argument with the reason on an empty part or an open quote.
std::vector<PathPart> split_metric_path(const std::string& path);

/// The candidate keys at parts[at...] of a metric path, longest first: a quoted part
/// alone, or an unquoted part joined with the unquoted parts after it ("compute.unit0"
/// before "compute"). Each comes with the index of the part after it.
std::vector<std::pair<std::string, size_t>> key_candidates(const std::vector<PathPart>& parts,
                                                           size_t at);

/// Every point: testbenches outermost, then the parameters (grid: the last one varies
/// fastest; zip: the i-th values together).
std::vector<Point> expand_points(const Spec& spec);

} // namespace npu::sweep
