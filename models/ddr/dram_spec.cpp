#include "models/ddr/dram_spec.h"

#include <cmath>
#include <map>
#include <stdexcept>

namespace npu {
namespace {

bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

DramSpec make(const char* name, uint32_t bank_groups, uint32_t banks_per_group, uint32_t rows,
              uint32_t columns, uint32_t bus_width_bits, uint32_t burst_length,
              double data_rate_mts, double tck_ps, const DramTiming& t) {
  DramSpec s;
  s.name = name;
  s.bank_groups = bank_groups;
  s.banks_per_group = banks_per_group;
  s.rows = rows;
  s.columns = columns;
  s.bus_width_bits = bus_width_bits;
  s.burst_length = burst_length;
  s.access_bytes = 64;
  s.data_rate_mts = data_rate_mts;
  s.tck_ps = tck_ps;
  s.t = t;
  return s;
}

DramTiming timing(uint32_t cl, uint32_t cwl, uint32_t rcd, uint32_t rp, uint32_t ras, uint32_t rc,
                  uint32_t rrd_s, uint32_t rrd_l, uint32_t faw, uint32_t wtr_s, uint32_t wtr_l,
                  uint32_t rtp, uint32_t wr, uint32_t ccd_s, uint32_t ccd_l, uint32_t rfc,
                  uint32_t refi, uint32_t rtrs) {
  DramTiming t;
  t.CL = cl;
  t.CWL = cwl;
  t.RCD = rcd;
  t.RP = rp;
  t.RAS = ras;
  t.RC = rc;
  t.RRD_S = rrd_s;
  t.RRD_L = rrd_l;
  t.FAW = faw;
  t.WTR_S = wtr_s;
  t.WTR_L = wtr_l;
  t.RTP = rtp;
  t.WR = wr;
  t.CCD_S = ccd_s;
  t.CCD_L = ccd_l;
  t.RFC = rfc;
  t.REFI = refi;
  t.RTRS = rtrs;
  return t;
}

DramRailCurrents rail(double volts, double idd0, double idd2n, double idd3n, double idd4r,
                      double idd4w, double idd5) {
  return {volts, idd0, idd2n, idd3n, idd4r, idd4w, idd5};
}

DramSpec with_power(DramSpec s, uint32_t device_width_bits, const DramRailCurrents& vdd,
                    const DramRailCurrents& vdd2, double io_read_pj_per_bit,
                    double io_write_pj_per_bit) {
  s.power = {device_width_bits, vdd, vdd2, io_read_pj_per_bit, io_write_pj_per_bit};
  return s;
}

// Currents per device in mA, for DRAMPower's formulas (see dram_energy.h).
//
// DDR4: DRAMPower memspec MICRON_8Gb_DDR4-3200_8bit_G.xml (Micron 8 Gb x8 DDR4-3200AA,
// speed grade -062E, die revision G; the part and speed bin of the timings below):
// idd0 57, idd2n 37, idd3n 56, idd4r 168, idd4w 155, idd5 66 at vdd 1.2 V; on vdd2 (VPP)
// 2.5 V idd02 (IPP0) 3, idd3n2 (IPP3N) 3, idd52 (IPP5) 5. The memspec gives no IPP2N,
// IPP4R or IPP4W: they are taken as IPP3N, the pump's standby current (an increment
// below standby would make bursts give energy back).
// I/O: DRAMPower's DDR4 constants (MemorySpecification.h): 3.7 mW per DQ/DQS pin on reads,
// 17 mW per DQ/DQS/DM pin of write ODT, over one 0.3125 ns beat at 3200 MT/s:
// 3.7 x 0.3125 x 9/8 = 1.30 pJ and 17 x 0.3125 x 10/8 = 6.64 pJ per data bit.
const DramRailCurrents kDdr4Vdd = rail(1.2, 57.0, 37.0, 56.0, 168.0, 155.0, 66.0);
const DramRailCurrents kDdr4Vpp = rail(2.5, 3.0, 3.0, 3.0, 3.0, 3.0, 5.0);
// LPDDR4: DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit.json (the timings' source too):
// VDD1 1.8 V idd0 3.5, idd2n 2, idd3n 2.25, idd4r 2.25, idd4w 2.25, idd5 10; VDD2 1.1 V
// idd02 45, idd2n2 27, idd3n2 30, idd4r2 275, idd4w2 210, idd52 90. I/O from its VDDQ
// (1.1 V) burst currents over one BL32 burst (16 clocks, 10 ns) of 512 bits: idd4rq 150 mA
// -> 150 x 1.1 x 10 / 512 = 3.22 pJ/bit, idd4wq 55 mA -> 1.18 pJ/bit.
const DramRailCurrents kLpddr4Vdd1 = rail(1.8, 3.5, 2.0, 2.25, 2.25, 2.25, 10.0);
const DramRailCurrents kLpddr4Vdd2 = rail(1.1, 45.0, 27.0, 30.0, 275.0, 210.0, 90.0);
// LPDDR5 (estimate): no LPDDR5 memspec with currents in DRAMSys or DRAMPower. Rails at the
// Micron MT62F LPDDR5 datasheet's nominal VDD1 1.8 V and VDD2H 1.05 V, carrying the LPDDR4
// memspec's currents above (same 8 Gb x16 channel class); I/O scaled from LPDDR4's by
// (VDDQ 0.5 V / 1.1 V)^2: 0.67 and 0.24 pJ/bit.
const DramRailCurrents kLpddr5Vdd1 = rail(1.8, 3.5, 2.0, 2.25, 2.25, 2.25, 10.0);
const DramRailCurrents kLpddr5Vdd2h = rail(1.05, 45.0, 27.0, 30.0, 275.0, 210.0, 90.0);
// HBM2E (estimate): no HBM memspec with currents in DRAMSys or DRAMPower. VDD 1.2 V
// (JESD235C). Currents of DRAMsim3's HBM2 memspec (configs/HBM2_8Gb_x128.ini: one 128-bit
// channel at 2 Gb/s; IDD0 65, IDD2N 40, IDD3N 55, IDD4R 390, IDD4W 500, IDD5AB 250 mA)
// [dramsim3]; at 3.2 Gb/s a burst is 1.6x shorter, so the read and write increments over
// IDD3N are 1.6x larger and a burst costs the same energy per bit: 55 + 1.6 x 335 = 591,
// 55 + 1.6 x 445 = 767 mA (1.57 and 2.09 pJ/bit). I/O energy has no source here and is
// left at 0; set ddr.energy.io_read_pj_per_bit / io_write_pj_per_bit.
const DramRailCurrents kHbm2eVdd = rail(1.2, 65.0, 40.0, 55.0, 591.0, 767.0, 250.0);

const std::map<std::string, DramSpec>& presets() {
  // Every access moves 64 bytes, so BL = 512 / bus width: a x16 LPDDR channel uses BL32.
  // Timings are in memory-clock (CK) cycles. Columns = row bytes / bus bytes.
  static const std::map<std::string, DramSpec> table = {
      // JESD79-4 DDR4-3200AA (Ramulator 2 DDR4_3200AA, DDR4_8Gb_x8): 8 Gb x8 devices on a
      // 64-bit channel, 4 bank groups x 4 banks, 64Ki rows x 1Ki columns (8 KiB rows), BL8,
      // 1600 MHz. tRRD/tFAW are the x8 (1 KiB page) values; tRFC 350 ns (8 Gb), tREFI 7.8 us;
      // rank switch tRTRS = Ramulator 2's nCS.
      {"DDR4-3200",
       with_power(make("DDR4-3200", 4, 4, 65536, 1024, 64, 8, 3200, 625,
                       timing(/*CL*/ 22, /*CWL*/ 16, /*RCD*/ 22, /*RP*/ 22, /*RAS*/ 52,
                              /*RC*/ 74, /*RRD_S*/ 4, /*RRD_L*/ 8, /*FAW*/ 34, /*WTR_S*/ 4,
                              /*WTR_L*/ 12, /*RTP*/ 12, /*WR*/ 24, /*CCD_S*/ 4, /*CCD_L*/ 8,
                              /*RFC*/ 576, /*REFI*/ 12480, /*RTRS*/ 2)),
                  8, kDdr4Vdd, kDdr4Vpp, 1.30078125, 6.640625)},
      // JESD209-4 LPDDR4-3200, values of DRAMSys JEDEC_8Gb_LPDDR4-3200_16bit.json: x16
      // channel, 8 banks (no bank groups), 64Ki rows x 1Ki columns (2 KiB rows), 1600 MHz.
      // RL 28, WL 14, tRCD/tRPpb 18 ns (29), tRAS 42 ns (68), tRC 97, tRRD 10 ns (16),
      // tFAW 40 ns (64), tWTR 10 ns (16), tRTP 12, tWR 18 ns (29), tRFCab 280 ns (448),
      // tREFI 3.9 us (6246), tRTRS 1. 64 bytes need BL32: 16 clocks, so tCCD = 16.
      {"LPDDR4-3200", with_power(make("LPDDR4-3200", 1, 8, 65536, 1024, 16, 32, 3200, 625,
                                      timing(28, 14, 29, 29, 68, 97, 16, 16, 64, 16, 16, 12, 29, 16,
                                             16, 448, 6246, 1)),
                                 16, kLpddr4Vdd1, kLpddr4Vdd2, 3.22265625, 1.181640625)},
      // JESD209-5 LPDDR5-6400 in bank-group mode (4 BG x 4 banks), x16 channel, 8 Gb:
      // 32Ki rows x 1Ki columns (2 KiB rows). CK 800 MHz (tCK 1.25 ns), WCK:CK 4:1, so a
      // clock carries 8 beats and BL32 (64 bytes) takes 4 clocks. RL 17, WL 9 (set A,
      // DBI off); tRCD 18 ns (15), tRPpb 18 ns (15), tRAS 42 ns (34), tRC 60 ns (48),
      // tRRD 5 ns (4), tFAW 20 ns (16), tWTR_S 6.25 ns (5), tWTR_L 12 ns (10),
      // tRTP 7.5 ns (6), tWR 34 ns (28), tRFCab 210 ns (168), tREFI 3.906 us (3125), as in
      // Ramulator 2 LPDDR5_6400 where it agrees with JESD209-5. tCCD_L 8 (two BL16 tCCD_L of
      // 4 clocks for a BL32 in one bank group) is an estimate.
      {"LPDDR5-6400",
       with_power(make("LPDDR5-6400", 4, 4, 32768, 1024, 16, 32, 6400, 1250,
                       timing(17, 9, 15, 15, 34, 48, 4, 4, 16, 5, 10, 6, 28, 4, 8, 168, 3125, 1)),
                  16, kLpddr5Vdd1, kLpddr5Vdd2h, 0.666, 0.244)},
      // JESD235C HBM2E at 3.2 Gb/s, one 128-bit (legacy-mode) channel, 4 BG x 4 banks,
      // 32Ki rows x 64 columns (1 KiB rows), BL4 (2 clocks), tCK 0.625 ns. CL/RCD/RP 14 ns
      // (22). The rest are DRAMSys HBM2.json (1 GHz) nanosecond values rounded up at
      // 0.625 ns: tRAS 28 ns (45), tRC 42.5 ns (68), tRRD_S 4 ns (7), tRRD_L 6 ns (10),
      // tFAW 16 ns (26), tWTR_S 4 ns (7), tWTR_L 9 ns (15), tRTP 5 ns (8), tWR 14 ns (23),
      // WL 7 ns (12), tRFC 220 ns (352), tREFI 3.9 us (6240); tCCD_S 2, tCCD_L 4 clocks.
      {"HBM2E",
       with_power(make("HBM2E", 4, 4, 32768, 64, 128, 4, 3200, 625,
                       timing(22, 12, 22, 22, 45, 68, 7, 10, 26, 7, 15, 8, 23, 2, 4, 352, 6240, 1)),
                  128, kHbm2eVdd, DramRailCurrents{}, 0, 0)},
  };
  return table;
}

} // namespace

uint32_t DramSpec::beats_per_clock() const {
  const long beats = std::lround(data_rate_mts * tck_ps * 1e-6);
  return beats < 1 ? 1u : static_cast<uint32_t>(beats);
}

std::vector<std::string> dram_preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : presets())
    names.push_back(name);
  return names;
}

