#include "report/report.h"

#include "common/escape.h"
#include "report/energy_report.h"
#include "report/report_detail.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ostream>
#include <unordered_map>

namespace npu {

using report_detail::ps_to_ns;

namespace report_detail {

std::vector<KernelLaunches> group_by_kernel(const LaunchTable& table) {
  // Kernel indices are in order of first launch already.
  std::vector<KernelLaunches> groups(table.kernels().size());
  for (size_t k = 0; k < groups.size(); ++k)
    groups[k].kernel = static_cast<uint32_t>(k);
  for (size_t i = 0; i < table.size(); ++i)
    groups[table.rows()[i].kernel].launches.push_back(static_cast<uint32_t>(i));
  return groups;
}

// RFC 4180: quote a field that holds a separator, a quote or a line break.
std::string csv_field(const std::string& text) {
  // Names may hold any bytes: control characters and bytes that are not UTF-8 become
  // visible escapes, so that the file stays UTF-8 text, one record a line.
  const std::string field = escape(text);
  if (field.find_first_of(",\"\r\n") == std::string::npos)
    return field;
  std::string quoted = "\"";
  for (const char c : field) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  quoted += '"';
  return quoted;
}

std::optional<int64_t> exact_integer(double value) {
  constexpr double k_exact_limit = 9007199254740992.0; // 2^53
  if (!std::isfinite(value) || std::fabs(value) >= k_exact_limit || std::trunc(value) != value)
    return std::nullopt;
  return static_cast<int64_t>(value);
}

} // namespace report_detail

namespace {

// 1-based nearest rank ceil(percent/100 * n), in integers so that 0.99 * 100 cannot
// round up to rank 100.
size_t nearest_rank(uint64_t percent, size_t n) {
  const auto rank = static_cast<size_t>((percent * n + 99) / 100);
  return std::clamp<size_t>(rank, 1, n);
}

nlohmann::ordered_json distribution_json(const Distribution& d) {
  nlohmann::ordered_json j;
  j["mean_ns"] = d.mean_ns;
  j["p50_ns"] = d.p50_ns;
  j["p99_ns"] = d.p99_ns;
  j["max_ns"] = d.max_ns;
  return j;
}

nlohmann::ordered_json stat_value_json(double value) {
  if (!std::isfinite(value))
    return nullptr; // JSON has no NaN or infinity
  if (const auto integer = report_detail::exact_integer(value)) {
    if (*integer >= 0)
      return static_cast<uint64_t>(*integer);
    return *integer;
  }
  return value;
}

// {<category>_ns..., total_ns}: parts of simulated time in TimeCategory order.
nlohmann::ordered_json breakdown_json(const TimeBreakdown& parts) {
  nlohmann::ordered_json j;
  uint64_t total_ps = 0;
  for (size_t c = 0; c < parts.size(); ++c) {
    j[std::string(category_name(static_cast<TimeCategory>(c))) + "_ns"] = ps_to_ns(parts[c]);
    total_ps += parts[c];
  }
  j["total_ns"] = ps_to_ns(total_ps);
  return j;
}

double stat_or_zero(const nlohmann::ordered_json& block, const char* name) {
  const auto it = block.find(name);
  return it != block.end() && it->is_number() ? it->get<double>() : 0.0;
}

// How busy each block was, from its statistics: ratios of simulated time (no unit
// suffix), bandwidths (_gbps) and times (_ns).
nlohmann::ordered_json utilisation_json(const nlohmann::ordered_json& blocks,
                                        uint64_t simulated_ps) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const double simulated_ns = ps_to_ns(simulated_ps);
  const auto share = [&](double ns) { return simulated_ns > 0 ? ns / simulated_ns : 0.0; };
  const auto starts = [](const std::string& name, const char* prefix) {
    return name.rfind(prefix, 0) == 0;
  };
  for (const auto& [name, b] : blocks.items()) {
    nlohmann::ordered_json u;
    if (starts(name, "compute.unit")) {
      u["busy"] = share(stat_or_zero(b, "busy_ns"));
      u["stalled"] = share(stat_or_zero(b, "stalled_on_memory_ns") +
                           stat_or_zero(b, "stalled_on_instructions_ns"));
      u["idle"] = share(stat_or_zero(b, "idle_ns"));
      u["mac_utilization"] = stat_or_zero(b, "mac_utilization");
    } else if (name == "dma") {
      u["busy"] = stat_or_zero(b, "utilization");
      u["total_gbps"] = stat_or_zero(b, "bandwidth_gbps");
      u["per_busy_channel_gbps"] = stat_or_zero(b, "busy_channel_gbps");
    } else if (name == "ddr") {
      u["data_bus_busy"] = stat_or_zero(b, "utilization");
      u["bandwidth_gbps"] = stat_or_zero(b, "bandwidth_gbps");
      u["peak_gbps"] = stat_or_zero(b, "peak_gbps");
    } else if (name == "sram") {
      u["port_busy"] = stat_or_zero(b, "utilization");
    } else if (name == "icache") {
      u["hit_rate"] = stat_or_zero(b, "hit_rate");
      u["fetch_stall_ns"] = stat_or_zero(b, "fetch_stall_ns");
    } else if (name == "icache.l2") {
      u["hit_rate"] = stat_or_zero(b, "hit_rate");
    } else if (starts(name, "scheduler.queue")) {
      u["occupancy"] = stat_or_zero(b, "occupancy");
      u["mean_depth"] = stat_or_zero(b, "mean_depth");
    } else if (b.contains("utilization")) {
      u["busy"] = stat_or_zero(b, "utilization");
    } else {
      continue;
    }
    out[name] = std::move(u);
  }
  return out;
}

} // namespace

