#include "report/layers.h"

#include "report/report.h"
#include "report/report_detail.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <ostream>

namespace npu {

using report_detail::number;
using report_detail::ps_to_ns;
using Json = nlohmann::ordered_json;

const char* bound_name(Bound bound) {
  switch (bound) {
  case Bound::Compute:
    return "compute";
  case Bound::Memory:
    return "memory";
  case Bound::Iload:
    return "iload";
  case Bound::Host:
    return "host";
  }
  return "?";
}

Bound classify_bound(const LayerFigures& layer) {
  const uint64_t device_ps = layer.iload_ps + layer.execute_ps;
  if (layer.host_ps > device_ps)
    return Bound::Host;
  const uint64_t instructions_ps = layer.iload_ps + layer.ifetch_stall_ps;
  if (instructions_ps > 0 && 2 * instructions_ps >= device_ps)
    return Bound::Iload;
  return layer.memory_roof_ps > layer.work.compute_roof_ps ? Bound::Memory : Bound::Compute;
}

std::vector<LayerFigures> layer_figures(const LaunchTable& table, uint64_t end_ps,
                                        const Peaks& peaks) {
  return layer_figures(table, kernel_time(table, end_ps), peaks);
}

std::vector<LayerFigures> layer_figures(const LaunchTable& table,
                                        const std::vector<uint64_t>& time_ps, const Peaks& peaks) {
  std::vector<LayerFigures> layers(table.kernels().size());
  for (size_t k = 0; k < layers.size(); ++k) {
    layers[k].kernel = table.kernels()[k];
    layers[k].time_ps = time_ps[k];
    if (k < table.work().size())
      layers[k].work = table.work()[k];
  }
  for (const LaunchRow& row : table.rows()) {
    LayerFigures& l = layers[row.kernel];
    ++l.launches;
    l.total_ps += row.total_ps();
    l.host_ps += row.prepare_ps() + row.submit_ps();
    l.iload_ps += row.iload_ps();
    l.execute_ps += row.execute_ps();
    l.ifetch_stall_ps += row.ifetch_stall_ps;
  }
  for (LayerFigures& l : layers)
    if (peaks.dram_bytes_per_s > 0)
      l.memory_roof_ps = static_cast<uint64_t>(
          std::llround(static_cast<double>(l.work.dram_bytes) / peaks.dram_bytes_per_s * 1e12));
  // Kernel indices are in order of first launch: a stable sort keeps it among equals.
  std::stable_sort(layers.begin(), layers.end(), [](const LayerFigures& a, const LayerFigures& b) {
    return a.time_ps > b.time_ps;
  });
  return layers;
}

namespace {

double ratio(double part, double whole) {
  return whole > 0 ? part / whole : 0.0;
}

} // namespace

Json layers_json(const std::vector<LayerFigures>& layers) {
  Json out = Json::array();
  for (const LayerFigures& l : layers) {
    Json j;
    j["kernel"] = l.kernel;
    j["launches"] = l.launches;
    j["time_ns"] = ps_to_ns(l.time_ps);
    j["total_ns"] = ps_to_ns(l.total_ps);
    j["host_ns"] = ps_to_ns(l.host_ps);
    j["iload_ns"] = ps_to_ns(l.iload_ps);
    j["execute_ns"] = ps_to_ns(l.execute_ps);
    j["execute_ifetch_stall_ns"] = ps_to_ns(l.ifetch_stall_ps);
    j["macs"] = l.work.macs;
    j["vector_ops"] = l.work.vector_ops;
    j["dram_bytes"] = l.work.dram_bytes;
    j["compute_roof_ns"] = ps_to_ns(l.work.compute_roof_ps);
    j["memory_roof_ns"] = ps_to_ns(l.memory_roof_ps);
    const auto execute = static_cast<double>(l.execute_ps);
    j["mac_utilisation"] = ratio(static_cast<double>(l.work.mac_roof_ps), execute);
    // null: no DRAM bytes, an intensity without bound.
    j["macs_per_byte"] =
        l.work.dram_bytes > 0
            ? Json(static_cast<double>(l.work.macs) / static_cast<double>(l.work.dram_bytes))
            : Json(nullptr);
    j["macs_per_s"] = ratio(static_cast<double>(l.work.macs), execute / 1e12);
    j["bound"] = bound_name(classify_bound(l));
    out.push_back(std::move(j));
  }
  return out;
}

Json peaks_json(const Peaks& peaks) {
  Json j;
  j["macs_per_s"] = peaks.macs_per_s;
  j["dram_bytes_per_s"] = peaks.dram_bytes_per_s;
  return j;
}

namespace {

// A layer's or a group of layers' figures as the summary and layers.csv show them.
struct LayerLine {
  std::string name;
  uint64_t launches = 0;
  double time_ns = 0, execute_ns = 0, iload_ns = 0;
  double macs = 0, dram_bytes = 0, mac_roof_ns = 0;
  std::string bound;

