#include "config/units.h"

#include "common/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace npu::units {
namespace {

struct Unit {
  const char* name;
  double scale;
};

const std::vector<Unit> kByteUnits = {{"B", 1},
                                      {"KiB", 1024.0},
                                      {"MiB", 1024.0 * 1024},
                                      {"GiB", 1024.0 * 1024 * 1024},
                                      {"TiB", 1024.0 * 1024 * 1024 * 1024},
                                      {"KB", 1e3},
                                      {"kB", 1e3},
                                      {"MB", 1e6},
                                      {"GB", 1e9}};
const std::vector<Unit> kFrequencyUnits = {{"Hz", 1}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}};
const std::vector<Unit> kTimeUnits = {
    {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
const std::vector<Unit> kBandwidthUnits = {{"B/s", 1},
                                           {"KB/s", 1e3},
                                           {"MB/s", 1e6},
                                           {"GB/s", 1e9},
                                           {"TB/s", 1e12},
                                           {"KiB/s", 1024.0},
                                           {"MiB/s", 1024.0 * 1024},
                                           {"GiB/s", 1024.0 * 1024 * 1024}};
const std::vector<Unit> kRateUnits = {{"MT/s", 1}, {"GT/s", 1e3}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::string unit_list(const std::vector<Unit>& units) {
  std::string out;
  for (const auto& u : units) {
    if (!out.empty())
      out += ", ";
    out += u.name;
  }
  return out;
}

void set_error(std::string* error, std::string message) {
  if (error)
    *error = std::move(message);
}

// Splits "12.5 MiB" into a number and a unit; returns false when no number leads.
bool split_number(std::string_view text, double* number, std::string_view* unit, bool* negative) {
  text = trim(text);
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-'))
    ++i;
  bool digits = false;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    digits = digits || text[i] != '.';
    ++i;
  }
  if (i < text.size() && digits && (text[i] == 'e' || text[i] == 'E') && i + 1 < text.size() &&
      (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' ||
       text[i + 1] == '+')) {
    ++i;
    if (text[i] == '-' || text[i] == '+')
      ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      ++i;
  }
  if (!digits)
    return false;
  const std::string num(text.substr(0, i));
  char* end = nullptr;
  *number = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(*number))
    return false;
  *negative = num[0] == '-';
  *unit = trim(text.substr(i));
  return true;
}

// Number with a unit from `units`; `what` names the kind of quantity for messages.
std::optional<double> parse_quantity(std::string_view text, const std::vector<Unit>& units,
                                     const char* what, const char* example, bool unit_required,
                                     std::string* error) {
  double number = 0;
  std::string_view unit;
  bool negative = false;
  if (!split_number(text, &number, &unit, &negative)) {
    set_error(error, std::string("expected ") + what + " such as " + example + ", got '" +
                         std::string(text) + "'");
    return std::nullopt;
  }
  if (negative && number != 0) {
    set_error(error, std::string(what) + " must not be negative, got '" + std::string(text) + "'");
    return std::nullopt;
  }
  if (unit.empty()) {
    if (unit_required && number != 0) {
      set_error(error, std::string("missing unit in '") + std::string(text) + "'; expected " +
                           what + " such as " + example + " (units: " + unit_list(units) + ")");
      return std::nullopt;
    }
    return number * units.front().scale;
  }
  for (const auto& u : units)
    if (unit == u.name) {
      if (!std::isfinite(number * u.scale)) {
        set_error(error, std::string(what) + " '" + std::string(text) + "' is too large");
        return std::nullopt;
      }
      return number * u.scale;
    }
  std::vector<std::string> names;
  for (const auto& u : units)
    names.emplace_back(u.name);
  std::string message = "unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
                        "'; expected one of " + unit_list(units);
  const std::string hint = did_you_mean(std::string(unit), names);
  if (!hint.empty())
    message += " (did you mean '" + hint + "'?)";
  set_error(error, message);
  return std::nullopt;
}

// A double that must be a whole number within uint64_t.
std::optional<uint64_t> to_whole(double value, std::string_view text, const char* what,
                                 const char* smallest, std::string* error) {
  if (value >= 18446744073709549568.0) {
    set_error(error, std::string(what) + " '" + std::string(text) + "' is too large");
    return std::nullopt;
  }
  const double rounded = std::round(value);
  if (std::fabs(rounded - value) > 1e-6 * std::max(1.0, value)) {
    set_error(error, std::string(what) + " '" + std::string(text) + "' is not a whole number of " +
                         smallest);
    return std::nullopt;
  }
  return static_cast<uint64_t>(rounded);
}

std::string format_scaled(double value, const std::vector<Unit>& units) {
  // Largest unit that keeps the number short and exact to 6 significant digits.
  const Unit* best = &units.front();
  for (const auto& u : units)
    if (value >= u.scale && u.scale > best->scale)
      best = &u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g%s", value / best->scale, best->name);
  return buf;
}

} // namespace