Distribution summarize(std::vector<uint64_t> values_ps) {
  Distribution d;
  if (values_ps.empty())
    return d;
  std::sort(values_ps.begin(), values_ps.end());
  const size_t n = values_ps.size();
  // long double holds every uint64_t exactly; the sum only overflows beyond that.
  long double sum_ps = 0;
  for (const uint64_t v : values_ps)
    sum_ps += static_cast<long double>(v);
  // Round the mean to whole picoseconds so it has at most 3 decimals in ns.
  const auto mean_ps = static_cast<uint64_t>(std::roundl(sum_ps / static_cast<long double>(n)));
  d.count = n;
  d.mean_ns = ps_to_ns(mean_ps);
  d.p50_ns = ps_to_ns(values_ps[nearest_rank(50, n) - 1]);
  d.p99_ns = ps_to_ns(values_ps[nearest_rank(99, n) - 1]);
  d.max_ns = ps_to_ns(values_ps.back());
  return d;
}

namespace {

// "00" to "99".
constexpr char k_digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                 "25262728293031323334353637383940414243444546474849"
                                 "50515253545556575859606162636465666768697071727374"
                                 "75767778798081828384858687888990919293949596979899";

// Writes `value` (below 10^9) in decimal at `p`; returns the end. One call per number
// of launches.csv adds up: the value is scaled once to a binary fraction of 10^m (m
// even), whose integer part is the leading one or two digits; each multiplication of
// the fraction by 100 then brings the next pair up, without a division (J. Jeon's and
// jeaiii's method). 57 fraction bits hold every 9-digit value exactly enough.
[[gnu::always_inline]] inline char* put_small(char* p, uint32_t value) {
  constexpr int kBits = 57;
  constexpr uint64_t kMask = (uint64_t{1} << kBits) - 1;
  // ceil(2^57 / 10^m) for m = 2, 4, 6, 8.
  constexpr uint64_t kScale[] = {1441151880758559, 14411518807586, 144115188076, 1441151881};
  if (value < 100) {
    if (value < 10) {
      *p = static_cast<char>('0' + value);
      return p + 1;
    }
    std::memcpy(p, k_digit_pairs + 2 * value, 2);
    return p + 2;
  }
  const unsigned pairs = value < 10000 ? 1 : value < 1000000 ? 2 : value < 100000000 ? 3 : 4;
  uint64_t f = value * kScale[pairs - 1];
  const auto lead = static_cast<unsigned>(f >> kBits);
  if (lead < 10) {
    *p++ = static_cast<char>('0' + lead);
  } else {
    std::memcpy(p, k_digit_pairs + 2 * lead, 2);
    p += 2;
  }
  for (unsigned i = 0; i < pairs; ++i) {
    f = (f & kMask) * 100;
    std::memcpy(p, k_digit_pairs + 2 * (f >> kBits), 2);
    p += 2;
  }
  return p;
}

// put_ns' rare case (a second or more), out of line.
[[gnu::noinline]] char* put_large(char* p, uint64_t value) {
  return std::to_chars(p, p + 20, value).ptr;
}

// Writes picoseconds as "12.345" (ns with three decimals) at `p`, which has room for
// 24 characters; returns the end. Inline: launches.csv writes 17 or more per row.
[[gnu::always_inline]] inline char* put_ns(char* p, uint64_t ps) {
  const uint64_t ns = ps / 1000;
  p = ns < 1000000000 ? put_small(p, static_cast<uint32_t>(ns)) : put_large(p, ns);
  const auto frac = static_cast<unsigned>(ps - ns * 1000);
  p[0] = '.';
  p[1] = static_cast<char>('0' + frac / 100);
  std::memcpy(p + 2, k_digit_pairs + 2 * (frac % 100), 2);
  return p + 4;
}

} // namespace

