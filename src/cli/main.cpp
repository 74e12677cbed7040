// npusim: the command-line front end.
#include "cli/app.h"
#include "cli/command_line.h"
#include "cli/import_command.h"
#include "cli/membench.h"
#include "cli/report_commands.h"
#include "common/error.h"
#include "common/escape.h"
#include "common/interrupt.h"
#include "config/node.h"
#include "platform/config_lookup.h"
#include "sweep/sweep_cli.h"
#include "testbench/testbench.h"

#include <CLI/CLI.hpp>
#include <systemc>

#include <algorithm>
#include <iostream>
#include <optional>

namespace {

// The summary formats of --format.
CLI::IsMember format_names() {
  return CLI::IsMember({"text", "json", "csv"});
}

// Validates one file: a testbench when it has kernels or a program, else a config.
bool validate_file(const std::string& path) {
  return npu::run_guarded([&] {
           const npu::cfg::Node root = npu::cfg::parse_yaml_file(path);
           if (npu::looks_like_testbench(root))
             npu::read_testbench(root, path);
           else
             npu::load_platform_config(path, {});
           std::cout << npu::escape(path) << ": ok\n";
           return static_cast<int>(npu::kExitOk);
         }) == npu::kExitOk;
}

// Validates testbenches against one config, with the checks `npusim run` makes before it
// simulates and the same messages: the config (after --set), each testbench (after
// --tb-set) and the pair (units, SRAM buffers, the simulated-time bound).
int validate_pairs(const std::string& config_name, const std::vector<std::string>& sets,
                   const std::vector<std::string>& testbench_sets,
                   const std::vector<std::string>& files) {
  npu::PlatformConfig config;
  if (const int code = npu::run_guarded([&] {
        config = npu::load_platform_config(npu::find_config(config_name), sets);
        return static_cast<int>(npu::kExitOk);
      });
      code != npu::kExitOk)
    return code;
  int result = npu::kExitOk;
  for (const auto& f : files) {
    const int code = npu::run_guarded([&] {
      const npu::Testbench tb = npu::load_testbench(f, testbench_sets);
      npu::check_testbench(tb, config);
      std::cout << npu::escape(f) << ": ok on " << npu::escape(config.name) << "\n";
      return static_cast<int>(npu::kExitOk);
    });
    result = std::max(result, code);
  }
  return result;
}

int npusim_main(int argc, char* argv[]);

} // namespace

// Every error becomes one line on stderr and an exit code, never an exception that
// SystemC would report on stdout.
int sc_main(int argc, char* argv[]) {
  // First, before any thread starts: a signal removes every temporary output.
  npu::catch_interrupts();
  return npu::run_guarded([&] { return npusim_main(argc, argv); });
}

namespace {

// `run` and what `report` and `validate` share with it (--format, --set, --tb-set).
struct RunCommand {
  CLI::App* app = nullptr;
  npu::RunOptions options;
  std::string testbench_path;
  std::string model_path;
  std::vector<std::string> testbench_overrides;
  std::string format = "text";
  npu::onnx_import::ImportOptions model_options; ///< --batch, --dim, --shape of --model
};

void add_run_command(CLI::App& app, RunCommand& cmd) {
  npu::RunOptions& options = cmd.options;
  CLI::App* run = cmd.app =
      app.add_subcommand("run", "run a testbench on a hardware configuration");
  run->add_option("--config", options.config_path,
                  "hardware configuration: a YAML file or a config's name")
      ->required();
  CLI::Option* testbench_option =
      run->add_option("--testbench", cmd.testbench_path, "workload (YAML testbench)");
  CLI::Option* model = run->add_option("--model", cmd.model_path,
                                       "workload: an ONNX model, imported as `import` does")
                           ->excludes(testbench_option);
  npu::add_model_binding_options(*run, cmd.model_options);
  for (const char* name : {"--batch", "--dim", "--shape"})
    run->get_option(name)->needs(model);
  run->add_option("--set", options.overrides, "override a config key, e.g. dma.channels=4")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  run->add_option("--tb-set", cmd.testbench_overrides,
                  "override a testbench key, e.g. kernels.conv1.binary=64KiB")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  CLI::Option* out = run->add_option("--out", options.out_dir,
                                     "write report.json, launches.csv and layers.csv into DIR")
                         ->type_name("DIR")
                         ->check(npu::non_empty_path());
  npu::add_trace_options(*run, options);
  options.limits.add_to(*run);
  run->add_option("--format", cmd.format, "summary on stdout: text, json or csv")
      ->check(format_names());
  run->add_flag("--plots", options.plots, "also write PNG plots into the --out DIR")->needs(out);
  npu::add_summary_options(*run, options.summary);
  npu::add_quiet_option(*run, options.quiet);
}

// `report DIR` and `diff DIR_A DIR_B`.
struct ReportCommands {
  CLI::App* report = nullptr;
  CLI::App* diff = nullptr;
  std::string report_dir, diff_a, diff_b;
};

void add_report_commands(CLI::App& app, ReportCommands& cmd, RunCommand& run) {
  cmd.report = app.add_subcommand("report", "print the summary of a run's --out DIR again");
  cmd.report->add_option("dir", cmd.report_dir, "output directory of npusim run")->required();
  cmd.report->add_option("--format", run.format, "text, json or csv")->check(format_names());
  npu::add_summary_options(*cmd.report, run.options.summary);

  cmd.diff = app.add_subcommand(
      "diff", "compare two runs' --out directories phase by phase and block by block");
  cmd.diff->add_option("dir_a", cmd.diff_a, "output directory of the first run")->required();
  cmd.diff->add_option("dir_b", cmd.diff_b, "output directory of the second run")->required();
}

struct ValidateCommand {
  CLI::App* app = nullptr;
  std::vector<std::string> files;
  std::string config;
};

void add_validate_command(CLI::App& app, ValidateCommand& cmd, RunCommand& run) {
  CLI::App* validate = cmd.app = app.add_subcommand(
      "validate", "check configs and testbenches, or testbenches against a --config; exit 0 "
                  "when all are valid");
  validate
      ->add_option("files", cmd.files,
                   "YAML files: configs and testbenches; with --config, testbenches")
      ->required();
  CLI::Option* validate_with =
      validate
          ->add_option("--config", cmd.config,
                       "check the testbenches against this configuration as `npusim run` "
                       "would: a YAML file or a config's name")
          ->check(npu::non_empty_path());
  validate->add_option("--set", run.options.overrides, "override a config key, e.g. dma.channels=4")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)
      ->needs(validate_with);
  validate
      ->add_option("--tb-set", run.testbench_overrides,
                   "override a testbench key, e.g. kernels.conv1.binary=64KiB")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false)
      ->needs(validate_with);
}

