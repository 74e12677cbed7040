#include "runtime/simulation.h"

#include "common/error.h"
#include "common/progress_line.h"
#include "config/units.h"
#include "models/common/tlm_util.h"
#include "platform/energy_config.h"
#include "platform/platform.h"
#include "report/energy_report.h"
#include "runtime/progress_monitor.h"

#include <chrono>
#include <cstdio>
#include <stdexcept>

namespace npu {

namespace {

// Every duration in npusim is whole picoseconds, SystemC's default resolution.
// Checking it (rather than setting it) keeps a caller that set 1 ps already happy.
const PlatformConfig& with_resolution(const PlatformConfig& config) {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw std::logic_error("npusim needs a SystemC time resolution of 1 ps");
  return config;
}

// "'x' (4KiB of ddr at 0x80001000)", or without the quoted name when it has none.
std::string describe_leak(const LeakedBuffer& b) {
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(b.addr));
  const std::string where =
      units::format_bytes(b.bytes) + " of " + memory_name(b.memory) + " at " + addr;
  return b.name.empty() ? where : "'" + b.name + "' (" + where + ")";
}

// Every block's energy over `simulated_ps` as the report gives it once the run is over
// (`settled`: the DDR's access energy split by initiator), or as counted so far mid-run.
std::vector<BlockEnergy> energy_of(const Platform& platform, uint64_t simulated_ps, bool settled) {
  std::vector<BlockEnergy> blocks = platform.energy(simulated_ps, settled);
  if (settled)
    for (BlockEnergy& b : blocks)
      if (b.block == "ddr")
        b = dram_energy_by_initiator(b, platform.ddr().bytes_by_initiator());
  return blocks;
}

// The blocks' energy for a trace's power track.
class PlatformProbe : public EnergyProbe {
public:
  explicit PlatformProbe(const Platform& platform)
      : m_platform(platform), m_blocks(energy_block_names(platform.config())) {}
  uint64_t now_ps() const override { return to_ps(sc_core::sc_time_stamp()); }
  const std::vector<std::string>& blocks() const override { return m_blocks; }
  void energy_pj(uint64_t at_ps, bool settled, std::vector<double>& out) const override {
    out.clear();
    for (const BlockEnergy& b : energy_of(m_platform, at_ps, settled))
      out.push_back(b.total_pj());
  }

private:
  const Platform& m_platform;
  std::vector<std::string> m_blocks;
};

} // namespace

Simulation::Simulation(const PlatformConfig& config)
    : m_platform(std::make_unique<Platform>(with_resolution(config))),
      m_runtime(std::make_unique<Runtime>(*m_platform)),
      m_launches([this](uint32_t kernel) { return m_runtime->kernel_name_of_device(kernel); },
                 [this](uint32_t stream) { return m_runtime->stream_name(Stream{stream}); }),
      m_monitor(std::make_unique<ProgressMonitor>([this] {
        const Driver& driver = m_platform->driver();
        return std::string("the host ") +
               (m_platform->host().finished() ? std::string("has finished its program")
                : driver.blocked_on().empty() ? std::string("is running its program")
                                              : "waits for " + driver.blocked_on()) +
               describe_waits();
      })) {
  m_platform->observe_launches(m_launches);
  m_launches.set_sink([this](const LaunchRecord& r) { m_table.add(r); }, true);
}

void Simulation::stream_launches(std::function<void(const LaunchRecord&)> sink) {
  m_launches.set_sink(
      [this, sink = std::move(sink)](const LaunchRecord& r) {
        m_table.add(r);
        sink(r);
      },
      false);
}

// Before the blocks go: the threads left waiting still refer to them while unwinding.
Simulation::~Simulation() {
  unwind_threads();
}

void Simulation::show_progress(uint64_t total_launches) {
  m_progress = std::make_unique<ProgressLine>("launches", true);
  if (!m_progress->enabled())
    return;
  m_monitor->set_on_look([this, total_launches](uint64_t sim_ps) {
    m_progress->update(m_launches.called_so_far(), total_launches, sim_ps);
  });
}

void Simulation::set_tracer(Tracer* tracer) {
  m_platform->set_tracer(tracer);
  m_launches.set_tracer(tracer);
  if (tracer != nullptr && m_platform->config().energy_enabled) {
    if (!m_probe)
      m_probe = std::make_unique<PlatformProbe>(*m_platform);
    tracer->set_energy_probe(m_probe.get());
  }
}