std::string format_ns(uint64_t ps) {
  char text[24];
  return std::string(text, put_ns(text, ps));
}

namespace {

nlohmann::ordered_json tiling_json(const OpTiling& t) {
  nlohmann::ordered_json j;
  j["op"] = t.op;
  j["units"] = t.units;
  j["shape"] = t.shape;
  j["tiles"] = t.tiles;
  j["folds"] = t.folds;
  j["array_cycles"] = t.array_cycles;
  j["vector_cycles"] = t.vector_cycles;
  j["macs"] = t.macs;
  j["vector_ops"] = t.vector_ops;
  nlohmann::ordered_json operands = nlohmann::ordered_json::array();
  for (size_t i = 0; i < t.operand_bytes.size(); ++i) {
    nlohmann::ordered_json o;
    o["bytes"] = t.operand_bytes[i];
    o["loaded_bytes"] = i < t.load_bytes.size() ? t.load_bytes[i] : 0;
    operands.push_back(std::move(o));
  }
  j["operands"] = std::move(operands);
  j["result_bytes"] = t.result_bytes;
  j["stored_bytes"] = t.store_bytes;
  j["compute_bound_ns"] = t.compute_bound_ns;
  j["memory_bound_ns"] = t.memory_bound_ns;
  j["bound_ns"] = std::max(t.compute_bound_ns, t.memory_bound_ns);
  return j;
}

} // namespace

