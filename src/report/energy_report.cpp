#include "report/energy_report.h"

#include "common/escape.h"
#include "report/report.h"

#include <fmt/format.h>

#include <ostream>

namespace npu {
namespace {

using Json = nlohmann::ordered_json;

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// Parts by block; a part named "static" is leakage everywhere, a part not listed
// counts as "other".
struct PartShare {
  const char* block;
  const char* part;
  EnergyShare share;
};
constexpr std::array<PartShare, 17> k_part_shares{{
    {"host", "prepare", EnergyShare::Prepare},
    {"host", "submit", EnergyShare::Submit},
    {"host", "busy_other", EnergyShare::Other},
    {"host", "polling", EnergyShare::Complete},
    {"host", "sleeping", EnergyShare::Complete},
    {"host", "idle", EnergyShare::Static},
    {"interconnect", "host_bytes", EnergyShare::Submit},
    {"interconnect", "scheduler_bytes", EnergyShare::Schedule},
    {"interconnect", "icache_bytes", EnergyShare::Iload},
    {"interconnect", "dma_bytes", EnergyShare::Execute},
    {"interconnect", "compute_bytes", EnergyShare::Execute},
    {"dma", "kernel_bytes", EnergyShare::Execute},
    {"sram", "access", EnergyShare::Execute},
    {"icache", "lookup", EnergyShare::Iload},
    {"icache", "fill", EnergyShare::Iload},
    {"scheduler", "kernel_commands", EnergyShare::Schedule},
    {"compute", "vector", EnergyShare::Execute},
}};

// Each phase's time in a launch: how its energy is shared among the launches.
uint64_t phase_ps(const LaunchTimes& t, size_t phase) {
  switch (static_cast<EnergyShare>(phase)) {
  case EnergyShare::Prepare:
    return t.prepare_ps();
  case EnergyShare::Submit:
    return t.submit_ps();
  case EnergyShare::Schedule:
    return t.schedule_ps();
  case EnergyShare::Iload:
    return t.iload_ps();
  case EnergyShare::Execute:
    return t.execute_ps();
  default:
    return t.complete_ps();
  }
}

Json kernels_json(const std::array<double, k_energy_shares>& shares, const LaunchTable& table) {
  const size_t kernels = table.kernels().size();
  std::vector<uint64_t> launches(kernels, 0);
  std::vector<std::array<double, k_energy_phases>> weight(kernels);
  std::array<double, k_energy_phases> total_weight{};
  for (const LaunchRow& r : table.rows()) {
    ++launches[r.kernel];
    for (size_t p = 0; p < k_energy_phases; ++p) {
      const auto w = static_cast<double>(phase_ps(r, p));
      weight[r.kernel][p] += w;
      total_weight[p] += w;
    }
  }
  Json out = Json::object();
  for (size_t k = 0; k < kernels; ++k) {
    Json j;
    j["launches"] = launches[k];
    double sum = 0;
    for (size_t p = 0; p < k_energy_phases; ++p) {
      // A phase no launch spent time in is shared by launch count.
      const double part = total_weight[p] > 0 ? weight[k][p] / total_weight[p]
                                              : static_cast<double>(launches[k]) /
                                                    static_cast<double>(table.size());
      const double mean = shares[p] * part / static_cast<double>(launches[k]);
      j[std::string(energy_share_name(static_cast<EnergyShare>(p))) + "_pj"] = mean;
      sum += mean;
    }
    j["total_pj"] = sum;
    out[table.kernels()[k]] = std::move(j);
  }
  return out;
}

// A DRAM part: refresh and background are the memory's own; an access part
// ("icache_read", ...) goes where its initiator's traffic goes on the interconnect.
EnergyShare dram_share(const std::string& part) {
  const size_t cut = part.find('_');
  if (cut == std::string::npos || starts_with(part, "background_"))
    return EnergyShare::Memory;
  return energy_share_of("interconnect", part.substr(0, cut) + "_bytes");
}

} // namespace

const char* energy_share_name(EnergyShare share) {
  static constexpr std::array<const char*, k_energy_shares> names{
      "prepare", "submit", "schedule", "iload", "execute", "complete", "memory", "other", "static"};
  return names[static_cast<size_t>(share)];
}

EnergyShare energy_share_of(const std::string& block, const std::string& part) {
  if (part == "static")
    return EnergyShare::Static;
  if (block == "ddr")
    return dram_share(part);
  if (block == "compute" && starts_with(part, "mac_"))
    return EnergyShare::Execute;
  for (const PartShare& s : k_part_shares)
    if (block == s.block && part == s.part)
      return s.share;
  return EnergyShare::Other;
}

BlockEnergy dram_energy_by_initiator(const BlockEnergy& whole, const InitiatorBytes& by_initiator) {
  BlockEnergy out{whole.block, {}};
  for (const EnergyPart& part : whole.parts) {
    // The bytes that share an access part: reads, writes, or both; refresh and background
    // belong to no initiator.
    const bool read = part.name == "read", write = part.name == "write";
    if (!read && !write && part.name != "activate" && part.name != "precharge" &&
        part.name != "io") {
      out.parts.push_back(part);
      continue;
    }
    std::array<uint64_t, kInitiators> bytes{};
    uint64_t total = 0;
    size_t last = 0; // the last initiator with bytes takes the remainder: exact sums
    for (size_t who = 0; who < kInitiators; ++who) {
      const auto& [rd, wr] = by_initiator[who];
      bytes[who] = read ? rd : write ? wr : rd + wr;
      total += bytes[who];
      last = bytes[who] > 0 ? who : last;
    }
    if (total == 0) {
      out.parts.push_back(part);
      continue;
    }
    double given = 0;
    for (size_t who = 0; who <= last; ++who) {
      if (bytes[who] == 0)
        continue;
      const double pj =
          who == last ? part.pj - given : part.pj * static_cast<double>(bytes[who]) / total;
      given += pj;
      out.add(std::string(initiator_name(static_cast<Initiator>(who))) + "_" + part.name, pj);
    }
  }
  return out;
}

std::array<double, k_energy_shares> energy_by_share(const std::vector<BlockEnergy>& blocks) {
  std::array<double, k_energy_shares> out{};
  for (const BlockEnergy& b : blocks)
    for (const EnergyPart& p : b.parts)
      out[static_cast<size_t>(energy_share_of(b.block, p.name))] += p.pj;
  return out;
}

Json energy_json(const std::vector<BlockEnergy>& blocks, const std::string& technology,
                 const LaunchTable& table, uint64_t simulated_ps) {
  Json j;
  j["technology"] = technology;
  double total = 0;
  Json by_block = Json::object();
  Json parts = Json::object();
  for (const BlockEnergy& b : blocks) {
    total += b.total_pj();
    by_block[b.block + "_pj"] = b.total_pj();
    Json p = Json::object();
    for (const EnergyPart& part : b.parts)
      p[part.name + "_pj"] = part.pj;
    parts[b.block] = std::move(p);
  }
  uint64_t macs = 0, vector_ops = 0;
  for (const LaunchWork& w : table.work()) {
    macs += w.macs;
    vector_ops += w.vector_ops;
  }
  j["total_pj"] = total;
  // pJ per ps is W; operations per pJ is TOPS/W.
  j["average_power_w"] = simulated_ps ? total / static_cast<double>(simulated_ps) : 0;
  j["tops_per_w"] = total > 0 ? static_cast<double>(2 * macs + vector_ops) / total : 0;
  j["edp_js"] = total * 1e-12 * static_cast<double>(simulated_ps) * 1e-12;
  j["blocks"] = std::move(by_block);
  j["parts"] = std::move(parts);
  const auto shares = energy_by_share(blocks);
  Json phases = Json::object();
  for (size_t s = 0; s < k_energy_phases; ++s)
    phases[std::string(energy_share_name(static_cast<EnergyShare>(s))) + "_pj"] = shares[s];
  j["phases"] = std::move(phases);
  Json rest = Json::object();
  for (size_t s = k_energy_phases; s < k_energy_shares; ++s)
    rest[std::string(energy_share_name(static_cast<EnergyShare>(s))) + "_pj"] = shares[s];
  j["shares"] = std::move(rest);
  if (!table.empty())
    j["kernels"] = kernels_json(shares, table);
  return j;
}

namespace {

double num(const Json& j, const std::string& key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string strip_pj(const std::string& key) {
  return key.size() > 3 && key.compare(key.size() - 3, 3, "_pj") == 0
             ? key.substr(0, key.size() - 3)
             : key;
}

} // namespace

void print_energy(std::ostream& out, const Json& report) {
  const auto it = report.find("energy");
  if (it == report.end() || !it->is_object())
    return;
  const Json& e = *it;
  const double total = num(e, "total_pj");
  const double sim_ns = num(json_member(report, "sim"), "simulated_ns");
  out << fmt::format("\nenergy ({}), {:.3f} uJ, {:.3f} W average\n",
                     escape(e.value("technology", std::string())), total * 1e-6,
                     num(e, "average_power_w"));
  out << fmt::format("  {:.3f} TOPS/W, energy-delay {:.4g} J.s\n", num(e, "tops_per_w"),
                     num(e, "edp_js"));
  const auto share = [&](double pj) { return total > 0 ? 100.0 * pj / total : 0.0; };
  out << fmt::format("  {:<14}{:>16}{:>8}{:>12}\n", "block", "uJ", "share", "mW");
  for (const auto& [key, value] : json_member(e, "blocks").items()) {
    const double pj = value.get<double>();
    out << fmt::format("  {:<14}{:>16.3f}{:>7.1f}%{:>12.3f}\n", escape(strip_pj(key)), pj * 1e-6,
                       share(pj), sim_ns > 0 ? pj / (sim_ns * 1e3) * 1e3 : 0.0);
  }
  out << fmt::format("  {:<14}{:>16}{:>8}\n", "phase / share", "uJ", "share");
  for (const char* group : {"phases", "shares"})
    for (const auto& [key, value] : json_member(e, group).items()) {
      const double pj = value.get<double>();
      out << fmt::format("  {:<14}{:>16.3f}{:>7.1f}%\n", escape(strip_pj(key)), pj * 1e-6,
                         share(pj));
    }
}

void energy_csv_rows(
    const Json& report,
    const std::function<void(const std::string&, const std::string&, const std::string&,
                             const Json&, const std::string&)>& row) {
  const auto it = report.find("energy");
  if (it == report.end() || !it->is_object())
    return;
  const Json& e = *it;
  row("energy", "", "technology", e.value("technology", std::string()), "");
  row("energy", "", "total", e.value("total_pj", Json(0)), "pJ");
  row("energy", "", "average_power", e.value("average_power_w", Json(0)), "W");
  row("energy", "", "tops_per_w", e.value("tops_per_w", Json(0)), "TOPS/W");
  row("energy", "", "edp", e.value("edp_js", Json(0)), "J.s");
  for (const char* group : {"blocks", "phases", "shares"})
    for (const auto& [key, value] : json_member(e, group).items())
      row("energy", group, strip_pj(key), value, "pJ");
  for (const auto& [name, k] : json_member(e, "kernels").items())
    for (const auto& [key, value] : k.items())
      row("energy_kernel", name, strip_pj(key), value, key == "launches" ? "count" : "pJ");
}

} // namespace npu