DramSpec dram_preset(const std::string& name) {
  const auto it = presets().find(name);
  if (it == presets().end())
    throw std::out_of_range("unknown DRAM preset '" + name + "'");
  return it->second;
}

const std::vector<DramTimingKey>& dram_timing_keys() {
  static const std::vector<DramTimingKey> keys = {
      {"CL", &DramTiming::CL, "read latency"},
      {"CWL", &DramTiming::CWL, "write latency"},
      {"RCD", &DramTiming::RCD, "ACT to RD/WR"},
      {"RP", &DramTiming::RP, "PRE to ACT"},
      {"RAS", &DramTiming::RAS, "ACT to PRE"},
      {"RC", &DramTiming::RC, "ACT to ACT, same bank"},
      {"RRD_S", &DramTiming::RRD_S, "ACT to ACT, other bank group"},
      {"RRD_L", &DramTiming::RRD_L, "ACT to ACT, same bank group"},
      {"FAW", &DramTiming::FAW, "four-activate window"},
      {"WTR_S", &DramTiming::WTR_S, "write to read, other bank group"},
      {"WTR_L", &DramTiming::WTR_L, "write to read, same bank group"},
      {"RTP", &DramTiming::RTP, "RD to PRE"},
      {"WR", &DramTiming::WR, "write recovery"},
      {"CCD_S", &DramTiming::CCD_S, "CAS to CAS, other bank group"},
      {"CCD_L", &DramTiming::CCD_L, "CAS to CAS, same bank group"},
      {"RFC", &DramTiming::RFC, "refresh cycle time"},
      {"REFI", &DramTiming::REFI, "refresh interval"},
      {"RTRS", &DramTiming::RTRS, "rank-to-rank data-bus turnaround"},
  };
  return keys;
}

