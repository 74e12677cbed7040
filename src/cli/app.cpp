#include "cli/app.h"

#include "common/error.h"
#include "report/report.h"
#include "report/trace_writer.h"
#include "runtime/simulation.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

namespace npu {

int run_program(const RunOptions& options, const HostProgram& program) {
  try {
    const PlatformConfig config = load_platform_config(options.config_path, options.overrides);
    if (program.check)
      program.check(config);
    // The writer outlives the simulation whose blocks hold a pointer to it.
    std::unique_ptr<ChromeTraceWriter> trace;
    if (!options.trace_path.empty()) {
      TraceOptions trace_options;
      trace_options.path = options.trace_path;
      trace_options.limit = options.trace_limit;
      trace_options.sample = options.trace_sample;
      trace = std::make_unique<ChromeTraceWriter>(
          trace_options,
          TraceLayout{config.scheduler.hw_queues, config.compute.units, config.dma.channels});
    }
    Simulation sim(config);
    sim.set_tracer(trace.get());
    RunReport report = sim.run(program.body);
    report.testbench_name = program.name;
    report.testbench_file = program.file;
    if (!options.out_dir.empty())
      write_output_dir(options.out_dir, report);
    if (trace) // renamed into place only now: a failed run leaves no trace file
      trace->commit();
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

void add_trace_options(CLI::App& app, RunOptions& options) {
  CLI::Option* trace =
      app.add_option("--trace", options.trace_path,
                     "write a Chrome trace-event JSON timeline (ui.perfetto.dev) to FILE")
          ->type_name("FILE");
  app.add_option("--trace-limit", options.trace_limit, "trace only the first N launches")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->needs(trace);
  app.add_option("--trace-sample", options.trace_sample,
                 "trace every K-th launch (launch ids 0, K, 2K, ...)")
      ->type_name("K")
      ->check(CLI::PositiveNumber)
      ->needs(trace);
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
  add_trace_options(app, options);
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
