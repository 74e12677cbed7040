#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

// Per-action energies and static powers of the blocks, with their published sources.
// Defaults are at the reference technology of Horowitz's table, 45 nm and 0.9 V
// (docs/references.md [horowitz-isscc2014]); the platform scales them to a config's
// `technology` section with Technology::scale(). Plain values, no SystemC.
namespace npu {

/// Energy (pJ) of `mw` milliwatts held for `ps` picoseconds (1 mW x 1 ps = 1e-3 pJ).
inline double static_pj(double mw, uint64_t ps) {
  return mw * 1e-3 * static_cast<double>(ps);
}

/// Process node and supply of the NPU's logic and SRAM.
struct Technology {
  static constexpr double kReferenceNodeNm = 45; ///< [horowitz-isscc2014]
  static constexpr double kReferenceVoltageV = 0.9;
  double node_nm = kReferenceNodeNm;
  double voltage_v = kReferenceVoltageV;
  bool from_config = false; ///< false: the defaults (no `technology` section)

  /// Dynamic energy scales with switched capacitance (about linear in the feature size
  /// under constant-field scaling [dennard-1974]) times V^2: (node/45) * (V/0.9)^2.
  double scale() const {
    const double v = voltage_v / kReferenceVoltageV;
    return node_nm / kReferenceNodeNm * v * v;
  }
};

/// Horowitz, "Computing's energy problem", ISSCC 2014, 45 nm, 0.9 V [horowitz-isscc2014].
namespace horowitz {
inline constexpr double kInt8AddPj = 0.03;
inline constexpr double kInt8MultPj = 0.2;
inline constexpr double kInt32AddPj = 0.1;
inline constexpr double kFp16AddPj = 0.4;
inline constexpr double kFp16MultPj = 1.1;
inline constexpr double kFp32AddPj = 0.9;
inline constexpr double kFp32MultPj = 3.7;
/// 64-bit reads of an SRAM array of 8 KB, 32 KB and 1 MB.
inline constexpr double kSram8KbPj = 10;
inline constexpr double kSram32KbPj = 20;
inline constexpr double kSram1MbPj = 100;
/// One instruction on a simple 45 nm in-order core: about 70 pJ all told
/// (fetch, decode, register file, control), of which the add is 0.1 pJ.
inline constexpr double kInstructionPj = 70;
} // namespace horowitz

/// Energy of one access `width_bytes` wide to an SRAM array of `array_bytes`, at 45 nm:
/// Horowitz's 64-bit reads (8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ) interpolated in
/// log-log between the points (extrapolated along the nearest segment), times the width
/// in 64-bit words.
inline double sram_access_pj(uint64_t array_bytes, uint64_t width_bytes) {
  const double kb = std::max<double>(static_cast<double>(array_bytes) / 1024.0, 1.0);
  const double lx = std::log(kb);
  const double x0 = std::log(8.0), x1 = std::log(32.0), x2 = std::log(1024.0);
  const double y0 = std::log(horowitz::kSram8KbPj), y1 = std::log(horowitz::kSram32KbPj),
               y2 = std::log(horowitz::kSram1MbPj);
  const double y =
      lx < x1 ? y0 + (lx - x0) * (y1 - y0) / (x1 - x0) : y1 + (lx - x1) * (y2 - y1) / (x2 - x1);
  return std::exp(y) * static_cast<double>(width_bytes) / 8.0;
}

/// A MAC of each data type: one multiply and one add (int8 accumulates in int32).
struct MacEnergy {
  double int8_pj = horowitz::kInt8MultPj + horowitz::kInt32AddPj; ///< 0.3 pJ
  double fp16_pj = horowitz::kFp16MultPj + horowitz::kFp16AddPj;  ///< 1.5 pJ
  /// bf16: no entry in Horowitz's table; est. as fp16 (same multiplier width class).
  double bf16_pj = horowitz::kFp16MultPj + horowitz::kFp16AddPj;
  double fp32_pj = horowitz::kFp32MultPj + horowitz::kFp32AddPj; ///< 4.6 pJ
};

/// Compute unit: MAC array, vector unit, leakage.
struct ComputeEnergy {
  MacEnergy mac;
  /// A vector element operation: est. one add plus one multiply of the element type
  /// (Horowitz's int8 mult + int32 add: activation, scale, add) [horowitz-isscc2014].
  double vector_op_pj = horowitz::kInt8MultPj + horowitz::kInt32AddPj;
  /// Leakage per MAC of the array while powered: est. 20 uW (a 1024-MAC unit leaks
  /// ~20 mW, about a tenth of its dynamic power at full rate, in line with leakage at
  /// 10-30% of total power in 45-65 nm logic [horowitz-isscc2014]).
  double static_mw_per_mac = 0.02;
};

/// Shared SRAM: per bank-wide access, and leakage per MiB.
struct SramEnergy {
  /// Per access of one bank's width; 0 = derived from bank size and width with
  /// sram_access_pj() [horowitz-isscc2014].
  double access_pj = 0;
  /// Leakage: est. 10 mW per MiB at 45 nm (6T cells leak tens of pA each; 8.4 M cells).
  double static_mw_per_mib = 10;
};

/// Per-unit instruction cache.
struct ICacheEnergy {
  /// A lookup: tags and one 64-bit instruction word; 0 = sram_access_pj(size, 8 B).
  double lookup_pj = 0;
  /// A fill: writing one line; 0 = sram_access_pj(size, line).
  double fill_pj = 0;
  double static_mw_per_mib = 10; ///< est., as SramEnergy
};

/// DMA engine: its channel buffers read and write each byte once.
struct DmaEnergy {
  /// est.: two 64-bit accesses of an 8 KB buffer per 8 bytes (2 x 10 pJ / 8 B)
  /// [horowitz-isscc2014].
  double per_byte_pj = 2 * horowitz::kSram8KbPj / 8;
  double static_mw = 1; ///< est.: channel state and buffers
};

/// On-chip interconnect, per byte per hop; a transfer crosses two hops (initiator to
/// router, router to target).
struct InterconnectEnergy {
  /// About 0.1 pJ per bit per mm of on-chip wire [keckler-micro2011]; est. 1 mm a hop.
  double per_byte_hop_pj = 0.8;
  double static_mw = 1; ///< est.: router buffers and arbitration
};

/// PCIe link (discrete cards): not scaled by `technology` (a separate SerDes PHY).
struct PcieEnergy {
  /// A PCIe Gen4 transmitter draws 1.93 pJ/bit [bae-pcie-gen4-tx]; est. 5 pJ/bit for
  /// transmitter, receiver and link layer together.
  double per_bit_pj = 5;
};

/// Command processor (scheduler): per cycle of decode, dispatch and event work.
struct SchedulerEnergy {
  /// One instruction of a simple in-order core, about 70 pJ at 45 nm [horowitz-isscc2014]:
  /// est. one per command-processor cycle.
  double cycle_pj = horowitz::kInstructionPj;
  double static_mw = 5; ///< est.: a small control core's leakage
};

/// Host CPU core running the host program: not scaled by `technology` (another chip).
struct HostEnergy {
  /// est.: one busy core of an application processor or a server socket's share,
  /// about 2 W (a Cortex-A76-class big core runs ~1-2 W at full clock).
  double busy_w = 2;
  /// Polling spins the core at full power: est. as busy.
  double polling_w = 2;
  /// Asleep in a blocking wait (a shallow C-state): est. 0.1 W.
  double sleeping_w = 0.1;
  /// After the host program ends: est. as sleeping.
  double idle_w = 0.1;
};

} // namespace npu
