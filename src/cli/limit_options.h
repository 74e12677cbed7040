#pragma once

#include "common/run_guard.h"
#include "platform/platform_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
} // namespace CLI

namespace npu {

/// --max-sim-time, --max-memory and --max-wall-time: the command line's way to set the
/// config's `limits`.
struct LimitOptions {
  std::string max_sim_time;  ///< empty: the config's limits.sim_time
  std::string max_memory;    ///< empty: the config's limits.memory
  std::string max_wall_time; ///< empty: the config's limits.wall_time

  /// Registers --max-sim-time (when `sim_time`), --max-memory and --max-wall-time on `app`.
  void add_to(CLI::App& app, bool sim_time = true);
  /// The options as `--set` overrides, after checking their values (InputError naming the
  /// option when one is malformed).
  std::vector<std::string> overrides() const;
  /// What a RunGuard watches before a config is read (an import): the options given, the
  /// default limits for the others.
  RunGuardLimits guard_limits() const;
};

/// The one line printed when the simulator's memory passes `limit_bytes`.
std::string memory_limit_message(uint64_t limit_bytes);
/// The one line printed when a run's wall-clock time passes `limit_ps`.
std::string wall_time_limit_message(uint64_t limit_ps);
/// What a RunGuard watches for a config's limits: memory and wall-clock time.
RunGuardLimits run_guard_limits(const SimLimits& limits);

} // namespace npu
