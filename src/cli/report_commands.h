#pragma once
// `npusim report DIR` and `npusim diff DIR_A DIR_B`: summaries of runs already written.

#include "report/report.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>

namespace npu {

/// DIR/report.json of an `npusim run --out DIR`. Throws InputError (file, line, column,
/// key, what was expected) for a missing directory or file, invalid JSON, or a document
/// that is not an npusim report.
nlohmann::ordered_json load_report_dir(const std::string& dir);

/// The report document in `text`, read from `file`: parsed within the input limits (a
/// nesting depth of kMaxInputDepth) and checked against the schema `npusim run` writes
/// (check_report_document). Throws InputError at file:line:column.
nlohmann::ordered_json parse_report(const std::string& text, const std::string& file);

/// Prints the comparison of two reports: overall and per-kernel phases, where the time
/// went, the statistics that changed, and the phase and the statistic that changed most.
void print_diff(std::ostream& out, const std::string& name_a, const nlohmann::ordered_json& a,
                const std::string& name_b, const nlohmann::ordered_json& b);

/// `npusim report`: the summary of DIR, as `npusim run` printed it. Returns an exit code.
int run_report(const std::string& dir, SummaryFormat format, const SummaryOptions& options = {});
/// `npusim diff`: compares two output directories. Returns an exit code.
int run_diff(const std::string& dir_a, const std::string& dir_b);

} // namespace npu