CLI::App* add_membench_command(CLI::App& app, npu::MembenchOptions& bench) {
  CLI::App* membench = app.add_subcommand(
      "membench", "drive the DDR model alone with a pattern or a trace; print one JSON object");
  membench
      ->add_option("--config", bench.config_path,
                   "hardware configuration: a YAML file or a config's name")
      ->required();
  membench->add_option("--set", bench.overrides, "override a config key, e.g. ddr.channels=2")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  CLI::Option* pattern =
      membench
          ->add_option("--pattern", bench.pattern,
                       "built-in pattern: seq_read, rand_read, seq_write or mix_rw")
          ->check(CLI::IsMember({"seq_read", "rand_read", "seq_write", "mix_rw"}));
  CLI::Option* requests =
      membench->add_option("--requests", bench.requests, "requests of the pattern (64 B each)")
          ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  CLI::Option* trace = membench->add_option(
      "--trace", bench.trace_path, "Ramulator 2 load/store trace: `LD 0x...` / `ST 0x...`");
  bench.limits.add_to(*membench, false);
  npu::add_quiet_option(*membench, bench.quiet);
  pattern->needs(requests)->excludes(trace);
  requests->needs(pattern);
  return membench;
}

int run_validate(const ValidateCommand& cmd, const RunCommand& run) {
  if (!cmd.config.empty())
    return validate_pairs(cmd.config, run.options.overrides, run.testbench_overrides, cmd.files);
  bool ok = true;
  for (const auto& f : cmd.files)
    ok = validate_file(f) && ok;
  return ok ? npu::kExitOk : npu::kExitBadInput;
}

// `npusim run`: reads the workload, then simulates it.
int run_simulation(const RunCommand& cmd) {
  // Parse the testbench first: a bad file is reported before anything is built.
  npu::Testbench tb;
  const std::string& model_path = cmd.model_path;
  uint64_t spent_ps = 0;
  if (const int code = npu::run_guarded([&] {
        tb = model_path.empty()
                 ? npu::load_testbench(cmd.testbench_path, cmd.testbench_overrides)
                 : npu::load_model_testbench(model_path, cmd.model_options, cmd.testbench_overrides,
                                             cmd.options.limits, &spent_ps);
        return static_cast<int>(npu::kExitOk);
      });
      code != npu::kExitOk)
    return code;
  npu::HostProgram program{tb.name,
                           model_path.empty() ? cmd.testbench_path : model_path,
                           [&tb](npu::Runtime& rt) { npu::run_testbench(rt, tb); },
                           [&tb](const npu::PlatformConfig& c) { npu::check_testbench(tb, c); },
                           tb.document,
                           npu::count_launches(tb)};
  npu::RunOptions options = cmd.options;
  options.spent_ps = spent_ps;
  npu::sweep::run_hook_start(cmd.options.overrides, cmd.options.out_dir);
  const int code = npu::run_program(options, program);
  npu::sweep::run_hook_end(cmd.options.out_dir, code);
  return code;
}

int npusim_main(int argc, char* argv[]) {
  CLI::App app{"npusim: a cycle-approximate simulator of an NPU and the host that drives it"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "npusim 0.1.0");

  RunCommand run;
  add_run_command(app, run);
  ReportCommands reports;
  add_report_commands(app, reports, run);
  ValidateCommand validate;
  add_validate_command(app, validate, run);
  std::string help_command;
  CLI::App* help = app.add_subcommand("help", "print this help, or a command's (npusim help run)");
  help->add_option("command", help_command, "a command");
  npu::MembenchOptions bench;
  CLI::App* membench = add_membench_command(app, bench);
  npu::sweep::SweepCommand sweep(app);
  npu::ImportCommand import(app);

  if (const std::optional<int> code = npu::parse_command_line(app, argc, argv))
    return *code;

  if (*help)
    return npu::print_help(app, help_command);
  if (*membench)
    return npu::run_membench(bench);
  if (sweep.selected())
    return sweep.run();
  if (import.selected())
    return import.run();
  if (*run.app && run.testbench_path.empty() && run.model_path.empty())
    return npu::report_parse_error(app, CLI::RequiredError("--testbench or --model"));
  run.options.format = npu::parse_summary_format(run.format);
  if (*reports.report)
    return npu::run_report(reports.report_dir, run.options.format, run.options.summary);
  if (*reports.diff)
    return npu::run_diff(reports.diff_a, reports.diff_b);
  if (*validate.app)
    return run_validate(validate, run);
  return run_simulation(run);
}

} // namespace

// Our own main replaces the one in libsystemc so the SystemC banner stays off stdout.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
