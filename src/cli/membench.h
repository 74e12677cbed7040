#pragma once

#include "cli/limit_options.h"
#include "models/common/energy.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

/// What `npusim membench` runs: the DDR model of a config, alone, under a built-in
/// pattern or a Ramulator 2 load/store trace.
struct MembenchOptions {
  std::string config_path;
  std::vector<std::string> overrides; ///< --set key.path=value
  std::string pattern;                ///< seq_read | rand_read | seq_write | mix_rw
  uint64_t requests = 0;              ///< with a pattern
  std::string trace_path;             ///< instead of a pattern
  LimitOptions limits;                ///< --max-memory
  bool quiet = false;                 ///< --quiet: no progress line on the terminal
};

/// One 64-byte access of a membench run.
struct MembenchAccess {
  uint64_t addr = 0;
  bool is_write = false;
};

/// Hands out the accesses of a run in order: true and the next one in `out`, or false at
/// the end. The engine pulls them as it offers them, so nothing holds a whole run.
using MembenchSource = std::function<bool(MembenchAccess& out)>;

/// A built-in pattern, generated one access at a time (fixed seeds): seq_* address i*64;
/// rand_read uniform 64-byte lines over 1 GiB; mix_rw uniform lines, each a write with
/// probability 0.5. Constant memory whatever the request count.
class MembenchPattern {
public:
  /// Throws InputError for an unknown pattern.
  MembenchPattern(const std::string& pattern, uint64_t requests);
  bool next(MembenchAccess& out);

private:
  enum class Kind { SeqRead, SeqWrite, RandRead, MixRw };
  Kind m_kind = Kind::SeqRead;
  uint64_t m_requests = 0;
  uint64_t m_issued = 0;
  std::mt19937_64 m_rng;
  std::uniform_int_distribution<uint64_t> m_line;
  std::bernoulli_distribution m_coin{0.5};
};

/// All accesses of a built-in pattern at once (for tests and short runs).
std::vector<MembenchAccess> membench_pattern(const std::string& pattern, uint64_t requests);
/// Reads a trace: one `LD 0x3b499b40` or `ST 0x38eeb640` a line; blank lines and lines
/// starting with '#' are skipped. Errors are InputError with file:line:column.
std::vector<MembenchAccess> read_membench_trace(const std::string& path);
/// The same for a trace already in memory; `origin` names it in errors. No file access and
/// no SystemC, so it can be fuzzed alone.
std::vector<MembenchAccess> parse_membench_trace(std::string_view text, const std::string& origin);

/// Figures of one run. Times in memory clocks are converted with the preset's tCK.
struct MembenchResult {
  uint64_t requests = 0, reads = 0, writes = 0;
  uint64_t cycles = 0; ///< first request offered to last data burst
  double simulated_ns = 0;
  double bandwidth_gbps = 0;
  double read_latency_mean_ns = 0, read_latency_p50_ns = 0, read_latency_p99_ns = 0;
  double row_hit_rate = 0;
  uint64_t refreshes = 0;
  double wall_s = 0;
  double requests_per_wall_s = 0;
  /// DRAM energy from cycle 0 to the last data burst (DRAMPower's method, dram_energy.h).
  BlockEnergy energy;
  double energy_pj_per_bit = 0; ///< energy over the bits moved
};

struct DdrConfig;
/// Drives one DramChannel per channel (routed by the mapping's channel field), offering
/// one request per memory clock in order and stalling while its queue is full, until
/// every request has completed. Memory stays bounded by the requests in flight: latencies
/// are kept as a histogram, so the percentiles are exact.
/// `progress` (if given) is called every few thousand requests with the requests offered
/// so far and the simulated time in picoseconds.
using MembenchProgress = std::function<void(uint64_t offered, uint64_t simulated_ps)>;
MembenchResult run_membench_engine(const DdrConfig& config, const MembenchSource& next,
                                   const MembenchProgress& progress = {});
MembenchResult run_membench_engine(const DdrConfig& config,
                                   const std::vector<MembenchAccess>& accesses,
                                   const MembenchProgress& progress = {});

/// `npusim membench`: prints one JSON object on stdout. Returns 0, 2 on bad input (one
/// "npusim: ..." line on stderr), 1 on internal errors.
int run_membench(const MembenchOptions& options);

} // namespace npu
