// The shape of a report.json as `npusim report` and `npusim diff` read it.
#include "common/error.h"
#include "report/report.h"
#include "report/report_detail.h"

#include <cstddef>
#include <iterator>
#include <string>

namespace npu {

namespace {

using Json = nlohmann::ordered_json;

enum class Type { Object, Array, String, Number, Whole, Bool, Stat };

// What a value of each Type must be, in Type's order.
constexpr const char* kExpected[] = {
    "an object",     "an array",        "a string", "a number", "a whole number of at least 0",
    "true or false", "a number or null"};
static_assert(std::size(kExpected) == static_cast<size_t>(Type::Stat) + 1);

const char* expected_of(Type type) {
  return kExpected[static_cast<size_t>(type)];
}

bool has_type(const Json& j, Type type) {
  switch (type) {
  case Type::Object:
    return j.is_object();
  case Type::Array:
    return j.is_array();
  case Type::String:
    return j.is_string();
  case Type::Number:
    return j.is_number();
  case Type::Whole:
    return j.is_number_unsigned();
  case Type::Bool:
    return j.is_boolean();
  case Type::Stat:
    return j.is_number() || j.is_null();
  }
  return false;
}

// What a value is, for messages: "a string ("12")", "an object", "-3".
std::string describe(const Json& j) {
  if (j.is_object())
    return "an object";
  if (j.is_array())
    return "an array";
  if (j.is_null())
    return "null";
  std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40)
    text = text.substr(0, 37) + "...";
  if (j.is_string())
    return "a string (" + text + ")";
  if (j.is_boolean())
    return text;
  return "the number " + text;
}

// Walks a report and throws InputError at `m_file` naming the first field of a wrong type.
class Checker {
public:
  explicit Checker(std::string file) : m_file(std::move(file)) {}

  void expect(const Json& j, const std::string& path, Type type) const {
    if (!has_type(j, type))
      throw InputError(SourceLoc{m_file, 0, 0}, path,
                       std::string("expected ") + expected_of(type) + ", got " + describe(j));
  }
  // `parent.key` when present; returns it, or nullptr.
  const Json* optional(const Json& parent, const std::string& path, const char* key,
                       Type type) const {
    const auto it = parent.find(key);
    if (it == parent.end())
      return nullptr;
    expect(*it, join(path, key), type);
    return &*it;
  }
  // `parent.key`, which must be there; returns it.
  const Json& required(const Json& parent, const std::string& path, const char* key,
                       Type type) const {
    const auto it = parent.find(key);
    if (it == parent.end())
      throw InputError(SourceLoc{m_file, 0, 0}, join(path, key),
                       std::string("missing; expected ") + expected_of(type) +
                           " (npusim writes it in every report that has '" +
                           (path.empty() ? std::string(key) : path) + "')");
    expect(*it, join(path, key), type);
    return *it;
  }
  // Every member of the object `j` is of `type`.
  void members(const Json& j, const std::string& path, Type type) const {
    for (const auto& [key, value] : j.items())
      expect(value, join(path, key), type);
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

private:
  std::string m_file;
};

void check_kernels(const Checker& c, const Json& kernels) {
  for (const auto& [name, kernel] : kernels.items()) {
    const std::string path = "kernels." + name;
    c.expect(kernel, path, Type::Object);
    c.required(kernel, path, "launches", Type::Whole);
    // The phases of the summary's tables must be there; the others may be left out.
    for (const auto& phase : report_detail::k_summary_phases) {
      const std::string at = Checker::join(path, phase.name);
      const Json& p = c.required(kernel, path, phase.name, Type::Object);
      for (const char* key : {"mean_ns", "p50_ns", "p99_ns", "max_ns"})
        c.required(p, at, key, Type::Number);
    }
    for (const auto& phase : report_detail::k_json_phases)
      if (const Json* p = c.optional(kernel, path, phase.name, Type::Object))
        c.members(*p, Checker::join(path, phase.name), Type::Number);
    if (const Json* tiling = c.optional(kernel, path, "tiling", Type::Array))
      for (size_t i = 0; i < tiling->size(); ++i) {
        const Json& t = (*tiling)[i];
        const std::string at = Checker::join(path, "tiling") + "[" + std::to_string(i) + "]";
        c.expect(t, at, Type::Object);
        c.optional(t, at, "op", Type::String);
        c.optional(t, at, "shape", Type::String);
        for (const char* key : {"units", "tiles", "folds", "array_cycles", "vector_cycles", "macs",
                                "vector_ops", "result_bytes", "stored_bytes"})
          c.optional(t, at, key, Type::Whole);
        for (const char* key : {"compute_bound_ns", "memory_bound_ns", "bound_ns"})
          c.optional(t, at, key, Type::Number);
        if (const Json* operands = c.optional(t, at, "operands", Type::Array))
          for (size_t j = 0; j < operands->size(); ++j) {
            const std::string o = Checker::join(at, "operands") + "[" + std::to_string(j) + "]";
            c.expect((*operands)[j], o, Type::Object);
            c.members((*operands)[j], o, Type::Whole);
          }
      }
    if (const Json* roofline = c.optional(kernel, path, "roofline", Type::Object))
      c.members(*roofline, Checker::join(path, "roofline"), Type::Number);
  }
}

// breakdown and critical_path: times, counts and (on the path) the kernels on it.
void check_time_parts(const Checker& c, const Json& parts, const std::string& path) {
  for (const auto& [key, value] : parts.items()) {
    const std::string at = Checker::join(path, key);
    if (key != "kernels") {
      c.expect(value, at, Type::Number);
      continue;
    }
    c.expect(value, at, Type::Array);
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string item = at + "[" + std::to_string(i) + "]";
      c.expect(value[i], item, Type::Object);
      c.optional(value[i], item, "kernel", Type::String);
      c.optional(value[i], item, "launches", Type::Whole);
      c.optional(value[i], item, "ns", Type::Number);
    }
  }
}

void check_events(const Checker& c, const Json& events) {
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string path = "events[" + std::to_string(i) + "]";
    const Json& e = events[i];
    c.expect(e, path, Type::Object);
    for (const char* key : {"label", "event", "start", "end"})
      c.optional(e, path, key, Type::String);
    c.optional(e, path, "complete", Type::Bool);
    c.optional(e, path, "at_ns", Type::Number);
    c.optional(e, path, "elapsed_ns", Type::Number);
  }
}