void Simulation::set_watch(std::function<std::string()> watch) {
  m_monitor->set_watch(std::move(watch));
}

// "; stream 's2' has ...; hardware queue 2: ...": every stream left with work and what it
// waits for, then what each hardware queue is stuck on.
std::string Simulation::describe_waits() const {
  const Driver& driver = m_platform->driver();
  std::string message;
  Driver::Names names;
  names.stream = [this](uint32_t id) { return m_runtime->stream_name(Stream{id}); };
  names.event = [this](uint32_t id) { return m_runtime->event_name(id); };
  names.kernel = [this](uint32_t k) { return m_runtime->kernel_name_of_device(k); };
  for (uint32_t id = 0; id < m_runtime->stream_count(); ++id)
    if (const uint64_t n = driver.stream_outstanding(id))
      message += "; stream '" + names.stream(id) + "' has " + std::to_string(n) +
                 " unfinished command(s) on hardware queue " +
                 std::to_string(driver.queue_of_stream(id)) + " and " +
                 driver.describe_stream_wait(id, names);
  for (const auto& line : m_platform->scheduler().describe_pending([this](uint64_t id) {
         return "'" + m_runtime->event_name(static_cast<uint32_t>(id)) + "'";
       }))
    message += "; " + line;
  return message;
}

namespace {

// How the planner tiled each op of `desc` (every share, as the units run it) with its
// operands where its first launch had them, and the op's roofline bound on this
// platform: its work at the units' peak rates, its DDR bytes at the DDR's peak.
KernelTiling tiling_of(const KernelDesc& desc, const PlatformConfig& config,
                       const OperandPlaces& places) {
  KernelTiling k;
  k.kernel = desc.name;
  const ComputeConfig& cc = config.compute;
  const uint64_t partition =
      (config.sram.size_bytes - config.sram.buffer_bytes) / cc.units / 64 * 64;
  PlanTarget target = plan_target_of(config, partition);
  target.places = places;
  const uint32_t units = std::max<uint32_t>(desc.units, 1);
  std::vector<OpSpec> ops{desc.op};
  ops.insert(ops.end(), desc.fused.begin(), desc.fused.end());
  for (const OpSpec& op : ops) {
    OpTiling t;
    t.op = op_kind_name(op.kind());
    t.units = units;
    for (uint32_t share = 0; share < units; ++share) {
      const TilingSummary s = plan_tiles(op, target, units, share).summary();
      if (share == 0) {
        t.shape = s.shape;
        t.operand_bytes = s.operand_bytes;
        t.load_bytes.assign(s.load_bytes.size(), 0);
        t.result_bytes = s.result_bytes;
      }
      t.tiles += s.tiles;
      t.folds += s.folds;
      t.array_cycles += s.array_cycles;
      t.vector_cycles += s.vector_cycles;
      t.macs += s.macs;
      t.vector_ops += s.vector_ops;
      for (size_t i = 0; i < s.load_bytes.size() && i < t.load_bytes.size(); ++i)
        t.load_bytes[i] += s.load_bytes[i];
      t.store_bytes += s.store_bytes;
    }
    const double cycles = op.kind() == OpKind::Cycles
                              ? static_cast<double>(op.as<CyclesOp>().cycles)
                              : (static_cast<double>(t.macs) * cc.model().mac_cycles_of(op.dtype) /
                                     (static_cast<double>(cc.array.rows) * cc.array.cols) +
                                 static_cast<double>(t.vector_ops) * dtype_cycles_per_op(op.dtype) /
                                     cc.vector_lanes) /
                                    units;
    t.compute_bound_ns = cycles / cc.frequency_hz * 1e9;
    // Only DDR traffic counts: inputs in SRAM are read in place, results stored SRAM to SRAM.
    double bytes = places.sram_output ? 0.0 : static_cast<double>(t.store_bytes);
    for (size_t i = 0; i < t.load_bytes.size(); ++i)
      if (!places.input_in_sram(static_cast<uint32_t>(i)))
        bytes += static_cast<double>(t.load_bytes[i]);
    t.memory_bound_ns = bytes / target.ddr_bytes_per_s * 1e9;
    k.ops.push_back(std::move(t));
  }
  return k;
}

// The whole config's peaks: every unit's MAC array at int8, every DDR channel.
Peaks peaks_of(const PlatformConfig& config) {
  const ComputeConfig& cc = config.compute;
  Peaks p;
  p.macs_per_s = static_cast<double>(cc.units) * cc.array.rows * cc.array.cols * cc.frequency_hz /
                 dtype_cycles_per_op(DType::Int8);
  p.dram_bytes_per_s = config.ddr.channel_bytes_per_s() * config.ddr.channels;
  return p;
}

} // namespace

