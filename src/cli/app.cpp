#include "cli/app.h"

#include "common/error.h"
#include "common/memory_guard.h"
#include "report/report.h"
#include "runtime/simulation.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

namespace npu {

int run_program(const RunOptions& options, const HostProgram& program) {
  try {
    std::vector<std::string> overrides = options.overrides;
    for (const std::string& o : options.limits.overrides())
      overrides.push_back(o);
    const PlatformConfig config = load_platform_config(options.config_path, overrides);
    if (program.check)
      program.check(config);
    Simulation sim(config);
    RunReport report;
    {
      const MemoryGuard guard(config.limits.memory_bytes,
                              memory_limit_message(config.limits.memory_bytes));
      report = sim.run(program.body);
    }
    report.testbench_name = program.name;
    report.testbench_file = program.file;
    if (!options.out_dir.empty())
      write_output_dir(options.out_dir, report);
    print_summary(std::cout, report);
    if (report.leaks.buffers > 0) {
      // A leak is the program's bug, not a failed run: warn, exit 0.
      std::cerr << "npusim: warning: " << report.leaks.buffers << " buffer"
                << (report.leaks.buffers == 1 ? "" : "s") << " (" << report.leaks.bytes
                << " bytes) not freed by the host program:";
      constexpr size_t kNamed = 10;
      const auto& list = report.leaks.list;
      for (size_t i = 0; i < std::min(list.size(), kNamed); ++i)
        std::cerr << (i ? ", " : " ") << list[i];
      if (list.size() > kNamed)
        std::cerr << " and " << list.size() - kNamed << " more";
      std::cerr << "\n";
    }
    return kExitOk;
  } catch (const InputError& e) {
    std::cerr << "npusim: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const SimulationError& e) {
    std::cerr << "npusim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "npusim: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

int run_cpp_testbench(int argc, char** argv, const std::string& name,
                      const std::function<void(Runtime&)>& body,
                      const std::function<void(CLI::App&)>& add_options) {
  CLI::App app{name + ": a C++ host program on the npusim platform"};
  RunOptions options;
  options.config_path = "configs/edge-npu.yaml";
  app.add_option("--config", options.config_path, "hardware configuration (YAML)");
  app.add_option("--set", options.overrides, "override a config key: key.path=value")
      ->allow_extra_args(false);
  app.add_option("--out", options.out_dir, "write report.json and launches.csv here");
  options.limits.add_to(app);
  if (add_options)
    add_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  HostProgram program{name, argv[0], body, {}};
  return run_program(options, program);
}

} // namespace npu