  static LayerLine of(const Json& l) {
    LayerLine line;
    line.name = l.value("kernel", std::string());
    line.launches = l.value("launches", uint64_t{0});
    line.time_ns = number(l, "time_ns");
    line.execute_ns = number(l, "execute_ns");
    line.iload_ns = number(l, "iload_ns");
    line.macs = number(l, "macs");
    line.dram_bytes = number(l, "dram_bytes");
    line.mac_roof_ns = number(l, "mac_utilisation") * line.execute_ns;
    line.bound = l.value("bound", std::string());
    return line;
  }
  void add(const LayerLine& o) {
    launches += o.launches;
    time_ns += o.time_ns;
    execute_ns += o.execute_ns;
    iload_ns += o.iload_ns;
    macs += o.macs;
    dram_bytes += o.dram_bytes;
    mac_roof_ns += o.mac_roof_ns;
  }
  double utilisation() const { return ratio(mac_roof_ns, execute_ns); }
};

// 3 significant digits with an SI suffix: "950", "4.09G", "116M".
std::string si(double value) {
  static constexpr std::pair<double, const char*> k_prefixes[] = {
      {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [scale, suffix] : k_prefixes)
    if (value >= scale * 0.9995) {
      const double x = value / scale;
      return fmt::format("{:.{}f}{}", x, x < 9.995 ? 2 : x < 99.95 ? 1 : 0, suffix);
    }
  return fmt::format("{:.0f}", value);
}

std::string intensity_text(double macs, double bytes) {
  if (bytes <= 0)
    return "-";
  const double x = macs / bytes;
  return fmt::format("{:.{}f}", x, x < 9.995 ? 2 : x < 99.95 ? 1 : 0);
}

} // namespace

std::string layers_csv(const Json& report) {
  std::string out = "kernel,launches,time_us,exec_us,iload_us,macs_m,dram_mb,util,macs_per_b,"
                    "bound\n";
  for (const Json& l : json_member(report, "layers")) {
    const LayerLine line = LayerLine::of(l);
    const std::string intensity =
        line.dram_bytes > 0 ? fmt::format("{:.1f}", line.macs / line.dram_bytes) : "";
    out += fmt::format("{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{}\n",
                       report_detail::csv_field(line.name), line.launches, line.time_ns / 1e3,
                       line.execute_ns / 1e3, line.iload_ns / 1e3, line.macs / 1e6,
                       line.dram_bytes / 1e6, line.utilisation(), intensity, line.bound);
  }
  out += fmt::format("(device idle),0,{:.3f},0.000,0.000,0.000,0.000,0.000,,\n",
                     number(json_member(report, "breakdown"), "device_idle_ns") / 1e3);
  return out;
}

void print_layers(std::ostream& out, const Json& report, size_t top) {
  const Json& layers = json_member(report, "layers");
  if (layers.empty())
    return;
  const double simulated_ns = number(json_member(report, "sim"), "simulated_ns");
  const report_detail::TimeScale scale = report_detail::scale_for(simulated_ns);
  const size_t shown = top == 0 ? layers.size() : std::min(top, layers.size());
  if (shown == layers.size())
    out << fmt::format("\nlayers: {} kernel{}, most time first, times in {}\n", layers.size(),
                       layers.size() == 1 ? "" : "s", scale.name);
  else
    out << fmt::format("\nlayers: {} of {} kernels, most time first, times in {}\n", shown,
                       layers.size(), scale.name);
  // 2 + 12 + 6 + 9 + 10 + 10 + 6 + 6 + 5 + 6 + 1 + 7 ("compute") = 80 columns; the SI
  // figures take at most 5 characters, the times at most 8 below 10^4 of their unit.
  out << fmt::format("  {:<12}{:>6}{:>9}{:>10}{:>10}{:>6}{:>6}{:>5}{:>6} {}\n", "kernel", "n",
                     "time", "execute", "iload", "MACs", "DRAM", "util", "MAC/B", "bound");
  const double k = scale.ns_per_unit;
  const auto print = [&](const LayerLine& l, bool figures) {
    std::string line =
        fmt::format("  {:<12}{:>6}{:>9.3f}", report_detail::elide(l.name, 12),
                    figures ? std::to_string(l.launches) : std::string(), l.time_ns / k);
    if (figures)
      line += fmt::format("{:>10.3f}{:>10.3f}{:>6}{:>6}{:>4.0f}%{:>6} {}", l.execute_ns / k,
                          l.iload_ns / k, si(l.macs), si(l.dram_bytes), 100.0 * l.utilisation(),
                          intensity_text(l.macs, l.dram_bytes), escape(l.bound));
    line.erase(line.find_last_not_of(' ') + 1); // the sums have no bound
    out << line << '\n';
  };
  LayerLine run;
  run.name = "run";
  LayerLine rest;
  rest.name = fmt::format("{} more", layers.size() - shown);
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerLine line = LayerLine::of(layers[i]);
    run.add(line);
    if (i < shown)
      print(line, true);
    else
      rest.add(line);
  }
  if (shown < layers.size())
    print(rest, true);
  LayerLine idle;
  idle.name = "device idle";
  idle.time_ns = number(json_member(report, "breakdown"), "device_idle_ns");
  print(idle, false);
  run.time_ns += idle.time_ns;
  print(run, true);
}

} // namespace npu
