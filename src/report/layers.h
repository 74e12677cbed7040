#pragma once
// The per-layer report: one line per kernel with its time, work, DRAM traffic, the
// roofs it ran under and what bounds it. Plain logic, no SystemC.

#include "report/analysis.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace npu {

/// The config's peak rates, from which the roofs are drawn.
struct Peaks {
  double macs_per_s = 0;       ///< every compute unit's MAC array at int8, together
  double dram_bytes_per_s = 0; ///< the DDR's peak bandwidth, every channel together
};

/// What bounds a kernel (see classify_bound()).
enum class Bound { Compute, Memory, Iload, Host };

/// "compute", "memory", "iload" or "host".
const char* bound_name(Bound bound);

/// One kernel's figures, summed over its launches.
struct LayerFigures {
  std::string kernel;
  uint64_t launches = 0;
  uint64_t time_ps = 0;         ///< its share of the run (kernel_time())
  uint64_t total_ps = 0;        ///< launch to completion (t6 - t0)
  uint64_t host_ps = 0;         ///< prepare + submit: the host's launch calls
  uint64_t iload_ps = 0;        ///< t4 - t3
  uint64_t execute_ps = 0;      ///< t5 - t4
  uint64_t ifetch_stall_ps = 0; ///< instruction-fetch stalls inside execute
  LaunchWork work;
  uint64_t memory_roof_ps = 0; ///< its DRAM bytes at the DDR's peak bandwidth
};

/// What bounds a kernel, from its figures summed over its launches, in this order:
///  host     the host's launch calls (prepare + submit) take longer than the device's
///           iload + execute: the device runs the kernel faster than the host issues it;
///  iload    instruction loading (iload plus the fetch stalls inside execute) takes at
///           least half of iload + execute;
///  memory   its memory roof (DRAM bytes at the DDR's peak) exceeds its compute roof
///           (its MACs, vector operations and busy cycles at the peak rates of the units
///           it ran on);
///  compute  otherwise.
Bound classify_bound(const LayerFigures& layer);

/// Every launched kernel's figures, the most time first (ties: first launched first).
std::vector<LayerFigures> layer_figures(const LaunchTable& table, uint64_t end_ps,
                                        const Peaks& peaks);
/// The same, given each kernel's share of the run (kernel_time()).
std::vector<LayerFigures> layer_figures(const LaunchTable& table,
                                        const std::vector<uint64_t>& time_ps, const Peaks& peaks);

/// report.json's "layers": one object per kernel, in layer_figures() order.
nlohmann::ordered_json layers_json(const std::vector<LayerFigures>& layers);
/// report.json's "peaks".
nlohmann::ordered_json peaks_json(const Peaks& peaks);

/// layers.csv of a report document: one row per kernel, most time first, then one row
/// for the device's idle time, so that time_us adds up to the simulated time.
std::string layers_csv(const nlohmann::ordered_json& report);

/// The summary's per-layer section: the `top` kernels with the most time (0: all), the
/// rest summed in one line, the device's idle time and the run's sums.
void print_layers(std::ostream& out, const nlohmann::ordered_json& report, size_t top);

} // namespace npu
