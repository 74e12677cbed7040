#pragma once
// Well-formed UTF-8 (RFC 3629): what every input must be and every output is.

#include <cstddef>
#include <string>
#include <string_view>

namespace npu::utf8 {

/// Length of the well-formed UTF-8 sequence at the start of `text`, or 0 when it is
/// ill-formed (a stray continuation byte, a truncated sequence, an overlong encoding, a
/// surrogate, a code point above U+10FFFF, or a byte 0xF8..0xFF). 0 for empty text.
size_t sequence_length(std::string_view text);

/// Offset of the first byte of `text` that is not well-formed UTF-8, or npos.
size_t first_invalid(std::string_view text);

/// `text` with every ill-formed byte replaced by U+FFFD, the replacement character.
std::string sanitize(std::string_view text);

} // namespace npu::utf8