void add_tilings(const std::vector<KernelTiling>& tilings, const LaunchTable& table,
                 const Peaks& peaks, nlohmann::ordered_json* kernels) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < table.kernels().size(); ++i)
    index.emplace(table.kernels()[i], i);
  for (const KernelTiling& k : tilings) {
    const auto at = index.find(k.kernel);
    if (at == index.end() || !kernels->contains(k.kernel) ||
        (*kernels)[k.kernel].contains("tiling"))
      continue; // never launched, or a second kernel of the same name
    nlohmann::ordered_json ops = nlohmann::ordered_json::array();
    for (const OpTiling& t : k.ops)
      ops.push_back(tiling_json(t));
    nlohmann::ordered_json& kernel = (*kernels)[k.kernel];
    kernel["tiling"] = std::move(ops);
    // The roofline bound of its launches as they ran, against the mean execute phase:
    // their work at the peak rates of the units they ran on, or the bytes they moved to
    // and from DDR at the DDR's peak, whichever is longer (per launch, on average).
    const LaunchWork& work = table.work()[at->second];
    const double launches = kernel.value("launches", 1.0);
    const double memory_ns = peaks.dram_bytes_per_s > 0 ? static_cast<double>(work.dram_bytes) /
                                                              peaks.dram_bytes_per_s * 1e9
                                                        : 0.0;
    const double bound_ns =
        std::max(static_cast<double>(work.compute_roof_ps) / 1e3, memory_ns) / launches;
    const double execute_ns = kernel["execute"].value("mean_ns", 0.0);
    nlohmann::ordered_json roofline;
    roofline["bound_ns"] = bound_ns;
    roofline["execute_ns"] = execute_ns;
    roofline["execute_over_bound"] = bound_ns > 0 ? execute_ns / bound_ns : 0.0;
    kernel["roofline"] = std::move(roofline);
  }
}

namespace {

// Per kernel: its launch count, the distribution of each phase, and its tilings.
nlohmann::ordered_json kernels_json(const LaunchTable& table,
                                    const std::vector<KernelTiling>& tilings, const Peaks& peaks) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::object();
  for (const auto& group : report_detail::group_by_kernel(table)) {
    nlohmann::ordered_json kernel;
    kernel["launches"] = group.launches.size();
    std::vector<uint64_t> values_ps(group.launches.size());
    for (const auto& phase : report_detail::k_json_phases) {
      std::transform(group.launches.begin(), group.launches.end(), values_ps.begin(),
                     [&](uint32_t i) { return phase.duration_ps(table.rows()[i]); });
      kernel[phase.name] = distribution_json(summarize(values_ps));
    }
    kernels[table.kernels()[group.kernel]] = std::move(kernel);
  }
  add_tilings(tilings, table, peaks, &kernels);
  return kernels;
}

nlohmann::ordered_json host_json(const RunReport& report) {
  nlohmann::ordered_json host;
  host["busy_ns"] = ps_to_ns(report.host.busy_ps);
  host["blocked_ns"] = ps_to_ns(report.host.blocked_ps);
  host["idle_ns"] = ps_to_ns(report.host.idle_ps);
  host["leaked_buffers"] = report.leaks.buffers;
  host["leaked_bytes"] = report.leaks.bytes;
  return host;
}

// `blocks` (statistic values per block) and `stat_units` (each statistic's unit and
// description) into `j`.
void add_blocks(const std::vector<StatGroup>& groups, nlohmann::ordered_json& j) {
  nlohmann::ordered_json blocks = nlohmann::ordered_json::object();
  nlohmann::ordered_json units = nlohmann::ordered_json::object();
  for (const auto& group : groups) {
    // A block seen twice merges; one without statistics still appears.
    nlohmann::ordered_json block = blocks.value(group.block, nlohmann::ordered_json::object());
    for (const auto& stat : group.stats) {
      block[stat.name] = stat_value_json(stat.value);
      units[group.block + "." + stat.name] = {{"unit", stat.unit},
                                              {"description", stat.description}};
    }
    blocks[group.block] = std::move(block);
  }
  j["blocks"] = std::move(blocks);
  j["stat_units"] = std::move(units);
}

nlohmann::ordered_json events_json(const std::vector<EventMeasurement>& measurements) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const EventMeasurement& m : measurements) {
    nlohmann::ordered_json e;
    e["label"] = m.label;
    e["at_ns"] = ps_to_ns(m.at_ps);
    if (m.is_query()) {
      e["event"] = m.start;
      e["complete"] = m.elapsed_ps != 0;
    } else {
      e["start"] = m.start;
      e["end"] = m.end;
      e["elapsed_ns"] = static_cast<double>(m.elapsed_ps) / 1000.0;
    }
    events.push_back(std::move(e));
  }
  return events;
}

