#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

// Runs a sweep's points as a Slurm job array: one array task per chunk of points, each
// task running `npusim sweep worker DIR --chunk K`. The tasks publish point folders
// exactly as a local run does, so the merged results are the same.
namespace npu::sweep {

struct SlurmOptions {
  std::string partition;                ///< "" : the cluster's default
  std::string time_limit;               ///< per array task, in sbatch's format; "" : default
  std::vector<std::string> sbatch_args; ///< passed to sbatch as they are
  size_t points_per_task = 0;           ///< 0: enough for at most 100 tasks
  uint64_t poll_ms = 5000;              ///< how often to ask squeue while waiting
};

/// Splits `todo` (point indices) into chunks of `points_per_task` (0: at most 100 chunks).
std::vector<std::vector<size_t>> make_chunks(const std::vector<size_t>& todo,
                                             size_t points_per_task);

/// The job-array script for `chunks`, running `exe` on `out_dir` (both absolute) from `cwd`.
std::string job_script(const std::string& name, const std::string& exe,
                       const std::filesystem::path& out_dir, const std::string& cwd, size_t chunks,
                       const SlurmOptions& options);

/// Writes DIR/slurm/chunks.json and DIR/slurm/sweep.sbatch, submits the script with
/// sbatch and returns the job id. Throws std::runtime_error with sbatch's message.
std::string submit_job(const std::filesystem::path& out_dir, const std::string& name,
                       const std::string& cwd, const std::vector<std::vector<size_t>>& chunks,
                       const SlurmOptions& options);

/// Polls squeue until the job has left the queue, calling `on_poll` after each poll.
void wait_for_job(const std::string& job_id, uint64_t poll_ms,
                  const std::function<void()>& on_poll);

/// The points of chunk `chunk` of DIR's job (read from DIR/slurm/chunks.json).
std::vector<size_t> read_chunk(const std::filesystem::path& out_dir, size_t chunk);

} // namespace npu::sweep
