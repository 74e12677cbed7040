#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

struct LaunchRecord;

/// The tracks of a timeline trace. Queue, unit and DMA-channel tracks are numbered.
enum class TraceTrack : uint8_t { Host, Driver, Queue, Unit, DmaChannel };

/// Each block's energy so far, for a trace's power track (the platform gives one).
class EnergyProbe {
public:
  virtual ~EnergyProbe() = default;
  /// The current simulated time.
  virtual uint64_t now_ps() const = 0;
  /// The blocks' names, in the order of energy_pj().
  virtual const std::vector<std::string>& blocks() const = 0;
  /// Each block's energy over [0, at_ps] in pJ. Mid-run (`settled` false) it is what
  /// the blocks have counted so far, never more than they will count by then, and
  /// looking changes nothing in the run; once the run is over (`settled`), the
  /// figures of the report.
  virtual void energy_pj(uint64_t at_ps, bool settled, std::vector<double>& out) const = 0;
};

/// What the blocks report to a timeline trace, as they run; times in simulated ps.
/// Blocks hold a pointer that is null when tracing is off, so a hook costs one test.
/// A hook's `launch_id` ties its event to a launch, so it is left out with that
/// launch (trace caps and sampling); kNoLaunch for events of no launch.
class Tracer {
public:
  static constexpr int64_t kNoLaunch = -1;

  virtual ~Tracer() = default;

  /// Where the trace may read energy from (null: energy accounting is off).
  virtual void set_energy_probe(const EnergyProbe* probe) { (void)probe; }

  /// Whether events of `launch_id` are traced.
  virtual bool wants(int64_t launch_id) const = 0;
  /// One slice on a track (`index`: queue, unit or channel number; 0 for host and driver).
  /// Slices on one track nest or follow each other; they never partly overlap.
  virtual void slice(TraceTrack track, uint32_t index, std::string_view name, uint64_t begin_ps,
                     uint64_t end_ps, int64_t launch_id) = 0;
  /// The host thread's call that launched `record` ran from t0 to `end_ps` (host time).
  virtual void launch_call(const LaunchRecord& record, uint64_t end_ps) = 0;
  /// A launch submitted in a command list whose call the host track shows already.
  virtual void launch_flow(const LaunchRecord& record) = 0;
  /// `unit` ran its part of a launch: assigned at `assigned_ps`, instructions resident at
  /// `resident_ps`, finished at `finished_ps`.
  virtual void unit_run(uint64_t launch_id, std::string_view kernel, uint32_t unit,
                        uint64_t assigned_ps, uint64_t resident_ps, uint64_t finished_ps) = 0;
  /// The host learnt that `record` completed (its Learnt instant is set).
  virtual void launch_done(const LaunchRecord& record) = 0;
  /// DDR finished moving `bytes` at `at_ps` (called in time order).
  virtual void ddr_bytes(uint64_t at_ps, uint64_t bytes) = 0;
  /// `unit`'s instruction cache missed `lines` lines at `at_ps` (in time order per unit).
  virtual void icache_misses(uint32_t unit, uint64_t at_ps, uint64_t lines) = 0;
};

} // namespace npu
