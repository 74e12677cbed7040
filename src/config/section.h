#pragma once

#include "config/node.h"
#include "config/units.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace npu::cfg {

/// A typed, strict view over one map of a config or testbench. Each getter reads a
/// key (or takes the default), checks type and range, records the effective value,
/// and throws InputError naming file, line, column and key. finish() rejects keys
/// nobody asked for, with a "did you mean" hint.
class Section {
public:
  /// `node` may be null (an absent section: every key takes its default).
  /// `path` is the dotted prefix used in messages ("dma", "kernels.conv1").
  /// `effective` (may be null) receives every value read, in canonical spelling.
  Section(const Node* node, std::string path, nlohmann::ordered_json* effective);

  uint64_t bytes(const std::string& key, uint64_t def, uint64_t min = 0,
                 uint64_t max = std::numeric_limits<uint64_t>::max());
  /// A duration; `max` defaults to units::kMaxLatencyPs (1 s).
  uint64_t time_ps(const std::string& key, uint64_t def, uint64_t min = 0,
                   uint64_t max = units::kMaxLatencyPs);
  /// Within units::kMinFrequencyHz..kMaxFrequencyHz (1 kHz to 100 GHz).
  double frequency_hz(const std::string& key, double def);
  /// Within units::kMinRateMts..kMaxRateMts (1 MT/s to 256 GT/s).
  double rate_mts(const std::string& key, double def);
  /// Within units::kMinBandwidthBytesPerS..kMaxBandwidthBytesPerS (1 KB/s to 100 TB/s).
  double bandwidth(const std::string& key, double def_bytes_per_s);
  int64_t integer(const std::string& key, int64_t def, int64_t min, int64_t max);
  double real(const std::string& key, double def, double min, double max);
  bool boolean(const std::string& key, bool def);
  std::string string(const std::string& key, const std::string& def);
  /// One of `choices`; a near miss gets "did you mean".
  std::string choice(const std::string& key, const std::string& def,
                     const std::vector<std::string>& choices);
  /// A required key: throws when absent.
  const Node& require(const std::string& key, const char* expected);

  /// A nested map; an absent key gives an empty section. A non-map value is an error.
  Section section(const std::string& key);

  bool has(const std::string& key) const;
  /// Marks a key as known without reading it (e.g. handled elsewhere).
  void accept(const std::string& key);
  const Node* node() const { return m_node; }
  const Node* value(const std::string& key) const;
  const std::string& path() const { return m_path; }
  /// Full dotted path of a key in this section.
  std::string key_path(const std::string& key) const;
  /// Position of a key (or of the section when the key is absent).
  SourceLoc loc(const std::string& key) const;
  /// Throws InputError at `key` with `message`.
  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  /// Rejects unknown keys. Call after every getter.
  void finish() const;

  nlohmann::ordered_json* effective() { return m_effective; }

private:
  const Node* scalar(const std::string& key, const char* expected);
  /// The value at `key` read by `parse` and checked against [min, max] (`format` shows
  /// values in messages); `def` when absent. Records nothing.
  template <typename T>
  T read_value(const std::string& key, T def, T min, T max, const char* expected,
               std::optional<T> (*parse)(std::string_view, std::string*), std::string (*format)(T));
  void record(const std::string& key, nlohmann::ordered_json value);

  const Node* m_node;
  std::string m_path;
  nlohmann::ordered_json* m_effective;
  std::vector<std::string> m_known; ///< keys asked for, in order (for "did you mean")
};

} // namespace npu::cfg