RunReport Simulation::run(const std::function<void(Runtime&)>& program) {
  HostCpu& host = m_platform->host();
  const Driver& driver = m_platform->driver();
  host.set_program([this, &program] {
    program(*m_runtime);
    // Like a process exiting: the runtime waits for all outstanding work.
    m_platform->driver().sync_device();
  });
  const auto wall_start = std::chrono::steady_clock::now();
  // A failed run pauses the kernel (so that its threads can be unwound); were it stopped,
  // the kernel's "Simulation stopped by user" note would land on stdout, which must stay
  // empty when a run fails.
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  const uint64_t limit_ps = m_platform->config().limits.sim_time_ps;
  m_monitor->start();
  sc_core::sc_start(sc_core::sc_time::from_value(limit_ps), sc_core::SC_EXIT_ON_STARVATION);
  m_monitor->stop();
  if (m_progress)
    m_progress->finish(); // before anything else is printed
  const auto wall_end = std::chrono::steady_clock::now();
  if (const auto failure = simulation_failure())
    std::rethrow_exception(failure);
  // Paused with work still scheduled: the run reached its simulated-time limit. Work at
  // the current time counts only at the limit itself (where sc_start stops before running
  // it): elsewhere it may be a look the monitor asked for just before it stopped, which
  // must not turn a deadlock into this.
  if (!host.finished() && sc_core::sc_get_status() == sc_core::SC_PAUSED &&
      (sc_core::sc_pending_activity_at_future_time() ||
       (to_ps(sc_core::sc_time_stamp()) >= limit_ps &&
        sc_core::sc_pending_activity_at_current_time()))) {
    const size_t launches = m_launches.count();
    throw SimulationError(
        "simulated time limit of " + units::format_time_ps(limit_ps) + " reached after " +
        std::to_string(launches) + (launches == 1 ? " launch" : " launches") + ", the host " +
        (driver.blocked_on().empty() ? std::string("still running its program")
                                     : "waiting for " + driver.blocked_on()) +
        "; raise limits.sim_time or --max-sim-time if the run is meant to be this long");
  }
  if (!host.finished())
    throw SimulationError(
        "deadlock at " + std::to_string(to_ps(sc_core::sc_time_stamp()) / 1000) +
        " ns: the host waits for " +
        (driver.blocked_on().empty() ? std::string("the device") : driver.blocked_on()) +
        ", but no block can make progress" + describe_waits());

  RunReport report;
  report.config_name = m_platform->config().name;
  report.config_file = m_platform->config().file;
  report.effective_config = m_platform->config().effective;
  m_launches.flush();
  report.launches = std::move(m_launches.records());
  report.table = std::move(m_table);
  uint64_t end = to_ps(sc_core::sc_time_stamp());
  for (const auto& r : report.table.rows())
    end = std::max(end, r.at[Stamp::Learnt]);
  report.simulated_ps = end;
  report.host.busy_ps = host.busy_ps();
  report.host.blocked_ps = host.blocked_ps();
  report.host.idle_ps = end - std::min(end, host.busy_ps() + host.blocked_ps());
  report.blocks = m_platform->stats(end);
  if (m_platform->config().energy_enabled) {
    report.energy = energy_of(*m_platform, end, true);
    report.technology = describe_technology(m_platform->config().technology);
  }
  report.events = m_runtime->event_measurements();
  for (uint32_t i = 0; i < m_runtime->kernel_count(); ++i)
    report.tilings.push_back(
        tiling_of(m_runtime->kernel(Kernel{i}), m_platform->config(),
                  operand_places(m_runtime->first_launch_sram_args(Kernel{i}))));
  for (const LeakedBuffer& b : m_runtime->live_buffers()) {
    ++report.leaks.buffers;
    report.leaks.bytes += b.bytes;
    report.leaks.list.push_back(describe_leak(b));
  }
  report.peaks = peaks_of(m_platform->config());
  report.wall_s = std::chrono::duration<double>(wall_end - wall_start).count();
  return report;
}

} // namespace npu
