#include "cli/app.h"

#include "cli/command_line.h"
#include "common/data_dirs.h"
#include "common/error.h"
#include "common/escape.h"
#include "common/interrupt.h"
#include "common/process.h"
#include "common/run_guard.h"
#include "platform/config_lookup.h"
#include "report/report.h"
#include "report/trace_writer.h"
#include "runtime/simulation.h"

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npu {

int run_guarded(const std::function<int()>& command) {
  try {
    return command();
  } catch (const InputError& e) {
    // Names from the inputs are escaped: one line, nothing that acts on the terminal.
    std::cerr << "npusim: " << escape(e.what()) << "\n";
    return kExitBadInput;
  } catch (const SimulationError& e) {
    std::cerr << "npusim: error: " << escape(e.what()) << "\n";
    return kExitBadInput;
  } catch (const OutputError& e) {
    std::cerr << "npusim: error: " << escape(e.what()) << "\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "npusim: internal error: " << escape(e.what()) << "\n";
    return kExitInternal;
  }
}

std::unique_ptr<ChromeTraceWriter> make_trace_writer(const RunOptions& options,
                                                     const PlatformConfig& config) {
  if (options.trace_path.empty())
    return nullptr;
  TraceOptions trace_options;
  trace_options.path = options.trace_path;
  trace_options.limit = options.trace_limit;
  trace_options.sample = options.trace_sample;
  return std::make_unique<ChromeTraceWriter>(
      trace_options,
      TraceLayout{config.scheduler.hw_queues, config.compute.units, config.dma.channels});
}

int run_program(const RunOptions& options, const HostProgram& program) {
  return run_guarded([&] {
    std::vector<std::string> overrides = options.overrides;
    for (const std::string& o : options.limits.overrides())
      overrides.push_back(o);
    const PlatformConfig config =
        load_platform_config(find_config(options.config_path, options.package_dir), overrides);
    // From here on the limits hold: checking the program and building the platform count
    // against the wall-clock time too.
    SimLimits limits = config.limits;
    limits.wall_time_ps -= std::min(options.spent_ps, limits.wall_time_ps - 1);
    std::optional<RunGuard> guard(std::in_place, run_guard_limits(limits));
    if (program.check)
      program.check(config);
    // The writer outlives the simulation whose blocks hold a pointer to it.
    const std::unique_ptr<ChromeTraceWriter> trace = make_trace_writer(options, config);
    Simulation sim(config);
    sim.set_tracer(trace.get());
    if (!options.quiet)
      sim.show_progress(program.launches);
    // Launch records stream into launches.csv while the run lasts; only the compact
    // table stays in memory.
    std::optional<OutputDir> out;
    if (!options.out_dir.empty()) {
      std::vector<std::string> names = OutputDir::kFiles;
      if (options.plots) // scripts/plot_run.py writes these
        for (const char* plot : {"timeline.png", "phases.png", "histograms.png", "roofline.png"})
          names.emplace_back(plot);
      out.emplace(options.out_dir, names);
      std::ostream& csv = out->stream("launches.csv");
      write_launches_csv_header(csv);
      sim.stream_launches([&csv](const LaunchRecord& r) { write_launches_csv_row(csv, r); });
    }
    RunReport report = sim.run(program.body);
    guard.reset(); // outputs are written only once nothing can stop the process any more
    report.testbench_name = program.name;
    report.testbench_file = program.file;
    report.testbench = program.document;
    const nlohmann::ordered_json document = to_json(report);
    {
      // Both outputs or neither: a signal that arrives now waits until both are in place.
      const auto publishing = lock_temp_outputs();
      if (out) {
        out->write("report.json", dump_report(document));
        out->write("layers.csv", layers_csv(document));
        out->commit();
      }
      if (trace) // renamed into place only now: a failed run leaves no trace file
        trace->commit(report.simulated_ps);
    }
    print_summary(std::cout, document, options.format, options.summary);
    if (report.leaks.buffers > 0) {
      // A leak is the program's bug, not a failed run: warn, exit 0.
      std::cerr << "npusim: warning: " << report.leaks.buffers << " buffer"
                << (report.leaks.buffers == 1 ? "" : "s") << " (" << report.leaks.bytes
                << " bytes) not freed by the host program:";
      constexpr size_t kNamed = 10;
      const auto& list = report.leaks.list;
      for (size_t i = 0; i < std::min(list.size(), kNamed); ++i)
        std::cerr << (i ? ", " : " ") << escape(list[i]);
      if (list.size() > kNamed)
        std::cerr << " and " << list.size() - kNamed << " more";
      std::cerr << "\n";
    }
    if (options.plots && out)
      return make_plots(out->path(), options.package_dir);
    return static_cast<int>(kExitOk);
  });
}

namespace {

// The interpreter that has Debian's python3-matplotlib: NPUSIM_PYTHON, else the
// system's /usr/bin/python3 (a python3 first on PATH, such as a pyenv shim, may lack it).
std::string python_interpreter() {
  if (const char* env = std::getenv("NPUSIM_PYTHON"); env != nullptr && *env != '\0')
    return env;
  return "/usr/bin/python3";
}

// NPUSIM_SCRIPTS, else scripts/ of the installed share folder or the source tree.
std::string scripts_dir(const std::string& package_dir) {
  if (const char* env = std::getenv("NPUSIM_SCRIPTS"); env != nullptr && *env != '\0')
    return env;
  for (const std::string& dir : data_dirs(package_dir))
    if (::access((dir + "/scripts/plot_run.py").c_str(), R_OK) == 0)
      return dir + "/scripts";
  return "scripts"; // not found: the error names the script that failed to run
}

// Runs argv (argv[0] looked up in PATH) with stdout sent to stderr, or both to /dev/null
// when `quiet`; its exit status, or -1 when it could not run.
int run_process(const std::vector<std::string>& args, bool quiet) {
  ChildSetup setup;
  int null_fd = -1;
  if (quiet) {
    null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    setup.out_fd = setup.err_fd = null_fd;
  } else {
    setup.stdout_to_stderr = true; // keep stdout for the summary
  }
  std::cout.flush();
  int status = -1;
  try {
    status = wait_child(spawn_child(args, setup));
  } catch (const std::runtime_error&) {
  }
  if (null_fd >= 0)
    ::close(null_fd);
  return status;
}

} // namespace

int make_plots(const std::string& dir, const std::string& package_dir) {
  const std::string python = python_interpreter();
  if (run_process({python, "-c", "import matplotlib"}, true) != 0) {
    std::cerr << "npusim: note: --plots needs Python 3 with matplotlib; install it with "
                 "`apt-get install python3-matplotlib` (the report is in "
              << escape(dir) << ")\n";
    return kExitOk;
  }
  const std::string script = scripts_dir(package_dir) + "/plot_run.py";
  const int status = run_process({python, script, dir}, false);
  if (status != 0) {
    std::cerr << "npusim: error: " << escape(script) << " failed (exit status " << status
              << "); the report is in " << escape(dir) << "\n";
    return kExitInternal;
  }
  return kExitOk;
}

const CLI::Validator& non_empty_path() {
  static const CLI::Validator validator(
      [](const std::string& value) {
        return value.empty() ? std::string("expected a path, got an empty one") : std::string();
      },
      "PATH");
  return validator;
}

const CLI::Validator& positive_count() {
  static const CLI::Validator validator(
      [](const std::string& value) {
        // Every value a 64-bit count holds, and no other: the message says the exact range.
        uint64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [at, ec] = std::from_chars(value.data(), end, n);
        if (!value.empty() && value[0] != '+' && ec == std::errc() && at == end && n >= 1)
          return std::string();
        return "expected a whole number from 1 to " +
               std::to_string(std::numeric_limits<uint64_t>::max()) + ", got '" + value + "'";
      },
      "N");
  return validator;
}

void add_trace_options(CLI::App& app, RunOptions& options) {
  CLI::Option* trace =
      app.add_option("--trace", options.trace_path,
                     "write a Chrome trace-event JSON timeline (ui.perfetto.dev) to FILE")
          ->type_name("FILE")
          ->check(non_empty_path());
  app.add_option("--trace-limit", options.trace_limit, "trace only the first N launches")
      ->type_name("N")
      ->check(positive_count())
      ->needs(trace);
  app.add_option("--trace-sample", options.trace_sample,
                 "trace every K-th launch (launch ids 0, K, 2K, ...)")
      ->type_name("K")
      ->check(positive_count())
      ->needs(trace);
}

void add_quiet_option(CLI::App& app, bool& quiet) {
  app.add_flag("--quiet", quiet,
               "no progress line on the terminal (it appears after a second of a long run, "
               "on stderr, and only when stderr is a terminal)");
}

void add_summary_options(CLI::App& app, SummaryOptions& options) {
  static const CLI::Validator layers_value(
      [](const std::string& value) {
        if (value == "all")
          return std::string();
        const bool digits =
            !value.empty() && value.size() <= 9 &&
            std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        return digits && std::stoul(value) > 0
                   ? std::string()
                   : "expected a number of kernels from 1 to 999999999, or 'all', got '" + value +
                         "'";
      },
      "");
  app.add_option_function<std::string>(
         "--layers",
         [&options](const std::string& value) {
           options.layers = value == "all" ? 0 : std::stoul(value);
         },
         "per-layer lines of the text summary: the N kernels with the most time (default 20), "
         "or all")
      ->type_name("N|all")
      ->check(layers_value);
  app.add_flag("--detail", options.detail,
               "text summary: each kernel's table of phases (mean, p50, p99, max)");
  app.add_flag("--tiling", options.tiling,
               "text summary: each kernel's tiling and its roofline bound");
}

namespace {

// The subcommand the command line selected, or the app itself.
const CLI::App& selected(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    return selected(*sub);
  return app;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& name : opt->get_lnames())
      names.push_back("--" + name);
  return names;
}

// "unknown command 'rn' (did you mean 'run'?)"; for an empty name, "a command is required;
// expected one of ...".
std::string unknown_command(const CLI::App& app, const std::string& name) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({}))
    names.push_back(sub->get_name());
  std::string out = name.empty() ? "a command is required" : "unknown command '" + name + "'";
  const std::string guess = name.empty() ? std::string() : did_you_mean(name, names);
  if (!guess.empty())
    return out + " (did you mean '" + guess + "'?)";
  out += "; expected one of";
  for (size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : " ") + names[i];
  return out;
}

