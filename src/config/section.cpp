#include "config/section.h"

#include "config/units.h"

#include <algorithm>

namespace npu::cfg {

Section::Section(const Node* node, std::string path, nlohmann::ordered_json* effective)
    : m_node(node), m_path(std::move(path)), m_effective(effective) {
  if (m_node && m_node->is_null())
    m_node = nullptr;
  if (m_node && !m_node->is_map())
    throw InputError(m_node->loc, m_path,
                     std::string("expected a map of settings, got ") + m_node->kind_name());
  if (m_effective && !m_effective->is_object())
    *m_effective = nlohmann::ordered_json::object();
}

std::string Section::key_path(const std::string& key) const {
  return m_path.empty() ? key : m_path + "." + key;
}

bool Section::has(const std::string& key) const {
  return m_node && m_node->find(key);
}

void Section::accept(const std::string& key) {
  if (std::find(m_known.begin(), m_known.end(), key) == m_known.end())
    m_known.push_back(key);
}

const Node* Section::value(const std::string& key) const {
  return m_node ? m_node->find(key) : nullptr;
}

SourceLoc Section::loc(const std::string& key) const {
  if (const Node* v = value(key))
    return v->loc;
  return m_node ? m_node->loc : SourceLoc{};
}

void Section::fail(const std::string& key, const std::string& message) const {
  throw InputError(loc(key), key_path(key), message);
}

const Node* Section::scalar(const std::string& key, const char* expected) {
  accept(key);
  const Node* v = value(key);
  if (!v || v->is_null())
    return nullptr;
  if (!v->is_scalar())
    fail(key, std::string("expected ") + expected + ", got " + v->kind_name());
  return v;
}

void Section::record(const std::string& key, nlohmann::ordered_json value) {
  if (m_effective)
    (*m_effective)[key] = std::move(value);
}

namespace {

template <typename T>
void check_range(const Section& s, const std::string& key, T v, T min, T max,
                 const std::string& shown, std::string (*fmt)(T)) {
  if (v < min)
    s.fail(key, "must be at least " + fmt(min) + ", got " + shown);
  if (v > max)
    s.fail(key, "must be at most " + fmt(max) + ", got " + shown);
}

// A value that does not even parse because it is too large for its type (or too small) is
// outside the key's range too: the message says the range, as for any value outside it.
template <typename T>
[[noreturn]] void fail_parse(const Section& s, const std::string& key, const std::string& error,
                             T min, T max, const std::string& shown, std::string (*fmt)(T)) {
  const bool overflow = error.find("is too large") != std::string::npos ||
                        error.find("is out of range") != std::string::npos;
  if (!overflow)
    s.fail(key, error);
  s.fail(key, "must be from " + fmt(min) + " to " + fmt(max) + ", got " + shown);
}

std::string int_str(int64_t v) {
  return std::to_string(v);
}
std::string real_str(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

} // namespace

template <typename T>
T Section::read_value(const std::string& key, T def, T min, T max, const char* expected,
                      std::optional<T> (*parse)(std::string_view, std::string*),
                      std::string (*format)(T)) {
  const Node* n = scalar(key, expected);
  if (!n)
    return def;
  std::string err;
  const auto parsed = parse(n->scalar, &err);
  if (!parsed)
    fail_parse<T>(*this, key, err, min, max, n->scalar, format);
  check_range<T>(*this, key, *parsed, min, max, n->scalar, format);
  return *parsed;
}

uint64_t Section::bytes(const std::string& key, uint64_t def, uint64_t min, uint64_t max) {
  const uint64_t v = read_value<uint64_t>(key, def, min, max, "a size such as 64KiB",
                                          units::parse_bytes, units::format_bytes);
  record(key, units::format_bytes(v));
  return v;
}

uint64_t Section::time_ps(const std::string& key, uint64_t def, uint64_t min, uint64_t max) {
  const uint64_t v = read_value<uint64_t>(key, def, min, max, "a duration such as 15ns",
                                          units::parse_time_ps, units::format_time_ps);
  record(key, units::format_time_ps(v));
  return v;
}

double Section::frequency_hz(const std::string& key, double def) {
  const double v = read_value<double>(key, def, units::kMinFrequencyHz, units::kMaxFrequencyHz,
                                      "a frequency such as 1GHz", units::parse_frequency_hz,
                                      units::format_frequency_hz);
  record(key, units::format_frequency_hz(v));
  return v;
}

double Section::rate_mts(const std::string& key, double def) {
  const double v = read_value<double>(key, def, units::kMinRateMts, units::kMaxRateMts,
                                      "a transfer rate such as 3200MT/s", units::parse_rate_mts,
                                      units::format_rate_mts);
  record(key, units::format_rate_mts(v));
  return v;
}

double Section::bandwidth(const std::string& key, double def) {
  const double v = read_value<double>(key, def, units::kMinBandwidthBytesPerS,
                                      units::kMaxBandwidthBytesPerS, "a bandwidth such as 64GB/s",
                                      units::parse_bandwidth, units::format_bandwidth);
  record(key, units::format_bandwidth(v));
  return v;
}

int64_t Section::integer(const std::string& key, int64_t def, int64_t min, int64_t max) {
  const int64_t v =
      read_value<int64_t>(key, def, min, max, "a whole number", units::parse_int, int_str);
  record(key, v);
  return v;
}

double Section::real(const std::string& key, double def, double min, double max) {
  const double v =
      read_value<double>(key, def, min, max, "a number", units::parse_double, real_str);
  record(key, v);
  return v;
}

bool Section::boolean(const std::string& key, bool def) {
  bool v = def;
  if (const Node* n = scalar(key, "true or false")) {
    if (n->scalar == "true" || n->scalar == "yes" || n->scalar == "on")
      v = true;
    else if (n->scalar == "false" || n->scalar == "no" || n->scalar == "off")
      v = false;
    else
      fail(key, "expected true or false, got '" + n->scalar + "'");
  }
  record(key, v);
  return v;
}

std::string Section::string(const std::string& key, const std::string& def) {
  std::string v = def;
  if (const Node* n = scalar(key, "a text value"))
    v = n->scalar;
  record(key, v);
  return v;
}

std::string Section::choice(const std::string& key, const std::string& def,
                            const std::vector<std::string>& choices) {
  std::string v = def;
  if (const Node* n = scalar(key, "a name")) {
    v = n->scalar;
    if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
      std::string list;
      for (const auto& c : choices)
        list += (list.empty() ? "" : ", ") + c;
      std::string message = "unknown value '" + v + "'; expected one of " + list;
      const std::string hint = did_you_mean(v, choices);
      if (!hint.empty())
        message += "; did you mean '" + hint + "'?";
      fail(key, message);
    }
  }
  record(key, v);
  return v;
}

const Node& Section::require(const std::string& key, const char* expected) {
  accept(key);
  const Node* v = value(key);
  if (!v || v->is_null())
    fail(key, std::string("missing required key; expected ") + expected);
  return *v;
}

Section Section::section(const std::string& key) {
  accept(key);
  nlohmann::ordered_json* child = nullptr;
  if (m_effective) {
    (*m_effective)[key] = nlohmann::ordered_json::object();
    child = &(*m_effective)[key];
  }
  return Section(value(key), key_path(key), child);
}

void Section::finish() const {
  if (!m_node)
    return;
  for (const auto& e : m_node->entries) {
    if (std::find(m_known.begin(), m_known.end(), e.key) != m_known.end())
      continue;
    std::string message = "unknown key";
    const std::string hint = did_you_mean(e.key, m_known);
    if (!hint.empty())
      message += "; did you mean '" + hint + "'?";
    else if (!m_known.empty()) {
      message += "; expected one of ";
      for (size_t i = 0; i < m_known.size(); ++i)
        message += (i ? ", " : "") + m_known[i];
    }
    throw InputError(e.key_loc, key_path(e.key), message);
  }
}

} // namespace npu::cfg
