#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// JEDEC timing parameters of one device, in memory-clock (CK) cycles.
struct DramTiming {
  uint32_t CL = 0;    ///< read latency: RD to first data beat
  uint32_t CWL = 0;   ///< write latency: WR to first data beat
  uint32_t RCD = 0;   ///< ACT to RD/WR, same bank
  uint32_t RP = 0;    ///< PRE to ACT, same bank (and PRE/PREA to REF)
  uint32_t RAS = 0;   ///< ACT to PRE, same bank
  uint32_t RC = 0;    ///< ACT to ACT, same bank (and ACT to REF)
  uint32_t RRD_S = 0; ///< ACT to ACT, same rank, different bank group
  uint32_t RRD_L = 0; ///< ACT to ACT, same rank, same bank group
  uint32_t FAW = 0;   ///< window that holds at most four ACTs of one rank
  uint32_t WTR_S = 0; ///< end of write data to RD, same rank, different bank group
  uint32_t WTR_L = 0; ///< end of write data to RD, same rank, same bank group
  uint32_t RTP = 0;   ///< RD to PRE, same bank
  uint32_t WR = 0;    ///< write recovery: end of write data to PRE, same bank
  uint32_t CCD_S = 0; ///< RD to RD (WR to WR), same rank, different bank group
  uint32_t CCD_L = 0; ///< RD to RD (WR to WR), same rank, same bank group
  uint32_t RFC = 0;   ///< REF to ACT (all-bank refresh busy time)
  uint32_t REFI = 0;  ///< average interval between all-bank refreshes of one rank
  uint32_t RTRS = 0;  ///< data-bus turnaround when consecutive bursts come from different ranks
};

/// Datasheet currents of one supply rail of one device, in mA, as DRAMPower names them:
/// IDD0 one-bank ACT-PRE, IDD2N precharged standby, IDD3N active standby, IDD4R/IDD4W burst
/// read/write, IDD5 burst (all-bank) refresh.
struct DramRailCurrents {
  double volts = 0;
  double idd0_ma = 0, idd2n_ma = 0, idd3n_ma = 0, idd4r_ma = 0, idd4w_ma = 0, idd5_ma = 0;
};

/// What DRAMPower needs to turn a command schedule into energy: the device width (a rank
/// has bus width / device width devices), the currents of the main rail (VDD, or VDD1 on
/// LPDDR) and of a second rail where the device has one (VPP on DDR4, VDD2 on LPDDR4/5;
/// zero volts when absent), and the I/O (interface and termination) energy per data bit.
struct DramPowerSpec {
  uint32_t device_width_bits = 8;
  DramRailCurrents vdd;
  DramRailCurrents vdd2;
  double io_read_pj_per_bit = 0;
  double io_write_pj_per_bit = 0;
};

/// Geometry and timing of one DRAM type: what a controller needs to schedule commands.
/// Counts are per channel (ranks) or per rank (bank groups, banks).
struct DramSpec {
  std::string name;
  uint32_t channels = 1;
  uint32_t ranks = 1;
  uint32_t bank_groups = 1;
  uint32_t banks_per_group = 1;
  uint32_t rows = 1;    ///< rows per bank
  uint32_t columns = 1; ///< device columns per row (one column = bus_width_bits)
  uint32_t bus_width_bits = 64;
  uint32_t burst_length = 8;  ///< data beats per access (BL)
  uint32_t access_bytes = 64; ///< bytes moved by one RD or WR
  double data_rate_mts = 3200;
  double tck_ps = 625; ///< memory (command) clock period
  DramTiming t;
  DramPowerSpec power;

  uint32_t banks() const { return bank_groups * banks_per_group; }
  uint64_t row_bytes() const { return uint64_t{columns} * bus_width_bits / 8; }
  /// Data beats per memory clock: 2 for DDR4/LPDDR4/HBM, 8 for LPDDR5 (WCK = 4 x CK).
  uint32_t beats_per_clock() const;
  /// Memory clocks one access occupies the data bus: BL / beats per clock (BL/2 on DDR4).
  uint32_t burst_cycles() const { return burst_length / beats_per_clock(); }
  /// Peak bandwidth of one channel in bytes per second.
  double channel_bytes_per_s() const { return data_rate_mts * 1e6 * bus_width_bits / 8.0; }
  /// Bytes held by one channel.
  uint64_t channel_bytes() const { return uint64_t{ranks} * banks() * rows * row_bytes(); }
};

/// How the controller runs: scheduler, queues, page policy, write draining, refresh.
struct DramControllerConfig {
  enum class PagePolicy { Open, Closed };
  /// FR-FCFS: ready row hits first, then oldest; FCFS: oldest per bank, by age alone.
  enum class Scheduler { FrFcfs, Fcfs };
  Scheduler scheduler = Scheduler::FrFcfs;
  uint32_t read_queue = 32;  ///< read-queue entries
  uint32_t write_queue = 32; ///< write-queue entries
  double write_high = 0.8;   ///< start draining writes at this fill of the write queue
  double write_low = 0.2;    ///< stop draining at this fill (when reads wait)
  PagePolicy page_policy = PagePolicy::Open;
  bool refresh = true; ///< all-bank refresh every tREFI per rank
};

/// Names of the presets, sorted.
std::vector<std::string> dram_preset_names();
/// The preset called `name` (one channel, one rank); throws std::out_of_range if unknown.
DramSpec dram_preset(const std::string& name);

/// Timing keys as written in configs ("CL", "RCD", ...) with a pointer to the field.
struct DramTimingKey {
  const char* name;
  uint32_t DramTiming::*field;
  const char* meaning;
};
const std::vector<DramTimingKey>& dram_timing_keys();

/// Energy keys as written in configs (`ddr.energy`): name, the field, its meaning.
struct DramPowerKey {
  const char* name;
  double& (*field)(DramPowerSpec&);
  const char* meaning;
};
const std::vector<DramPowerKey>& dram_power_keys();

/// "" when the spec is self-consistent, else the reason (e.g. a geometry that is not
/// a power of two, CCD_S shorter than the burst).
std::string check_dram_spec(const DramSpec& spec);

} // namespace npu