nlohmann::ordered_json critical_path_json(const CriticalPath& path) {
  nlohmann::ordered_json critical = breakdown_json(path.ps);
  critical["launches"] = path.launches;
  critical["host_gaps"] = path.host_gaps;
  nlohmann::ordered_json path_kernels = nlohmann::ordered_json::array();
  for (const PathKernel& k : path.kernels)
    path_kernels.push_back(
        {{"kernel", k.kernel}, {"launches", k.launches}, {"ns", ps_to_ns(k.ps)}});
  critical["kernels"] = std::move(path_kernels);
  return critical;
}

} // namespace

nlohmann::ordered_json to_json(const RunReport& report) {
  nlohmann::ordered_json j;
  j["config"] = report.effective_config.is_null() ? nlohmann::ordered_json::object()
                                                  : report.effective_config;
  if (!report.testbench.is_null())
    j["testbench"] = report.testbench;
  j["config_file"] = report.config_file;
  j["testbench_file"] = report.testbench_file;
  j["config_name"] = report.config_name;
  j["testbench_name"] = report.testbench_name;

  // Sub-objects are built apart and moved in: ordered_json keeps members in a vector,
  // so a reference into `j` dies when the next key is added.
  LaunchTable built;
  if (report.table.empty() && !report.launches.empty())
    built = make_launch_table(report.launches);
  const LaunchTable& table = report.table.empty() ? built : report.table;

  j["kernels"] = kernels_json(table, report.tilings, report.peaks);
  j["host"] = host_json(report);
  add_blocks(report.blocks, j);
  if (!report.events.empty())
    j["events"] = events_json(report.events);

  nlohmann::ordered_json sim;
  sim["fidelity"] = report_fidelity(j);
  sim["simulated_ns"] = ps_to_ns(report.simulated_ps);
  sim["launches"] = table.size();
  sim["wall_s"] = report.wall_s;
  j["sim"] = std::move(sim);

  const TimeShares shares = time_shares(table, report.simulated_ps);
  j["breakdown"] = breakdown_json(shares.parts);
  j["critical_path"] = critical_path_json(critical_path(table, report.simulated_ps));
  j["utilisation"] = utilisation_json(j["blocks"], report.simulated_ps);
  j["peaks"] = peaks_json(report.peaks);
  j["layers"] = layers_json(layer_figures(table, shares.kernel_ps, report.peaks));
  if (!report.energy.empty())
    j["energy"] = energy_json(report.energy, report.technology, table, report.simulated_ps);
  return j;
}

std::string report_fidelity(const nlohmann::ordered_json& report) {
  const auto& sim = json_member(report, "sim");
  if (const auto it = sim.find("fidelity"); it != sim.end() && it->is_string())
    return it->get<std::string>();
  const auto& model = json_member(json_member(report, "config"), "ddr");
  if (const auto it = model.find("model"); it != model.end() && it->is_string())
    return it->get<std::string>();
  return "cycle";
}

void write_launches_csv_header(std::ostream& out) {
  out << "launch_id,kernel,stream,unit,t0_ns,t1_ns,t2_ns,t3_ns,t4_ns,t5_ns,t6_ns,"
         "prepare_ns,submit_ns,schedule_wait_ns,schedule_dispatch_ns,iload_ns,execute_ns,"
         "complete_ns,execute_ifetch_stall_ns,released_by,host_after,units,unit_t4_ns,"
         "unit_t5_ns\n";
}

