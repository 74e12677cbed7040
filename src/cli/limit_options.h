#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// --max-sim-time and --max-memory: the command line's way to set the config's `limits`.
struct LimitOptions {
  std::string max_sim_time; ///< empty: the config's limits.sim_time
  std::string max_memory;   ///< empty: the config's limits.memory

  /// Registers --max-sim-time (when `sim_time`) and --max-memory on `app`.
  void add_to(CLI::App& app, bool sim_time = true);
  /// The options as `--set` overrides, after checking their values (InputError naming the
  /// option when one is malformed).
  std::vector<std::string> overrides() const;
};

/// The one line printed when the simulator's memory passes `limit_bytes`.
std::string memory_limit_message(uint64_t limit_bytes);

} // namespace npu
