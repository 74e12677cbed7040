#pragma once

#include "common/error.h"
#include "config/node.h"

#include <cstddef>
#include <string>
#include <vector>

// The sweep file: what to vary, on which config and testbenches, and what to collect.
// Plain logic (no SystemC, no processes), so it is unit-tested alone.
namespace npu::sweep {

/// Parameters whose key starts with this prefix override the testbench, not the config.
inline constexpr const char* kTestbenchPrefix = "testbench.";

/// One key to vary and the values it takes, in order.
struct Parameter {
  std::string key;                 ///< "icache.size" or "testbench.kernels.k.binary"
  SourceLoc loc;                   ///< of the key in the sweep file
  std::vector<std::string> values; ///< as passed to --set (lists: as written)
  std::vector<SourceLoc> value_locs;

  bool on_testbench() const;
  /// The key inside its file: "icache.size", or "kernels.k.binary" for a testbench key.
  std::string target_key() const;
};

/// A fixed override of every point (`set:` in the sweep file).
struct Fixed {
  std::string key;
  std::string value;
  SourceLoc loc;
};

/// A value of report.json to collect, under a column name.
struct Metric {
  std::string name; ///< column name
  std::string path; ///< dotted path into report.json
  SourceLoc loc;
};

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

/// Every point: testbenches outermost, then the parameters (grid: the last one varies
/// fastest; zip: the i-th values together).
std::vector<Point> expand_points(const Spec& spec);

} // namespace npu::sweep
