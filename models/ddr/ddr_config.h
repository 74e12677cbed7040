#pragma once

#include "config/section.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_spec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// How the DRAM is simulated (`ddr.model`): `cycle`, the cycle-approximate controller per
/// channel (FR-FCFS per 64-byte request, the reference), or `transaction`, the closed-form
/// transaction-level DRAM (TransactionDram), which the rest of the data path follows with
/// descriptor-level transactions.
enum class DdrModel : uint8_t { Cycle, Transaction };
const char* ddr_model_name(DdrModel model);

/// DRAM device timing and geometry, from a preset and overridable per key.
struct DdrConfig {
  std::string preset = "LPDDR4-3200";
  DdrModel model = DdrModel::Cycle;
  uint32_t channels = 1;
  uint32_t ranks = 1;
  std::string mapping = "RoBaCoBg";
  bool hash = false; ///< XOR the address bits above the channel into it (AddressMapper)
  uint64_t size_bytes = 4ull << 30;   ///< total capacity across channels
  double data_rate_mts = 3200;        ///< transfers per second per pin, millions
  uint32_t bus_width_bits = 16;       ///< data bus width of one channel
  uint64_t controller_latency_ps = 0; ///< front end and PHY, added to every access
  uint64_t row_bytes = 2048;          ///< row (page) size of one bank
  uint32_t banks = 8;                 ///< banks per rank
  uint32_t bank_groups = 1;           ///< bank groups per rank (banks are split among them)

  /// Geometry and JEDEC timings for the cycle-approximate controller: the preset, with
  /// channels, ranks, data_rate, bus_width, row, banks, bank_groups and timing applied.
  DramSpec spec;
  /// Queues, page policy, write watermarks, refresh.
  DramControllerConfig controller;
  /// Address fields, most significant first (`mapping` as a scheme name or a list).
  std::vector<DramField> mapping_fields;

  /// Peak bandwidth of one channel in bytes per second.
  double channel_bytes_per_s() const { return data_rate_mts * 1e6 * bus_width_bits / 8.0; }
};

/// Reads the `ddr` section (preset first, then any key overrides it).
DdrConfig read_ddr_config(cfg::Section& section);

} // namespace npu
