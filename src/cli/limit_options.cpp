#include "cli/limit_options.h"

#include "common/error.h"
#include "config/units.h"
#include "platform/platform_config.h"

#include <CLI/CLI.hpp>

#include <limits>
#include <optional>

namespace npu {

void LimitOptions::add_to(CLI::App& app, bool sim_time) {
  if (sim_time)
    app.add_option("--max-sim-time", max_sim_time,
                   "stop with an error when simulated time reaches this (default 10s)")
        ->type_name("DURATION");
  app.add_option("--max-memory", max_memory,
                 "stop with an error when the simulator's resident memory passes this (default "
                 "8GiB)")
      ->type_name("SIZE");
  app.add_option("--max-wall-time", max_wall_time,
                 "stop with an error when the run has taken this long in wall-clock time "
                 "(default 3600s)")
      ->type_name("DURATION");
}

namespace {

// Checks one option's value (parsed by `parse`, at least `min`) and adds it as an override
// of `key`; does nothing when the option was not given.
template <typename Parse, typename Format>
void add_override(std::vector<std::string>& out, const std::string& option,
                  const std::string& value, const std::string& key, uint64_t min, uint64_t max,
                  Parse parse, Format format) {
  if (value.empty())
    return;
  const SourceLoc loc{option + " " + value, 0, 0};
  std::string err;
  const std::optional<uint64_t> parsed = parse(value, &err);
  // Too large to parse at all is outside the range too: the message says the range.
  if (!parsed && err.find("is too large") != std::string::npos)
    throw InputError(loc, "",
                     "must be from " + format(min) + " to " + format(max) + ", got " + value);
  if (!parsed)
    throw InputError(loc, "", err);
  if (*parsed < min)
    throw InputError(loc, "", "must be at least " + format(min) + ", got " + value);
  if (*parsed > max)
    throw InputError(loc, "", "must be at most " + format(max) + ", got " + value);
  out.push_back(key + "=" + value);
}

} // namespace

std::vector<std::string> LimitOptions::overrides() const {
  std::vector<std::string> out;
  add_override(out, "--max-sim-time", max_sim_time, "limits.sim_time", SimLimits::kMinSimTimePs,
               SimLimits::kMaxSimTimePs, units::parse_time_ps, units::format_time_ps);
  add_override(out, "--max-memory", max_memory, "limits.memory", SimLimits::kMinMemoryBytes,
               std::numeric_limits<uint64_t>::max(), units::parse_bytes, units::format_bytes);
  add_override(out, "--max-wall-time", max_wall_time, "limits.wall_time", SimLimits::kMinWallTimePs,
               SimLimits::kMaxWallTimePs, units::parse_time_ps, units::format_time_ps);
  return out;
}

RunGuardLimits LimitOptions::guard_limits() const {
  SimLimits limits;
  std::string err;
  if (!max_memory.empty())
    limits.memory_bytes = units::parse_bytes(max_memory, &err).value_or(limits.memory_bytes);
  if (!max_wall_time.empty())
    limits.wall_time_ps = units::parse_time_ps(max_wall_time, &err).value_or(limits.wall_time_ps);
  return run_guard_limits(limits);
}

std::string memory_limit_message(uint64_t limit_bytes) {
  return "npusim: error: the simulator's memory use passed its limit of " +
         units::format_bytes(limit_bytes) +
         " (limits.memory); raise it with --max-memory if the run is meant to be this large";
}

std::string wall_time_limit_message(uint64_t limit_ps) {
  return "npusim: error: the run passed its wall-clock time limit of " +
         units::format_time_ps(limit_ps) +
         " (limits.wall_time); raise it with --max-wall-time if the run is meant to take this "
         "long";
}

RunGuardLimits run_guard_limits(const SimLimits& limits) {
  return {limits.memory_bytes, memory_limit_message(limits.memory_bytes), limits.wall_time_ps,
          wall_time_limit_message(limits.wall_time_ps)};
}

} // namespace npu
