#pragma once

#include "common/output_path.h"
#include "models/common/energy.h"
#include "models/common/launch_record.h"
#include "models/common/stats.h"
#include "report/analysis.h"
#include "report/layers.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace npu {

/// Where the host thread's simulated time went.
struct HostTime {
  uint64_t busy_ps = 0;    ///< packing params, driver calls, host_work, polling
  uint64_t blocked_ps = 0; ///< sleeping inside a sync call (interrupt mode)
  uint64_t idle_ps = 0;    ///< after the host program ended, until the simulation ended
};

/// What the host program measured with events: an elapsed time between two events
/// (`elapsed`), or whether an event had completed when it was queried (`query`).
struct EventMeasurement {
  std::string label;
  std::string start;      ///< event (the queried one for a query)
  std::string end;        ///< empty for a query
  uint64_t at_ps = 0;     ///< host time of the call
  int64_t elapsed_ps = 0; ///< elapsed: end - start; query: 1 if complete, else 0
  bool is_query() const { return end.empty(); }
};

/// Buffers the host program allocated and never freed.
struct Leaks {
  uint64_t buffers = 0;
  uint64_t bytes = 0;
  std::vector<std::string> list; ///< one description per buffer, in allocation order
};

/// Everything one run produced; the input of every report format.
/// One op of a kernel as the tile planner split it (summed over the kernel's units),
/// and its roofline bound: the larger of its work at the engines' peak rates and the
/// bytes its tiling moves at the DDR's peak bandwidth.
struct OpTiling {
  std::string op; ///< op kind
  uint32_t units = 1;
  std::string shape; ///< tile dimensions of the first unit's share
  uint64_t tiles = 0, folds = 0, array_cycles = 0, vector_cycles = 0;
  uint64_t macs = 0, vector_ops = 0;
  std::vector<uint64_t> operand_bytes; ///< each input operand's size
  std::vector<uint64_t> load_bytes;    ///< bytes the tiles load, per input operand
  uint64_t result_bytes = 0, store_bytes = 0;
  double compute_bound_ns = 0; ///< work at the peak rate of all the kernel's units
  double memory_bound_ns = 0;  ///< loads and stores at the DDR's peak bandwidth
};
struct KernelTiling {
  std::string kernel;
  std::vector<OpTiling> ops;
};

struct RunReport {
  std::string config_file;
  std::string testbench_file;
  std::string config_name;
  std::string testbench_name;
  nlohmann::ordered_json effective_config; ///< config after extends, --set and defaults
  nlohmann::ordered_json testbench;        ///< the testbench after --tb-set (null: none)
  std::vector<LaunchRecord> launches;      ///< in launch_id order (empty when streamed)
  LaunchTable table; ///< every launch, compactly; built from `launches` when empty
  HostTime host;
  std::vector<StatGroup> blocks; ///< statistics per block, in platform order
  std::vector<EventMeasurement> events;
  std::vector<KernelTiling> tilings; ///< per loaded kernel, in load order
  Peaks peaks;                       ///< the config's peak MAC rate and DDR bandwidth
  Leaks leaks;
  /// Each block's energy (empty: energy accounting off) and what it assumes.
  std::vector<BlockEnergy> energy;
  std::string technology;
  uint64_t simulated_ps = 0;
  double wall_s = 0; ///< wall-clock seconds of the simulation (the only non-deterministic field)
};

/// Adds each kernel's "tiling" (per op) and "roofline" (from its launches in `table`) to
/// the report's "kernels".
void add_tilings(const std::vector<KernelTiling>& tilings, const LaunchTable& table,
                 const Peaks& peaks, nlohmann::ordered_json* kernels);

/// mean / p50 / p99 / max of a set of durations, in nanoseconds.
struct Distribution {
  double mean_ns = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  double max_ns = 0;
  uint64_t count = 0;
};

/// Nearest-rank percentiles over durations given in picoseconds.
Distribution summarize(std::vector<uint64_t> values_ps);

