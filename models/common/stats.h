#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// One named statistic with a unit and a description (collected into the report).
struct Stat {
  std::string name;
  double value = 0;
  std::string unit; ///< "count", "bytes", "ns", "ratio", "GB/s", ...
  std::string description;
};

/// The statistics of one block instance, e.g. "icache" or "compute.unit0".
struct StatGroup {
  std::string block;
  std::vector<Stat> stats;

  void add(std::string name, double value, std::string unit, std::string description) {
    stats.push_back({std::move(name), value, std::move(unit), std::move(description)});
  }
};

} // namespace npu