namespace {

// A quantity that must be greater than zero; `noun` names it in the message.
std::optional<double> positive_quantity(std::string_view text, const std::vector<Unit>& units,
                                        const char* what, const char* example, const char* noun,
                                        std::string* error) {
  const auto value = parse_quantity(text, units, what, example, true, error);
  if (value && *value <= 0) {
    set_error(error,
              std::string(noun) + " must be greater than zero, got '" + std::string(text) + "'");
    return std::nullopt;
  }
  return value;
}

} // namespace

std::optional<uint64_t> parse_bytes(std::string_view text, std::string* error) {
  const auto value = parse_quantity(text, kByteUnits, "a size", "64KiB", false, error);
  if (!value)
    return std::nullopt;
  return to_whole(*value, text, "size", "bytes", error);
}

std::optional<double> parse_frequency_hz(std::string_view text, std::string* error) {
  const auto value =
      positive_quantity(text, kFrequencyUnits, "a frequency", "1.2GHz", "frequency", error);
  if (value && *value > 1e13) {
    set_error(error, "frequency '" + std::string(text) + "' is too large");
    return std::nullopt;
  }
  return value;
}

std::optional<uint64_t> parse_time_ps(std::string_view text, std::string* error) {
  const auto value = parse_quantity(text, kTimeUnits, "a duration", "15ns", true, error);
  if (!value)
    return std::nullopt;
  return to_whole(*value, text, "duration", "picoseconds", error);
}

std::optional<double> parse_rate_mts(std::string_view text, std::string* error) {
  return positive_quantity(text, kRateUnits, "a transfer rate", "3200MT/s", "transfer rate", error);
}

std::optional<double> parse_bandwidth(std::string_view text, std::string* error) {
  return positive_quantity(text, kBandwidthUnits, "a bandwidth", "64GB/s", "bandwidth", error);
}

std::optional<int64_t> parse_int(std::string_view text, std::string* error) {
  const std::string s(trim(text));
  if (s.empty()) {
    set_error(error, "expected a whole number, got an empty value");
    return std::nullopt;
  }
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  size_t start = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (hex)
    start = 2;
  bool ok = start < s.size();
  for (size_t i = start; i < s.size() && ok; ++i)
    ok = hex ? std::isxdigit(static_cast<unsigned char>(s[i])) != 0
             : std::isdigit(static_cast<unsigned char>(s[i])) != 0;
  if (!ok) {
    set_error(error, "expected a whole number, got '" + s + "'");
    return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, hex ? 16 : 10);
  if (errno == ERANGE) {
    set_error(error, "number '" + s + "' is out of range");
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<double> parse_double(std::string_view text, std::string* error) {
  const std::string s(trim(text));
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || errno == ERANGE) {
    set_error(error, "expected a number, got '" + s + "'");
    return std::nullopt;
  }
  return v;
}

std::string format_bytes(uint64_t bytes) {
  static const std::vector<std::pair<const char*, uint64_t>> kUnits = {
      {"TiB", 1ull << 40}, {"GiB", 1ull << 30}, {"MiB", 1ull << 20}, {"KiB", 1ull << 10}};
  for (const auto& [name, scale] : kUnits)
    if (bytes >= scale && bytes % scale == 0)
      return std::to_string(bytes / scale) + name;
  return std::to_string(bytes) + "B";
}

std::string format_time_ps(uint64_t ps) {
  static const std::vector<std::pair<const char*, uint64_t>> kUnits = {
      {"s", 1000000000000ull}, {"ms", 1000000000ull}, {"us", 1000000ull}, {"ns", 1000ull}};
  for (const auto& [name, scale] : kUnits)
    if (ps >= scale && ps % scale == 0)
      return std::to_string(ps / scale) + name;
  return std::to_string(ps) + "ps";
}

std::string format_frequency_hz(double hz) {
  return format_scaled(hz, kFrequencyUnits);
}

std::string format_rate_mts(double mts) {
  return format_scaled(mts, kRateUnits);
}

std::string format_bandwidth(double bytes_per_s) {
  // Decimal units only, so the spelling round-trips.
  return format_scaled(bytes_per_s,
                       {{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}});
}

} // namespace npu::units
