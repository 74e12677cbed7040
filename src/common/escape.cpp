#include "common/escape.h"

#include "common/utf8.h"

#include <cstdint>
#include <cstdio>

namespace npu {

namespace {

// The code point of a well-formed sequence of `length` bytes at the start of `text`.
uint32_t code_point(std::string_view text, size_t length) {
  const auto byte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(text[i]));
  };
  switch (length) {
  case 2:
    return (byte(0) & 0x1F) << 6 | (byte(1) & 0x3F);
  case 3:
    return (byte(0) & 0x0F) << 12 | (byte(1) & 0x3F) << 6 | (byte(2) & 0x3F);
  case 4:
    return (byte(0) & 0x07) << 18 | (byte(1) & 0x3F) << 12 | (byte(2) & 0x3F) << 6 |
           (byte(3) & 0x3F);
  default:
    return byte(0);
  }
}

// Code points past ASCII that act on a terminal or on the order of what it shows.
bool is_hidden_control(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

bool is_ascii_control(unsigned char c) {
  return c < 0x20 || c == 0x7F;
}

void put_ascii_control(std::string& out, unsigned char c) {
  switch (c) {
  case '\n':
    out += "\\n";
    return;
  case '\r':
    out += "\\r";
    return;
  case '\t':
    out += "\\t";
    return;
  default:
    break;
  }
  char hex[5];
  std::snprintf(hex, sizeof hex, "\\x%02x", c);
  out += hex;
}

} // namespace

std::string escape(std::string_view text) {
  if (is_printable(text))
    return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (is_ascii_control(c))
        put_ascii_control(out, c);
      else
        out += static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t length = utf8::sequence_length(text.substr(i));
    char hex[8];
    if (length == 0) {
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
      continue;
    }
    const uint32_t cp = code_point(text.substr(i), length);
    if (is_hidden_control(cp)) {
      std::snprintf(hex, sizeof hex, "\\u%04x", static_cast<unsigned>(cp));
      out += hex;
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string quoted_name(std::string_view text) {
  return "'" + escape(text) + "'";
}

bool is_printable(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (is_ascii_control(c))
        return false;
      ++i;
      continue;
    }
    const size_t length = utf8::sequence_length(text.substr(i));
    if (length == 0 || is_hidden_control(code_point(text.substr(i), length)))
      return false;
    i += length;
  }
  return true;
}

} // namespace npu
