#pragma once
// Text that came from an input (a name in a testbench, a model, a report, a command line),
// made safe to print: on a terminal, in one line of an error, in a CSV cell.

#include <string>
#include <string_view>

namespace npu {

/// `text` with every character that could act on a terminal or break a line shown as a
/// visible escape, everything else kept as it is:
///   - newline, carriage return and tab as \n, \r and \t;
///   - the other C0 control characters and DEL as \xHH (ESC is \x1b);
///   - each byte that is not well-formed UTF-8 as \xHH;
///   - the C1 control characters (U+0080..U+009F), the line and paragraph separators
///     (U+2028, U+2029) and the bidirectional overrides and isolates (U+202A..U+202E,
///     U+2066..U+2069), which reorder what a terminal shows, as \uHHHH.
/// A backslash stays a backslash: escaping is idempotent (escape(escape(t)) == escape(t)),
/// so that a message escaped by one npusim process and quoted by another reads the same.
std::string escape(std::string_view text);

/// escape(text) in single quotes: 'name'.
std::string quoted_name(std::string_view text);

/// True when escape(text) == text: nothing in `text` needs escaping.
bool is_printable(std::string_view text);

} // namespace npu
