#pragma once

// The command line's helpers, apart from app.h so that what runs a program does not
// compile CLI11.
#include "cli/app.h"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace npu {

/// CLI11 checks: a path that is not empty; a whole number of at least 1.
const CLI::Validator& non_empty_path();
const CLI::Validator& positive_count();

/// Prints a command-line error as one "npusim: error: ..." line, with "did you mean" for a
/// misspelt option, and returns 2; --help and --version print what they print and return 0.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e);

/// Parses the command line. An unknown option or unexpected argument is reported before
/// anything else (a missing required option, a bad value), with "did you mean"; every error
/// goes through report_parse_error. Returns the exit code when the command should end here
/// (an error, --help, --version), else nothing.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv);

/// `npusim help [COMMAND]`: prints the help of the app (no command) or of one of its
/// subcommands on stdout and returns 0; an unknown command is one error line and 2.
int print_help(const CLI::App& app, const std::string& command);

/// Adds --trace, --trace-limit and --trace-sample to a command.
void add_trace_options(CLI::App& app, RunOptions& options);

/// Adds --layers N|all, --detail and --tiling (what the text summary shows) to a command.
void add_summary_options(CLI::App& app, SummaryOptions& options);

} // namespace npu