const std::vector<DramPowerKey>& dram_power_keys() {
#define NPU_POWER_KEY(name, expr, meaning)                                                         \
  DramPowerKey {                                                                                   \
    name, [](DramPowerSpec& p) -> double& { return p.expr; }, meaning                              \
  }
  static const std::vector<DramPowerKey> keys = {
      NPU_POWER_KEY("VDD_V", vdd.volts, "main rail (VDD, VDD1 on LPDDR)"),
      NPU_POWER_KEY("IDD0_mA", vdd.idd0_ma, "one-bank ACT-PRE current"),
      NPU_POWER_KEY("IDD2N_mA", vdd.idd2n_ma, "precharged standby current"),
      NPU_POWER_KEY("IDD3N_mA", vdd.idd3n_ma, "active standby current"),
      NPU_POWER_KEY("IDD4R_mA", vdd.idd4r_ma, "burst read current"),
      NPU_POWER_KEY("IDD4W_mA", vdd.idd4w_ma, "burst write current"),
      NPU_POWER_KEY("IDD5_mA", vdd.idd5_ma, "burst refresh current"),
      NPU_POWER_KEY("VDD2_V", vdd2.volts, "second rail (VPP on DDR4, VDD2 on LPDDR)"),
      NPU_POWER_KEY("IDD02_mA", vdd2.idd0_ma, "second rail: ACT-PRE current"),
      NPU_POWER_KEY("IDD2N2_mA", vdd2.idd2n_ma, "second rail: precharged standby current"),
      NPU_POWER_KEY("IDD3N2_mA", vdd2.idd3n_ma, "second rail: active standby current"),
      NPU_POWER_KEY("IDD4R2_mA", vdd2.idd4r_ma, "second rail: burst read current"),
      NPU_POWER_KEY("IDD4W2_mA", vdd2.idd4w_ma, "second rail: burst write current"),
      NPU_POWER_KEY("IDD52_mA", vdd2.idd5_ma, "second rail: burst refresh current"),
      NPU_POWER_KEY("io_read_pj_per_bit", io_read_pj_per_bit, "I/O energy per bit read"),
      NPU_POWER_KEY("io_write_pj_per_bit", io_write_pj_per_bit, "I/O energy per bit written"),
  };
#undef NPU_POWER_KEY
  return keys;
}