// layers: one object per kernel; peaks: numbers.
void check_layers(const Checker& c, const Json& layers) {
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "]";
    const Json& l = layers[i];
    c.expect(l, path, Type::Object);
    c.required(l, path, "kernel", Type::String);
    c.required(l, path, "bound", Type::String);
    for (const char* key : {"launches", "macs", "vector_ops", "dram_bytes"})
      c.required(l, path, key, Type::Whole);
    for (const char* key :
         {"time_ns", "total_ns", "host_ns", "iload_ns", "execute_ns", "execute_ifetch_stall_ns",
          "compute_roof_ns", "memory_roof_ns", "mac_utilisation", "macs_per_s"})
      c.required(l, path, key, Type::Number);
    c.required(l, path, "macs_per_byte", Type::Stat);
  }
}

// energy: what energy_json() writes.
void check_energy(const Checker& c, const Json& energy) {
  const std::string path = "energy";
  c.required(energy, path, "technology", Type::String);
  for (const char* key : {"total_pj", "average_power_w", "tops_per_w", "edp_js"})
    c.required(energy, path, key, Type::Number);
  for (const char* group : {"blocks", "phases", "shares"})
    c.members(c.required(energy, path, group, Type::Object), Checker::join(path, group),
              Type::Number);
  for (const auto& [block, parts] : c.required(energy, path, "parts", Type::Object).items()) {
    const std::string at = "energy.parts." + block;
    c.expect(parts, at, Type::Object);
    c.members(parts, at, Type::Number);
  }
  if (const Json* kernels = c.optional(energy, path, "kernels", Type::Object))
    for (const auto& [name, kernel] : kernels->items()) {
      const std::string at = "energy.kernels." + name;
      c.expect(kernel, at, Type::Object);
      c.required(kernel, at, "launches", Type::Whole);
      c.required(kernel, at, "total_pj", Type::Number);
      for (const auto& [key, value] : kernel.items())
        if (key != "launches")
          c.expect(value, Checker::join(at, key), Type::Number);
    }
}

} // namespace

void check_report_document(const nlohmann::ordered_json& report, const std::string& file) {
  const Checker c(file);
  c.expect(report, "", Type::Object);
  c.optional(report, "", "config_name", Type::String);
  c.optional(report, "", "testbench_name", Type::String);
  c.optional(report, "", "config", Type::Object);
  c.optional(report, "", "testbench", Type::Object);
  for (const char* key : {"config_file", "testbench_file"})
    c.optional(report, "", key, Type::String);
  if (const Json* sim = c.optional(report, "", "sim", Type::Object)) {
    c.required(*sim, "sim", "simulated_ns", Type::Number);
    c.required(*sim, "sim", "launches", Type::Whole);
    c.optional(*sim, "sim", "wall_s", Type::Number);
  }
  if (const Json* kernels = c.optional(report, "", "kernels", Type::Object))
    check_kernels(c, *kernels);
  if (const Json* host = c.optional(report, "", "host", Type::Object)) {
    for (const char* key : {"busy_ns", "blocked_ns", "idle_ns"})
      c.required(*host, "host", key, Type::Number);
    for (const char* key : {"leaked_buffers", "leaked_bytes"})
      c.optional(*host, "host", key, Type::Whole);
  }
  for (const char* section : {"breakdown", "critical_path"})
    if (const Json* parts = c.optional(report, "", section, Type::Object))
      check_time_parts(c, *parts, section);
  if (const Json* utilisation = c.optional(report, "", "utilisation", Type::Object))
    for (const auto& [block, values] : utilisation->items()) {
      c.expect(values, "utilisation." + block, Type::Object);
      c.members(values, "utilisation." + block, Type::Number);
    }
  if (const Json* events = c.optional(report, "", "events", Type::Array))
    check_events(c, *events);
  if (const Json* layers = c.optional(report, "", "layers", Type::Array))
    check_layers(c, *layers);
  if (const Json* peaks = c.optional(report, "", "peaks", Type::Object)) {
    for (const char* key : {"macs_per_s", "dram_bytes_per_s"})
      c.required(*peaks, "peaks", key, Type::Number);
    c.members(*peaks, "peaks", Type::Number);
  }
  if (const Json* energy = c.optional(report, "", "energy", Type::Object))
    check_energy(c, *energy);
  if (const Json* blocks = c.optional(report, "", "blocks", Type::Object))
    for (const auto& [block, stats] : blocks->items()) {
      c.expect(stats, "blocks." + block, Type::Object);
      c.members(stats, "blocks." + block, Type::Stat);
    }
  if (const Json* units = c.optional(report, "", "stat_units", Type::Object))
    for (const auto& [stat, entry] : units->items()) {
      const std::string path = "stat_units." + stat;
      c.expect(entry, path, Type::Object);
      c.optional(entry, path, "unit", Type::String);
      c.optional(entry, path, "description", Type::String);
    }
}

} // namespace npu
