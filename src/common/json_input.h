#pragma once
// Reading JSON inputs (report.json, a sweep's plan.json and point results) with the same
// limits as every other input: the input size cap of read_input_file() and a nesting depth
// of kMaxInputDepth.

#include "common/error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace npu {

/// Parses the JSON `text` read from `file`. Throws InputError at file:line:column for
/// invalid JSON and for nesting deeper than kMaxInputDepth, saying that `expected` ("an
/// npusim report.json") was expected.
nlohmann::ordered_json parse_json_input(const std::string& text, const std::string& file,
                                        const std::string& expected);

/// The same, for a file whose damage only means "no result here" (a sweep point's
/// result.json): a discarded value instead of an error.
nlohmann::ordered_json parse_json_or_discarded(const std::string& text);

/// Offset of the first bracket of `text` that opens nesting deeper than kMaxInputDepth
/// (strings skipped), or npos.
size_t json_too_deep_at(const std::string& text);

} // namespace npu
