#pragma once

#include "models/common/energy.h"
#include "models/common/stats.h"
#include "models/common/trace.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace npu {

/// Where the blocks put their statistics for the report, one group at a time, in the
/// platform's order.
class StatSink {
public:
  void add(StatGroup group) { m_groups.push_back(std::move(group)); }
  std::vector<StatGroup> take() { return std::move(m_groups); }

private:
  std::vector<StatGroup> m_groups;
};

/// Where the blocks put their energy, in the platform's order. Energy of a block name
/// already there adds to its parts of the same name (new parts are appended): the compute
/// units, or the per-unit instruction caches, make one entry each.
class EnergySink {
public:
  void add(const BlockEnergy& energy) {
    auto into = std::find_if(m_blocks.begin(), m_blocks.end(),
                             [&](const BlockEnergy& b) { return b.block == energy.block; });
    if (into == m_blocks.end()) {
      m_blocks.push_back({energy.block, {}});
      into = m_blocks.end() - 1;
    }
    for (const EnergyPart& p : energy.parts) {
      auto it = std::find_if(into->parts.begin(), into->parts.end(),
                             [&](const EnergyPart& q) { return q.name == p.name; });
      if (it == into->parts.end())
        into->parts.push_back(p);
      else
        it->pj += p.pj;
    }
  }
  std::vector<BlockEnergy> take() { return std::move(m_blocks); }

private:
  std::vector<BlockEnergy> m_blocks;
};

/// What every block of the platform offers the report and the trace, so that the platform
/// loops over its blocks. A block without statistics, energy or trace events keeps the
/// default, which adds nothing.
class Block {
public:
  virtual ~Block() = default;
  /// Adds the block's statistics over a run of `simulated_ps` to `sink`.
  virtual void report_stats(StatSink& sink, uint64_t simulated_ps) const {
    (void)sink;
    (void)simulated_ps;
  }
  /// Adds the block's energy over [0, simulated_ps] to `sink`. `settled`: the run is over
  /// and the block may bring its state up to date first; mid-run (a trace's power track)
  /// it gives what it has counted so far and changes nothing.
  virtual void report_energy(EnergySink& sink, uint64_t simulated_ps, bool settled) const {
    (void)sink;
    (void)simulated_ps;
    (void)settled;
  }
  /// Reports what the block does to `tracer` (null: tracing off).
  virtual void set_tracer(Tracer* tracer) { (void)tracer; }
};

} // namespace npu