// The arguments nothing took, in command-line order, made into one sentence with a
// suggestion for every misspelt option; the value after an unknown option is taken as its
// own.
std::string describe_extras(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App& command = selected(app);
  const std::vector<std::string> names = option_names(command);
  std::string out;
  bool after_option = false;
  for (const std::string& arg : args) {
    const bool option = arg.size() > 1 && arg[0] == '-';
    if (!option && after_option) {
      after_option = false;
      continue;
    }
    out += out.empty() ? "" : "; ";
    if (option) {
      const std::string name = arg.substr(0, arg.find('='));
      out += "unknown option '" + name + "'";
      const std::string guess = did_you_mean(name, names);
      if (!guess.empty())
        out += " (did you mean '" + guess + "'?)";
      after_option = name == arg;
    } else if (&command == &app && !app.get_subcommands({}).empty()) {
      out += unknown_command(app, arg);
    } else {
      out += "unexpected argument '" + arg + "'";
    }
  }
  return out;
}

void allow_extras_everywhere(CLI::App& app) {
  app.allow_extras();
  for (CLI::App* sub : app.get_subcommands({}))
    allow_extras_everywhere(*sub);
}

int report_extras(const CLI::App& app, const std::vector<std::string>& extras) {
  std::cerr << "npusim: error: " << escape(describe_extras(app, extras)) << "\n";
  return kExitBadInput;
}

} // namespace

