#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"
#include "models/common/tlm_util.h"

#include <cstdint>

namespace npu {

/// A PCIe-like link between host and device (a discrete card). Each direction
/// carries its own traffic: lanes x rate with 128b/130b encoding, and every
/// transaction layer packet of up to max_payload bytes pays a header.
struct PcieConfig {
  bool enabled = false;
  uint64_t latency_ps = 500000; ///< one way, through root complex and switch
  uint32_t lanes = 16;
  double rate_gts = 16;                ///< per lane, GT/s (Gen4 = 16)
  uint64_t max_payload_bytes = 256;    ///< bytes per packet
  uint64_t packet_overhead_bytes = 24; ///< header, sequence number, CRC, framing

  /// Data bytes per second of one direction after encoding, before packet overhead.
  double raw_bytes_per_s() const { return lanes * rate_gts * 1e9 * 128.0 / 130.0 / 8.0; }
  PcieEnergy energy; ///< per bit (filled from `energy.pcie`)
};

/// Address-mapped router between initiators (host, scheduler, DMA, caches) and
/// targets (DDR, SRAM, registers), and the optional host link.
struct InterconnectConfig {
  /// How transactions carry data: a burst each, timed without waits (the fast path), or
  /// every 64-byte DRAM access waited for on its own.
  Granularity granularity = Granularity::Burst;
  uint64_t hop_latency_ps = 2000; ///< per traversal, each direction included
  double port_bytes_per_s = 64e9; ///< bandwidth of each target port
  PcieConfig pcie;
  uint64_t host_memory_bytes = 64ull << 30; ///< host DRAM behind the link (discrete only)
  uint64_t host_memory_latency_ps = 80000;  ///< host DRAM access latency
  InterconnectEnergy energy; ///< per byte and hop, leakage (filled from `energy.interconnect`)
};

InterconnectConfig read_interconnect_config(cfg::Section& section);

} // namespace npu
