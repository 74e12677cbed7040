#pragma once

#include "cli/limit_options.h"
#include "platform/platform_config.h"
#include "report/report.h"
#include "report/trace_writer.h"
#include "runtime/runtime.h"

#include <systemc>

#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npu {

/// Exit codes of every npusim command.
enum ExitCode { kExitOk = 0, kExitInternal = 1, kExitBadInput = 2 };

/// What `npusim run` and C++ testbenches share: a config, overrides, an output dir.
struct RunOptions {
  std::string config_path;                    ///< a path or a config's name (find_config)
  std::string package_dir;                    ///< NPU_PACKAGE_DATA_DIR of a host program
  std::vector<std::string> overrides;         ///< --set key.path=value
  std::string out_dir;                        ///< empty: no files
  SummaryFormat format = SummaryFormat::Text; ///< of the summary on stdout
  bool plots = false;                         ///< PNG plots into out_dir after the run
  SummaryOptions summary;                     ///< --layers, --detail, --tiling
  std::string trace_path;                     ///< --trace: Chrome trace JSON; empty: no trace
  uint64_t trace_limit = 0;                   ///< --trace-limit: first N launches (0: all)
  uint64_t trace_sample = 1;                  ///< --trace-sample: every K-th launch
  LimitOptions limits;                        ///< --max-sim-time, --max-memory (after --set)
  bool quiet = false;                         ///< --quiet: no progress line on the terminal
  uint64_t spent_ps = 0; ///< wall-clock time already spent (an import), within limits.wall_time
};

/// A host program and what it needs from the hardware.
struct HostProgram {
  std::string name;
  std::string file;
  std::function<void(Runtime&)> body;
  /// Validates the program against the config before anything runs (may be empty).
  std::function<void(const PlatformConfig&)> check;
  /// The testbench after --tb-set, as the report's `testbench` (null for C++ programs).
  nlohmann::ordered_json document;
  /// The launches the program makes, for the progress line (0: not known).
  uint64_t launches = 0;
};

/// Adds --quiet (no progress line) to a command.
void add_quiet_option(CLI::App& app, bool& quiet);

/// The Chrome trace writer of options.trace_path (--trace, --trace-limit, --trace-sample),
/// or null when no trace is asked for. Throws InputError for a path that cannot be written.
std::unique_ptr<ChromeTraceWriter> make_trace_writer(const RunOptions& options,
                                                     const PlatformConfig& config);

/// Runs one command; prints an InputError or a SimulationError as one "npusim: ..." line
/// and returns 2, and any other exception as an internal error (1).
int run_guarded(const std::function<int()>& command);

/// Loads the config, runs the program, prints the summary, writes the output
/// directory. Prints one "npusim: error: ..." line and returns 2 on bad input or
/// a workload that cannot finish, 1 on internal errors.
int run_program(const RunOptions& options, const HostProgram& program);

/// Runs scripts/plot_run.py (from NPUSIM_SCRIPTS, else the first of data_dirs(package_dir))
/// on an output directory (timeline, phase breakdown, phase histograms as PNG). Without
/// python3-matplotlib it says how to install it and returns 0; a failing script returns 1.
int make_plots(const std::string& dir, const std::string& package_dir = {});

/// Adds --config (default: the config named edge-npu), --set and --out to a C++
/// testbench's command line, then runs it. `add_options` may register the testbench's own
/// options before parsing; `package_dir` is NPU_PACKAGE_DATA_DIR, where configs are found
/// by name when the program was built against an installed npusim.
int run_cpp_testbench(int argc, char** argv, const std::string& name,
                      const std::function<void(Runtime&)>& body,
                      const std::function<void(CLI::App&)>& add_options = {},
                      const std::string& package_dir = {});

} // namespace npu

/// The share folder (configs/, scripts/) of the installed npusim package that this file is
/// compiled against: the imported target npusim::runtime defines NPUSIM_DATA_DIR. Empty in
/// npusim's own build tree, where the executable's place is enough.
#ifdef NPUSIM_DATA_DIR
#define NPU_PACKAGE_DATA_DIR NPUSIM_DATA_DIR
#else
#define NPU_PACKAGE_DATA_DIR ""
#endif

/// Defines main() and sc_main() for a C++ testbench whose host program is `body`
/// (a function taking npu::Runtime&).
#define NPU_TESTBENCH_MAIN(name, body)                                                             \
  int sc_main(int argc, char* argv[]) {                                                            \
    return npu::run_cpp_testbench(argc, argv, name, body, {}, NPU_PACKAGE_DATA_DIR);               \
  }                                                                                                \
  int main(int argc, char* argv[]) {                                                               \
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);                                           \
    return sc_core::sc_elab_and_sim(argc, argv);                                                   \
  }
