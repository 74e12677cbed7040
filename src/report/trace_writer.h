#pragma once

#include "common/output_path.h"
#include "models/common/trace.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npu {

/// What to trace and where (`npusim run --trace FILE --trace-limit N --trace-sample K`).
struct TraceOptions {
  std::string path;
  uint64_t limit = 0;             ///< trace only the first N launches (0: all)
  uint64_t sample = 1;            ///< trace every K-th launch (launch ids 0, K, 2K, ...)
  uint64_t window_ps = 1'000'000; ///< counter window: DDR bytes, cache misses, power per 1 us
};

/// The numbered tracks of the platform being traced.
struct TraceLayout {
  uint32_t queues = 0;
  uint32_t units = 0;
  uint32_t dma_channels = 0;
};

/// Writes a Chrome trace-event JSON file (the {"traceEvents": [...]} form that
/// ui.perfetto.dev and chrome://tracing open) while the simulation runs: every event
/// goes to disk as it is reported, so memory stays bounded however long the run. The
/// file is written under a temporary name in the same directory and renamed into
/// place by commit(); a writer destroyed without commit() removes it.
class ChromeTraceWriter : public Tracer {
public:
  /// Opens the temporary file and writes the track names. Throws InputError when the
  /// file cannot be created.
  ChromeTraceWriter(TraceOptions options, const TraceLayout& layout);
  ~ChromeTraceWriter() override;
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  /// Ends the JSON, syncs the file and renames it into place. `end_ps`: the run's
  /// simulated end, where the power track ends (0: the current simulated time).
  void commit(uint64_t end_ps = 0);

  void set_energy_probe(const EnergyProbe* probe) override;
  bool wants(int64_t launch_id) const override;
  void slice(TraceTrack track, uint32_t index, std::string_view name, uint64_t begin_ps,
             uint64_t end_ps, int64_t launch_id) override;
  void launch_call(const LaunchRecord& record, uint64_t end_ps) override;
  void launch_flow(const LaunchRecord& record) override;
  void unit_run(uint64_t launch_id, std::string_view kernel, uint32_t unit, uint64_t assigned_ps,
                uint64_t resident_ps, uint64_t finished_ps) override;
  void launch_done(const LaunchRecord& record) override;
  void ddr_bytes(uint64_t at_ps, uint64_t bytes) override;
  void icache_misses(uint32_t unit, uint64_t at_ps, uint64_t lines) override;

  /// Process ids of the tracks (pid of a track's process, tid of its thread).
  static constexpr int kHostPid = 1;
  static constexpr int kQueuePid = 2;
  static constexpr int kDmaPid = 3;
  static constexpr int kDdrPid = 4;
  static constexpr int kPowerPid = 5;
  static constexpr int kUnitPidBase = 100; ///< unit u is process 100 + u
  /// Thread ids are unique across processes, as trace viewers expect.
  static constexpr int kHostTid = 1;
  static constexpr int kDriverTid = 2;
  static constexpr int kQueueTidBase = 1000; ///< queue q is thread 1000 + q
  static constexpr int kUnitTidBase = 2000;  ///< unit u is thread 2000 + u
  static constexpr int kDmaTidBase = 3000;   ///< DMA channel c is thread 3000 + c
  static constexpr int kDdrTid = 4000;
  static constexpr int kPowerTid = 5000;

private:
  /// A counter summed over fixed windows; one value is written per window.
  struct Counter {
    uint64_t window = UINT64_MAX; ///< index of the window being summed
    uint64_t amount = 0;
  };

  /// Whether events of no launch are still traced: until a --trace-limit cap is reached
  /// and every traced launch has completed.
  bool open() const { return m_open; }
  void add_count(Counter& counter, int pid, std::string_view name, std::string_view unit,
                 double scale, uint64_t at_ps, uint64_t amount);
  void write_count(int pid, std::string_view name, std::string_view unit, uint64_t at_ps,
                   double value);
  void flush_counters();
  /// Power track: once per counter window at most, when a hook runs in a window not
  /// yet sampled, reads every block's energy so far; the power from one sample to the
  /// next is the energy between over the time between, written once the next is taken.
  void sample_power() {
    if (m_probe != nullptr && m_open && m_probe->now_ps() / m_options.window_ps != m_power_window)
      take_power_sample(m_probe->now_ps(), false);
  }
  void take_power_sample(uint64_t at_ps, bool settled);
  /// The last sample at `end_ps` (`settled`: the run is over, the report's figures),
  /// then the track drops to zero.
  void end_power(uint64_t end_ps, bool settled);
  /// Writes the power over the interval between the last two samples.
  void write_power_interval();
  /// One value per block, in W, from `at_ps` on.
  void write_power(uint64_t at_ps, const std::vector<double>& watts);
  void write_metadata(const TraceLayout& layout);
  void name_process(int pid, std::string_view name, int sort_index);
  void name_thread(int pid, int tid, std::string_view name, int sort_index);
  void complete(int pid, int tid, std::string_view name, uint64_t begin_ps, uint64_t end_ps,
                int64_t launch_id);
  void async(char phase, int pid, std::string_view name, uint64_t id, uint64_t at_ps,
             const LaunchRecord* args);
  void flow(char phase, std::string_view name, uint64_t id, int pid, int tid, uint64_t at_ps);
  /// Starts one event: writes the separator before every event but the first.
  void start_event();
  void put(std::string_view text);
  template <typename... Args> void emit(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(m_out), format, std::forward<Args>(args)...);
  }
  /// Writes what was gathered to the file.
  void drain();
  void put_string(std::string_view text); ///< a JSON string, quoted and escaped
  void put_ts(uint64_t ps);               ///< microseconds with 6 decimals (exact ps)
  [[noreturn]] void fail(const std::string& what, int error) const;

  TraceOptions m_options;
  OutputPath m_output;
  std::FILE* m_file = nullptr;
  fmt::memory_buffer m_out; ///< events not yet written to m_file
  bool m_first = true;
  bool m_open = true;
  uint64_t m_traced_done = 0;  ///< traced launches completed
  uint64_t m_traced_total = 0; ///< launches --trace-limit lets through (0: no cap)
  Counter m_ddr;
  std::vector<Counter> m_icache; ///< per unit
  const EnergyProbe* m_probe = nullptr;
  uint64_t m_power_from_ps = 0;                    ///< the sample before the last
  uint64_t m_power_ps = 0;                         ///< the last power sample
  uint64_t m_power_window = 0;                     ///< its counter window
  std::vector<double> m_power_from_pj, m_power_pj; ///< blocks' energy at each
  std::vector<double> m_watts;
};

} // namespace npu
