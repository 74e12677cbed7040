#pragma once

#include "sweep/slurm_launcher.h"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace npu::sweep {

/// `npusim sweep FILE --out DIR ...`, `npusim sweep collect DIR` and the Slurm tasks'
/// `npusim sweep worker DIR --chunk K`.
class SweepCommand {
public:
  /// Registers the subcommands on `app`.
  explicit SweepCommand(CLI::App& app);

  /// True when the parsed command line chose `sweep`.
  bool selected() const { return m_sweep->parsed(); }
  /// Runs the chosen command; returns the exit code.
  int run();

private:
  int run_sweep();
  /// Checks the options that only one launcher takes and reads the durations; returns the
  /// timeout of one point in milliseconds (0: none).
  uint64_t check_sweep_options();
  int run_collect();
  int run_worker();

  CLI::App* m_sweep;
  CLI::App* m_collect;
  CLI::App* m_worker;
  std::string m_file;
  std::string m_out_dir;
  int m_jobs = 0;
  std::string m_timeout;
  bool m_retry_failed = false;
  std::string m_launcher = "local";
  SlurmOptions m_slurm;
  std::string m_poll = "5s";
  bool m_no_wait = false;
  size_t m_confirm = 0; ///< --confirm N: rerun the N best points at fidelity cycle
  std::string m_dir;    ///< collect, worker
  size_t m_chunk = 0;
};

/// Test hooks of `npusim run`, read from the environment: NPUSIM_TEST_RUN_LOG=FILE
/// appends "start OUT" before the run and "done OUT CODE" after it;
/// NPUSIM_TEST_ABORT_ON_SET=KEY=VALUE makes the run abort (a crash) when one of its
/// --set options is exactly KEY=VALUE.
void run_hook_start(const std::vector<std::string>& sets, const std::string& out_dir);
void run_hook_end(const std::string& out_dir, int exit_code);

} // namespace npu::sweep
