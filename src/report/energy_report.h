#pragma once
// Energy of a run: each block's parts charged to the launch phase during which the
// action happened, or to a share outside the launches (memory, other, static), so that
// phases and shares add up to the total. Plain logic, no SystemC.

#include "models/common/energy.h"
#include "models/common/initiator.h"
#include "report/analysis.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace npu {

/// Where a part's energy is charged: the six launch phases, then the shares outside them.
enum class EnergyShare : uint8_t {
  Prepare,
  Submit,
  Schedule,
  Iload,
  Execute,
  Complete,
  Memory, ///< DRAM energy (not split by phase)
  Other,  ///< dynamic energy outside launches: copies, events, other host work
  Static, ///< leakage and idle power
};
inline constexpr size_t k_energy_phases = 6; ///< shares that are launch phases
inline constexpr size_t k_energy_shares = 9;

/// Machine name of a share ("prepare", ..., "static").
const char* energy_share_name(EnergyShare share);

/// The share a block's part goes to (see docs/energy.md).
EnergyShare energy_share_of(const std::string& block, const std::string& part);

/// The DDR's energy `whole` with its access parts (activate, precharge, read, write, io)
/// split among the initiators by the bytes each moved ("icache_read", "dma_activate", ...),
/// so that a launch phase can be charged the DRAM accesses it caused; refresh and
/// background stay whole. Reads and writes split by read and write bytes, the rest by all
/// bytes. The parts add up to the same total.
BlockEnergy dram_energy_by_initiator(const BlockEnergy& whole, const InitiatorBytes& bytes);

/// Energy per share over a run.
std::array<double, k_energy_shares> energy_by_share(const std::vector<BlockEnergy>& blocks);

/// The report's `energy` object: technology, total_pj, average_power_w, tops_per_w,
/// edp_js, blocks.<name>_pj, parts.<block>.<part>_pj, phases.<phase>_pj,
/// shares.<share>_pj and kernels.<name>.<phase>_pj (mean per launch: each phase's
/// energy shared among launches in proportion to their time in it).
nlohmann::ordered_json energy_json(const std::vector<BlockEnergy>& blocks,
                                   const std::string& technology, const LaunchTable& table,
                                   uint64_t simulated_ps);

/// The text summary's energy section (nothing when the report has no `energy`).
void print_energy(std::ostream& out, const nlohmann::ordered_json& report);

/// Rows section,name,metric,value,unit of the `energy` object, for --format csv.
void energy_csv_rows(
    const nlohmann::ordered_json& report,
    const std::function<void(const std::string&, const std::string&, const std::string&,
                             const nlohmann::ordered_json&, const std::string&)>& row);

} // namespace npu
