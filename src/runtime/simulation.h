#pragma once

#include "platform/platform_config.h"
#include "report/report.h"
#include "runtime/launch_collector.h"
#include "runtime/runtime.h"

#include <functional>
#include <memory>
#include <string>

namespace npu {

class Platform;
class ProgressLine;
class ProgressMonitor;
class Tracer;
class EnergyProbe;

/// One simulation: builds the platform from a config, runs a host program on the
/// host CPU model, and returns the report. SystemC allows one per simulation context (a
/// process that runs several gives each a FreshSimContext).
class Simulation {
public:
  explicit Simulation(const PlatformConfig& config);
  ~Simulation();

  Platform& platform() { return *m_platform; }
  Runtime& runtime() { return *m_runtime; }
  /// Reports what every block does to `tracer` during run() (null: tracing off).
  void set_tracer(Tracer* tracer);
  /// Asked about every quarter second of wall time while run() simulates: a non-empty
  /// answer ends the run with a SimulationError of that message (ProgressMonitor::set_watch).
  void set_watch(std::function<std::string()> watch);

  /// Runs `program` in the host thread until it and all device work finished.
  /// A deadlock, an invalid device access, the simulated-time limit or simulated time
  /// standing still (ProgressMonitor) throws SimulationError.
  RunReport run(const std::function<void(Runtime&)>& program);

  /// Shows the progress line on a terminal while run() lasts (see ProgressLine):
  /// launches issued of `total_launches` (0: not known), simulated and wall-clock time.
  void show_progress(uint64_t total_launches);

  /// Hands every launch record to `sink` once the launch completed, in launch-id order,
  /// and keeps only the compact table: the report's `launches` stay empty.
  void stream_launches(std::function<void(const LaunchRecord&)> sink);

private:
  /// What the host and the hardware queues wait for, for error messages.
  std::string describe_waits() const;

  std::unique_ptr<Platform> m_platform;
  std::unique_ptr<Runtime> m_runtime;
  LaunchCollector m_launches; ///< builds the launch records from the blocks' events
  std::unique_ptr<ProgressMonitor> m_monitor;
  std::unique_ptr<EnergyProbe> m_probe; ///< the trace's view of the blocks' energy
  std::unique_ptr<ProgressLine> m_progress;
  LaunchTable m_table;
};

} // namespace npu
