#pragma once

#include "cli/limit_options.h"
#include "platform/platform_config.h"
#include "runtime/runtime.h"

#include <CLI/CLI.hpp>
#include <systemc>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace npu {

/// Exit codes of every npusim command.
enum ExitCode { kExitOk = 0, kExitInternal = 1, kExitBadInput = 2 };

/// What `npusim run` and C++ testbenches share: a config, overrides, an output dir.
struct RunOptions {
  std::string config_path;
  std::vector<std::string> overrides; ///< --set key.path=value
  std::string out_dir;                ///< empty: no files
  LimitOptions limits;                ///< --max-sim-time, --max-memory (after --set)
};

/// A host program and what it needs from the hardware.
struct HostProgram {
  std::string name;
  std::string file;
  std::function<void(Runtime&)> body;
  /// Validates the program against the config before anything runs (may be empty).
  std::function<void(const PlatformConfig&)> check;
};

/// Loads the config, runs the program, prints the summary, writes the output
/// directory. Prints one "npusim: error: ..." line and returns 2 on bad input or
/// a workload that cannot finish, 1 on internal errors.
int run_program(const RunOptions& options, const HostProgram& program);

/// Adds --config, --set and --out to a C++ testbench's command line, then runs it.
/// `add_options` may register the testbench's own options before parsing.
int run_cpp_testbench(int argc, char** argv, const std::string& name,
                      const std::function<void(Runtime&)>& body,
                      const std::function<void(CLI::App&)>& add_options = {});

} // namespace npu

/// Defines main() and sc_main() for a C++ testbench whose host program is `body`
/// (a function taking npu::Runtime&).
#define NPU_TESTBENCH_MAIN(name, body)                                                             \
  int sc_main(int argc, char* argv[]) {                                                            \
    return npu::run_cpp_testbench(argc, argv, name, body);                                         \
  }                                                                                                \
  int main(int argc, char* argv[]) {                                                               \
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);                                           \
    return sc_core::sc_elab_and_sim(argc, argv);                                                   \
  }
