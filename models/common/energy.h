#pragma once

#include <string>
#include <utility>
#include <vector>

namespace npu {

/// One named part of a block's energy over a run, in picojoules (e.g. the DRAM's
/// "activate" or a compute unit's "mac").
struct EnergyPart {
  std::string name;
  double pj = 0;
};

/// A block's energy over a run, split into parts that add up to its total.
struct BlockEnergy {
  std::string block;
  std::vector<EnergyPart> parts;

  void add(std::string name, double pj) { parts.push_back({std::move(name), pj}); }
  double total_pj() const {
    double sum = 0;
    for (const EnergyPart& p : parts)
      sum += p.pj;
    return sum;
  }
};

} // namespace npu