namespace {

// A row of launches.csv in the making: fields go into a buffer written out when full
// and at the end of the row (one stream call per row, where each call costs about as
// much as formatting a field).
class RowBuffer {
public:
  explicit RowBuffer(std::ostream& out) : m_out(out) {}
  /// Room for `n` more characters (n <= kBytes).
  char* room(size_t n) {
    if (m_p + n > m_text + kBytes)
      flush();
    return m_p;
  }
  void done(char* p) { m_p = p; }
  void put(char c) {
    *room(1) = c;
    ++m_p;
  }
  /// A text field, quoted as csv_field() quotes it where it must be.
  void field(const std::string& text) {
    if (text.size() <= kBytes / 4 &&
        (plain_ascii(text) ||
         (text.find_first_of(",\"") == std::string::npos && is_printable(text)))) {
      char* p = room(text.size());
      done(std::copy(text.begin(), text.end(), p));
      return;
    }
    flush();
    m_out << report_detail::csv_field(text);
  }
  void flush() {
    m_out.write(m_text, m_p - m_text);
    m_p = m_text;
  }

private:
  /// Printable ASCII without a comma or a quote (most names): written as it is, found
  /// in one pass. Anything else takes the general check.
  static bool plain_ascii(const std::string& text) {
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c >= 0x7F || c == ',' || c == '"')
        return false;
    }
    return true;
  }

  static constexpr size_t kBytes = 1024;
  std::ostream& m_out;
  char m_text[kBytes];
  char* m_p = m_text;
};

// The last three columns: each unit's number, t4 and t5, ';'-separated in the same
// order. A record without spans (made by hand) ran on `unit` alone, if anywhere.
void write_unit_spans(RowBuffer& row, const LaunchRecord& r) {
  const UnitSpan alone{static_cast<uint32_t>(std::max(r.unit, 0)), r.at[Stamp::Resident],
                       r.at[Stamp::Finished]};
  const UnitSpan* begin = r.unit_spans.data();
  const UnitSpan* end = begin + r.unit_spans.size();
  if (r.unit_spans.empty() && r.unit >= 0) {
    begin = &alone;
    end = begin + 1;
  }
  constexpr size_t kRoom = 26; // a separator and one value
  for (int column = 0; column < 3; ++column) {
    row.put(',');
    for (const UnitSpan* s = begin; s != end; ++s) {
      char* p = row.room(kRoom);
      if (s != begin)
        *p++ = ';';
      row.done(column == 0   ? std::to_chars(p, p + 12, s->unit).ptr
               : column == 1 ? put_ns(p, s->resident_ps)
                             : put_ns(p, s->finished_ps));
    }
  }
  row.put('\n');
}

} // namespace

void write_launches_csv_row(std::ostream& out, const LaunchRecord& r) {
  // One row per launch, written while the simulation runs: built without a format
  // string or temporaries (formatting once cost more than the launch it records).
  RowBuffer row(out);
  char* p = row.room(24);
  p = std::to_chars(p, p + 20, r.launch_id).ptr;
  *p++ = ',';
  row.done(p);
  row.field(r.kernel);
  row.put(',');
  row.field(r.stream);
  p = row.room(24 * 19);
  *p++ = ',';
  p = std::to_chars(p, p + 12, r.unit).ptr;
  for (const uint64_t t : r.at) {
    *p++ = ',';
    p = put_ns(p, t);
  }
  for (const uint64_t phase_ps :
       {r.prepare_ps(), r.submit_ps(), r.schedule_wait_ps(), r.schedule_dispatch_ps, r.iload_ps(),
        r.execute_ps(), r.complete_ps(), r.ifetch_stall_ps}) {
    *p++ = ',';
    p = put_ns(p, phase_ps);
  }
  for (const int64_t cause : {r.released_by, r.host_after}) {
    *p++ = ',';
    p = std::to_chars(p, p + 20, cause).ptr;
  }
  row.done(p);
  write_unit_spans(row, r);
  row.flush();
}

void write_launches_csv(std::ostream& out, const std::vector<LaunchRecord>& launches) {
  write_launches_csv_header(out);
  for (const auto& r : launches)
    write_launches_csv_row(out, r);
}

} // namespace npu