std::string check_dram_spec(const DramSpec& s) {
  const auto pow2 = [](const char* what, uint64_t v) -> std::string {
    if (!is_pow2(v))
      return std::string(what) + " must be a power of two, got " + std::to_string(v);
    return "";
  };
  for (const auto& [what, v] : {std::pair<const char*, uint64_t>{"channels", s.channels},
                                {"ranks", s.ranks},
                                {"bank groups", s.bank_groups},
                                {"banks per bank group", s.banks_per_group},
                                {"rows", s.rows},
                                {"row bytes", s.row_bytes()}}) {
    const std::string e = pow2(what, v);
    if (!e.empty())
      return e;
  }
  if (s.row_bytes() < s.access_bytes)
    return "a row (" + std::to_string(s.row_bytes()) + " bytes) is smaller than one " +
           std::to_string(s.access_bytes) + "-byte access";
  if (s.burst_length * s.bus_width_bits != s.access_bytes * 8)
    return "burst length " + std::to_string(s.burst_length) + " x bus width " +
           std::to_string(s.bus_width_bits) + " bits does not move " +
           std::to_string(s.access_bytes) + " bytes";
  if (s.burst_length % s.beats_per_clock() != 0)
    return "a " + std::to_string(s.access_bytes) + "-byte burst of " +
           std::to_string(s.burst_length) + " beats is not a whole number of memory clocks (" +
           std::to_string(s.beats_per_clock()) + " beats per clock)";
  const DramTiming& t = s.t;
  if (t.CL == 0 || t.CWL == 0 || t.RCD == 0 || t.RP == 0 || t.RAS == 0 || t.RC == 0)
    return "CL, CWL, RCD, RP, RAS and RC must be at least 1 cycle";
  if (t.CCD_S < s.burst_cycles())
    return "CCD_S (" + std::to_string(t.CCD_S) + ") must be at least the burst (" +
           std::to_string(s.burst_cycles()) + " cycles)";
  if (t.CCD_L < t.CCD_S)
    return "CCD_L must not be shorter than CCD_S";
  if (t.RRD_L < t.RRD_S)
    return "RRD_L must not be shorter than RRD_S";
  if (t.WTR_L < t.WTR_S)
    return "WTR_L must not be shorter than WTR_S";
  if (t.REFI <= t.RFC + t.RP)
    return "REFI (" + std::to_string(t.REFI) + ") must be longer than RFC + RP (" +
           std::to_string(t.RFC + t.RP) + ")";
  return "";
}

} // namespace npu