/// Picoseconds as a decimal nanosecond string with exactly 3 decimals ("1234.567").
std::string format_ns(uint64_t ps);

/// The JSON report (keys: config, kernels, host, blocks, sim, ...); deterministic
/// apart from sim.wall_s.
nlohmann::ordered_json to_json(const RunReport& report);

/// launches.csv: header line then one row per launch (columns fixed by the CLI contract).
void write_launches_csv(std::ostream& out, const std::vector<LaunchRecord>& launches);
/// The header line of launches.csv, and one row.
void write_launches_csv_header(std::ostream& out);
void write_launches_csv_row(std::ostream& out, const LaunchRecord& record);

/// How the summary is printed: text for people, json (the report document), csv.
enum class SummaryFormat { Text, Json, Csv };
/// "text", "json" or "csv" (the --format spellings).
SummaryFormat parse_summary_format(const std::string& name);

/// What the text summary shows beyond the run's sections.
struct SummaryOptions {
  size_t layers = 20;  ///< per-layer lines: the kernels with the most time (0: every kernel)
  bool detail = false; ///< each kernel's table of phases (mean, p50, p99, max)
  bool tiling = false; ///< each kernel's tiling and roofline bound
};

/// Human-readable summary that fits in 80 columns.
void print_summary(std::ostream& out, const RunReport& report);
/// The summary of a report document (what to_json() returns, or a report.json read
/// back) in `format`. The same document always gives the same bytes.
void print_summary(std::ostream& out, const nlohmann::ordered_json& report,
                   SummaryFormat format = SummaryFormat::Text, const SummaryOptions& options = {});

/// An output directory written atomically: files are written into a fresh temporary
/// sibling of DIR (while a run lasts, when streamed) and renamed into place only by
/// commit(); DIR is created only then. Without commit(), the destructor removes
/// everything written. The path is checked (and locked) by the constructor, which throws
/// InputError; a failed write throws OutputError. See OutputPath.
class OutputDir {
public:
  /// `names` are the files the directory will hold: none of them may be an input.
  explicit OutputDir(const std::string& dir, const std::vector<std::string>& names = kFiles);
  /// What `npusim run --out` writes.
  static const std::vector<std::string> kFiles;
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  /// A file of the directory to stream into until commit().
  std::ostream& stream(const std::string& name);
  /// A whole file of the directory.
  void write(const std::string& name, const std::string& content);
  /// Syncs every file and renames them into DIR.
  void commit();
  /// The directory's final path.
  const std::string& path() const { return m_path.target(); }

private:
  OutputPath m_path;
  std::vector<std::string> m_names; ///< files in the temporary directory, in order
  std::vector<std::pair<std::string, std::unique_ptr<std::ofstream>>> m_streams;
};

/// j[key] when `j` is an object that has it, else an empty object; never throws.
const nlohmann::ordered_json& json_member(const nlohmann::ordered_json& j, const std::string& key);

/// The fidelity a report was simulated at: "cycle" (the cycle-approximate DRAM, the
/// reference) or "transaction" (`ddr.model: transaction`). A report from before the field
/// existed was cycle; never throws.
std::string report_fidelity(const nlohmann::ordered_json& report);

/// Checks that every field of a report document that the summary (any format) and the
/// diff read has the JSON type they expect. Throws InputError at `file` naming the first
/// bad field by its path ("kernels.gemm.total.mean_ns") and the type expected.
void check_report_document(const nlohmann::ordered_json& report, const std::string& file);

/// report.json as written to disk: to_json() pretty-printed, then a newline.
std::string dump_report(const nlohmann::ordered_json& report);

/// Writes DIR/report.json, DIR/launches.csv and DIR/layers.csv atomically (see OutputDir).
/// Everything is rendered first, so a failure there touches no file.
void write_output_dir(const std::string& dir, const RunReport& report);

} // namespace npu