int report_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
    // --help and --version: what CLI11 prints, on stdout.
    return const_cast<CLI::App&>(app).exit(e);
  }
  std::string message = e.what();
  // "--config: At Most 1 required but received 2": an option given more than once.
  const std::string at_most = ": At Most 1 required but received ";
  if (const size_t at = message.find(at_most); at != std::string::npos)
    message = message.substr(0, at) + " is given " + message.substr(at + at_most.size()) +
              " times; give it once";
  // CLI11 breaks some of its messages into lines: one line here.
  for (char& ch : message)
    if (ch == '\n' || ch == '\r')
      ch = ' ';
  while (!message.empty() && message.back() == ' ')
    message.pop_back();
  message = escape(message);
  std::cerr << "npusim: error: " << message << "\n";
  return kExitBadInput;
}

std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  // Extras are collected, not refused by CLI11: it would check required options first.
  allow_extras_everywhere(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> extras = app.remaining(true);
    if (e.get_exit_code() != static_cast<int>(CLI::ExitCodes::Success) && !extras.empty())
      return report_extras(app, extras);
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && app.get_subcommands().empty() &&
        !app.get_subcommands({}).empty()) {
      std::cerr << "npusim: error: " << unknown_command(app, "")
                << "; `npusim help COMMAND` says what each does\n";
      return kExitBadInput;
    }
    return report_parse_error(app, e);
  }
  if (const std::vector<std::string> extras = app.remaining(true); !extras.empty())
    return report_extras(app, extras);
  return std::nullopt;
}

int print_help(const CLI::App& app, const std::string& command) {
  if (command.empty()) {
    std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->get_name() == command) {
      std::cout << sub->help(app.get_name());
      return kExitOk;
    }
  std::cerr << "npusim: error: " << escape(unknown_command(app, command)) << "\n";
  return kExitBadInput;
}

int run_cpp_testbench(int argc, char** argv, const std::string& name,
                      const std::function<void(Runtime&)>& body,
                      const std::function<void(CLI::App&)>& add_options,
                      const std::string& package_dir) {
  CLI::App app{name + ": a C++ host program on the npusim platform"};
  RunOptions options;
  options.config_path = "edge-npu";
  options.package_dir = package_dir;
  app.add_option("--config", options.config_path,
                 "hardware configuration: a YAML file or a config's name");
  app.add_option("--set", options.overrides, "override a config key: key.path=value")
      ->allow_extra_args(false);
  app.add_option("--out", options.out_dir, "write report.json, launches.csv and layers.csv here")
      ->check(non_empty_path());
  add_trace_options(app, options);
  add_summary_options(app, options.summary);
  options.limits.add_to(app);
  add_quiet_option(app, options.quiet);
  if (add_options)
    add_options(app);
  catch_interrupts();
  if (const std::optional<int> code = parse_command_line(app, argc, argv))
    return *code;
  HostProgram program{name, argv[0], body, {}, nullptr};
  return run_program(options, program);
}

} // namespace npu
