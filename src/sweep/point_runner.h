#pragma once

#include "sweep/sweep_plan.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

// Runs sweep points as child processes of the npusim binary, so that a crash of one
// point cannot take the sweep down. Each point works in DIR/points/NNNN.partial and is
// renamed to DIR/points/NNNN when it has finished: a point folder is complete or absent.
namespace npu::sweep {

/// How a point ended.
struct PointResult {
  std::string status; ///< ok, failed, crashed, timeout or invalid
  std::string error;  ///< "" when ok
  int exit_code = 0;  ///< the child's exit code; minus the signal number when killed
  double wall_s = 0;  ///< wall-clock seconds of the child
};

/// The finished result of `point` in `out_dir`, if one exists for the same command line.
std::optional<PointResult> read_result(const std::filesystem::path& out_dir,
                                       const PlannedPoint& point);

/// A point whose `npusim run` finished (its report.json is in place) while the sweep was
/// stopped before recording it: records it as `ok` and returns true.
bool salvage_finished_run(const std::filesystem::path& out_dir, const PlannedPoint& point);

/// Publishes the result of a point that was rejected before running.
void write_invalid_result(const std::filesystem::path& out_dir, const PlannedPoint& point);

struct RunnerOptions {
  std::string exe;         ///< the npusim binary
  int jobs = 1;            ///< children at once
  uint64_t timeout_ms = 0; ///< per point; 0: none
};

/// Runs the points `todo` (indices into plan.points) with up to `jobs` children at
/// once, calling `on_done` after each point's folder is published and `on_tick`
/// at least every quarter second. Returns 0 when every point ran, or the signal (SIGINT,
/// SIGTERM, SIGHUP) that interrupted it: the running children are then stopped (SIGTERM,
/// SIGKILL after a grace period or a second signal) and their folders dropped.
int run_points(const std::filesystem::path& out_dir, const Plan& plan,
               const std::vector<size_t>& todo, const RunnerOptions& options,
               const std::function<void(const PlannedPoint&, const PointResult&)>& on_done,
               const std::function<void()>& on_tick);

/// What a helper command (sbatch, squeue) printed.
struct Captured {
  int exit_code = -1; ///< -1 when it could not start or was killed
  bool timed_out = false;
  std::string out;
  std::string err;
};

/// Runs `argv` (argv[0] found on PATH), killing it after `timeout_ms`.
Captured run_capture(const std::vector<std::string>& argv, uint64_t timeout_ms);

/// The npusim binary that is running.
std::string self_exe();

} // namespace npu::sweep
