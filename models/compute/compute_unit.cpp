#include "models/compute/compute_unit.h"

#include "common/checked_math.h"
#include "common/error.h"
#include "models/common/tlm_util.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace npu {

namespace {
// Half the range of sc_time: a wait this long from any time a run can reach still fits.
constexpr uint64_t kFarFuturePs = std::numeric_limits<uint64_t>::max() / 2;
} // namespace

ComputeUnit::ComputeUnit(sc_core::sc_module_name name, const ComputeConfig& config, int index,
                         const Windows& windows, const PlanTarget& target)
    : sc_module(name), icache("icache"), dma("dma"), m_config(config), m_index(index),
      m_streams(std::max<unsigned>(kStreams, target.dma_streams)), m_sram(windows.tiles),
      m_sram_window(windows.sram), m_ddr(windows.ddr), m_target(target),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)),
      m_load_pool("loads", m_streams), m_store_pool("stores", m_streams) {
  SC_HAS_PROCESS(ComputeUnit);
  SC_THREAD(run);
  SC_THREAD(load_loop);
  SC_THREAD(store_loop);
}

void ComputeUnit::start(const KernelJob& job, DoneCallback done) {
  sc_assert(!m_has_job);
  m_job = job; // copied into the last job's storage: no allocation once it is large enough
  m_has_job = true;
  m_done = std::move(done);
  m_start.notify(sc_core::SC_ZERO_TIME);
}

void ComputeUnit::run() {
  guarded([this] { serve(); });
}

void ComputeUnit::serve() {
  while (true) {
    while (!m_has_job)
      sc_core::wait(m_start);
    const KernelJob& job = m_job; // kept until done(): start() refuses a second job
    const uint64_t t3 = to_ps(time_now(*this));
    UnitResult result;
    result.unit = m_index;
    const uint64_t hits = icache->hits(), misses = icache->misses();
    // A kernel of `cycles` ops touches nothing shared while its code hits: its thread
    // may run ahead of the clock from the preload to its end (see defer_cycles()).
    const bool ahead = cycles_only(job);
    icache->preload(job.binary_addr, job.binary_bytes, job.launch_id, ahead ? &m_owed_ps : nullptr);
    result.preload_hits = icache->hits() - hits;
    result.preload_misses = icache->misses() - misses;
    result.resident_ps = to_ps(time_now(*this)) + m_owed_ps;
    m_instruction_stall_ps += result.resident_ps - t3;
    m_job_dram_bytes = 0;
    execute(job, result, ahead);
    settle();
    result.dram_bytes = m_job_dram_bytes;
    result.finished_ps = to_ps(time_now(*this));
    m_occupied_ps += result.finished_ps - t3;
    ++m_kernels;
    DoneCallback done = std::move(m_done);
    m_has_job = false;
    m_job.ops.reset(); // the kernel's ops are not held past its end
    done(result);
  }
}

namespace {
// Where the job's operands live: arguments whose regions are in the SRAM's window.
OperandPlaces operand_places(const KernelJob& job, const Region& sram) {
  const auto in_sram = [&sram](const Region& r) {
    return r.bytes > 0 && r.addr >= sram.addr && r.addr - sram.addr < sram.bytes;
  };
  std::vector<bool> args;
  for (const Region& r : job.inputs)
    args.push_back(in_sram(r));
  args.push_back(in_sram(job.output));
  return npu::operand_places(args);
}
} // namespace

const TilePlan& ComputeUnit::cached_plan(const KernelJob& job, const OpSpec& op) {
  const OperandPlaces places = operand_places(job, m_sram_window);
  // Relaunching the same kernels is common; planning searches many tile shapes.
  for (auto it = m_plans.begin(); it != m_plans.end(); ++it) {
    if (it->op == op && it->units == job.units && it->share == job.share && it->places == places) {
      if (it != m_plans.begin()) {
        CachedPlan hit = std::move(*it);
        m_plans.erase(it);
        m_plans.push_front(std::move(hit));
      }
      return m_plans.front().plan;
    }
  }
  try {
    PlanTarget target = m_target;
    target.places = places;
    m_plans.push_front(
        {op, job.units, job.share, places, plan_tiles(op, target, job.units, job.share)});
  } catch (const std::runtime_error& e) {
    throw SimulationError("launch " + std::to_string(job.launch_id) + " on compute unit " +
                          std::to_string(m_index) + ": " + e.what());
  }
  if (m_plans.size() > kCachedPlans)
    m_plans.pop_back();
  return m_plans.front().plan;
}

void ComputeUnit::wait_cycles(uint64_t cycles) {
  // Saturated (and halved, so that now + t cannot wrap), a time too long to represent
  // still ends the run at its simulated-time limit.
  const uint64_t t = std::min(saturating_mul(cycles, m_period_ps), kFarFuturePs);
  if (t > 0)
    sc_core::wait(ps(t));
  m_busy_ps += t;
}

bool ComputeUnit::cycles_only(const KernelJob& job) {
  return std::all_of(job.ops->begin(), job.ops->end(),
                     [](const OpSpec& op) { return op.kind() == OpKind::Cycles; });
}

void ComputeUnit::defer_cycles(uint64_t cycles) {
  const uint64_t t = saturating_mul(cycles, m_period_ps);
  m_owed_ps = saturating_add(m_owed_ps, t);
  m_busy_ps += saturating_add(m_busy_ps.ps(), t) - m_busy_ps.ps(); // saturates at UINT64_MAX
}

void ComputeUnit::settle() {
  if (m_owed_ps == 0)
    return;
  sc_core::wait(ps(std::min(m_owed_ps, kFarFuturePs)));
  m_owed_ps = 0;
}

void ComputeUnit::fetch_hot_loop(const KernelJob& job, UnitResult& result) {
  const uint64_t stall =
      icache->fetch(job.hot_loop_addr, job.hot_loop_bytes, job.launch_id, &m_owed_ps);
  result.ifetch_stall_ps += stall;
  m_instruction_stall_ps += stall;
}

void ComputeUnit::execute(const KernelJob& job, UnitResult& result, bool ahead) {
  const uint64_t busy_before = m_busy_ps.ps(), stall_before = m_memory_stall_ps.ps();
  if (ahead)
    defer_cycles(m_config.launch_overhead_cycles);
  else
    wait_cycles(m_config.launch_overhead_cycles);
  // A fused kernel runs its ops back to back; each op's results are stored before the
  // next op starts (it may read them).
  for (const OpSpec& op : *job.ops)
    run_op(job, op, result);
  result.compute_ps = m_busy_ps.ps() - busy_before;
  result.memory_stall_ps = m_memory_stall_ps.ps() - stall_before;
}

void ComputeUnit::run_op(const KernelJob& job, const OpSpec& op, UnitResult& result) {
  if (const auto* c = op.get_if<CyclesOp>()) {
    // No data: skip the pipeline threads (this is the launch-rate benchmark's kernel).
    // The cycles are spread over the iterations; each runs the hot loop once.
    const uint64_t n = std::max<uint64_t>(c->iterations, 1);
    result.compute_roof_ps += static_cast<double>(c->cycles) * static_cast<double>(m_period_ps);
    for (uint64_t i = 0; i < n; ++i) {
      fetch_hot_loop(job, result);
      defer_cycles(c->cycles / n + (i < c->cycles % n ? 1 : 0));
    }
    return;
  }
  settle(); // the tile pipeline works with other threads on the real clock
  const TilePlan& plan = cached_plan(job, op);
  m_plan = &plan;
  if (plan.size() > 0) {
    m_running = true;
    m_next_load = 0;
    m_computed = 0;
    m_ready.clear();
    m_results_issued = 0;
    m_results_stored = 0;
    m_to_store.clear();
    m_load_go.notify(sc_core::SC_ZERO_TIME);
    const uint64_t rc = static_cast<uint64_t>(m_config.array.rows) * m_config.array.cols;
    const uint64_t per_op = dtype_cycles_per_op(op.dtype);
    const uint64_t per_mac = m_config.mac_cycles[static_cast<size_t>(op.dtype)];
    // The time a MAC or a vector operation takes at its engine's peak rate.
    const double mac_ps = static_cast<double>(per_mac * m_period_ps) / static_cast<double>(rc);
    const double vector_op_ps =
        static_cast<double>(per_op * m_period_ps) / static_cast<double>(m_config.vector_lanes);
    for (uint64_t i = 0; i < plan.size(); ++i) {
      const uint64_t stall_from = to_ps(time_now(*this));
      while (m_ready.empty())
        sc_core::wait(m_loaded);
      Tile tile = std::move(m_ready.front());
      m_ready.pop_front();
      // Results go to result buffer (issued % result buffers): wait until its previous
      // store is done.
      if (!tile.stores.empty())
        while (m_results_issued >= m_results_stored + plan.result_buffers())
          sc_core::wait(m_stored);
      m_memory_stall_ps += to_ps(time_now(*this)) - stall_from;
      fetch_hot_loop(job, result);
      wait_cycles(tile.cycles);
      const uint64_t t_ps = tile.cycles * m_period_ps;
      if (tile.engine == Engine::Array) {
        m_array_ps += t_ps;
        m_peak_macs += static_cast<double>(tile.cycles) * static_cast<double>(rc) /
                       static_cast<double>(per_mac);
      } else if (tile.engine == Engine::Vector) {
        m_vector_ps += t_ps;
        m_peak_vector_ops +=
            static_cast<double>(tile.cycles) * m_config.vector_lanes / static_cast<double>(per_op);
      }
      m_macs += tile.macs;
      m_macs_by_dtype[static_cast<size_t>(op.dtype)] += tile.macs;
      m_vector_ops += tile.vector_ops;
      result.macs += tile.macs;
      result.vector_ops += tile.vector_ops;
      result.mac_roof_ps += static_cast<double>(tile.macs) * mac_ps;
      result.compute_roof_ps += static_cast<double>(tile.macs) * mac_ps +
                                static_cast<double>(tile.vector_ops) * vector_op_ps;
      ++m_tiles;
      ++m_computed;
      m_computed_event.notify(sc_core::SC_ZERO_TIME);
      if (!tile.stores.empty()) {
        m_to_store.push_back({m_results_issued++, std::move(tile.stores)});
        m_store_go.notify(sc_core::SC_ZERO_TIME);
      }
    }
    const uint64_t stall_from = to_ps(time_now(*this));
    while (m_results_stored < m_results_issued)
      sc_core::wait(m_stored);
    m_memory_stall_ps += to_ps(time_now(*this)) - stall_from;
    m_running = false;
  }
}

void ComputeUnit::load_loop() {
  guarded([this] {
    while (true) {
      while (!m_running || m_next_load >= m_plan->size())
        sc_core::wait(m_load_go);
      const uint64_t i = m_next_load;
      // Operand buffer i % buffers (or the slot the plan gives a resident block) is free
      // once tile i - buffers has been computed.
      const uint64_t buffers = m_plan->buffers();
      while (i >= m_computed + buffers)
        sc_core::wait(m_computed_event);
      Tile tile = m_plan->tile(i);
      move(tile.loads, true, 0, m_load_pool); // the plan places them in the partition
      m_ready.push_back(std::move(tile));
      ++m_next_load;
      m_loaded.notify(sc_core::SC_ZERO_TIME);
    }
  });
}

void ComputeUnit::store_loop() {
  guarded([this] {
    while (true) {
      while (m_to_store.empty())
        sc_core::wait(m_store_go);
      const PendingStore& s = m_to_store.front();
      const uint64_t buffer = m_plan->buffers() * m_plan->operand_buffer_bytes() +
                              (s.result % m_plan->result_buffers()) * m_plan->result_buffer_bytes();
      move(s.stores, false, buffer, m_store_pool);
      m_to_store.pop_front();
      ++m_results_stored;
      m_stored.notify(sc_core::SC_ZERO_TIME);
    }
  });
}

void ComputeUnit::move(const std::vector<TileTransfer>& transfers, bool load, uint64_t buffer,
                       WorkerPool& pool) {
  const KernelJob& job = m_job;
  if (load && job.inputs.empty())
    return;
  const uint64_t sram_base = m_sram.addr + buffer;
  std::vector<DmaTransfer> descriptors;
  for (const TileTransfer& t : transfers) {
    const Region& region = load ? job.inputs[t.operand % job.inputs.size()] : job.output;
    for (const RegionPiece& p : map_to_region(t, region.bytes)) {
      sc_assert(buffer + p.sram_offset + p.row_bytes * p.rows <= m_sram.bytes);
      DmaTransfer d;
      d.row_bytes = p.row_bytes;
      d.rows = p.rows;
      const uint64_t mem = region.addr + p.region_offset;
      const uint64_t sram = sram_base + p.sram_offset;
      d.src = load ? mem : sram;
      d.src_stride = load ? p.region_stride : p.row_bytes;
      d.dst = load ? sram : mem;
      d.dst_stride = load ? p.row_bytes : p.region_stride;
      descriptors.push_back(d);
    }
  }
  if (descriptors.empty())
    return;
  // A lone big descriptor would keep one DMA channel busy and leave the others idle:
  // split it (by rows, or by bytes for one row) into up to m_streams parts.
  if (descriptors.size() < m_streams) {
    std::vector<DmaTransfer> split;
    const uint64_t parts_each = m_streams / descriptors.size();
    for (const DmaTransfer& d : descriptors) {
      const uint64_t parts =
          std::min<uint64_t>(parts_each, d.rows > 1 ? d.rows : d.row_bytes / kMinSplitBytes);
      if (parts <= 1) {
        split.push_back(d);
        continue;
      }
      if (d.rows > 1) {
        for (uint64_t p = 0, row = 0; p < parts; ++p) {
          const uint64_t n = d.rows / parts + (p < d.rows % parts ? 1 : 0);
          DmaTransfer x = d;
          x.src = d.src + row * d.src_stride;
          x.dst = d.dst + row * d.dst_stride;
          x.rows = n;
          split.push_back(x);
          row += n;
        }
      } else {
        const uint64_t step = (d.row_bytes / parts + 255) / 256 * 256;
        for (uint64_t at = 0; at < d.row_bytes; at += step) {
          const uint64_t n = std::min(step, d.row_bytes - at);
          split.push_back(DmaTransfer::linear(d.dst + at, d.src + at, n));
        }
      }
    }
    descriptors = std::move(split);
  }
  NpuExtension tag;
  tag.who = Initiator::Compute;
  tag.unit = m_index;
  tag.launch_id = job.launch_id;
  const std::string what = std::string(load ? "operand load" : "result store") + " of launch " +
                           std::to_string(job.launch_id) + " on unit " + std::to_string(m_index);
  if (m_dma_active++ == 0)
    m_dma_since_ps = to_ps(time_now(*this));
  pool.run(descriptors.size(), [&](uint64_t i) { dma->run(descriptors[i], what, tag); });
  if (--m_dma_active == 0)
    m_memory_active_ps += to_ps(time_now(*this)) - m_dma_since_ps;
  m_dma_transfers += descriptors.size();
  for (const DmaTransfer& d : descriptors) {
    (load ? m_bytes_loaded : m_bytes_stored) += d.bytes();
    if (const uint64_t at = load ? d.src : d.dst; at >= m_ddr.addr && at - m_ddr.addr < m_ddr.bytes)
      m_job_dram_bytes += d.bytes();
  }
}

StatGroup ComputeUnit::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

double ComputeUnit::idle_ns(uint64_t simulated_ps) const {
  const uint64_t accounted = m_busy_ps.ps() + m_memory_stall_ps.ps() + m_instruction_stall_ps.ps();
  return static_cast<double>(simulated_ps > accounted ? simulated_ps - accounted : 0) / 1000.0;
}

BlockEnergy ComputeUnit::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"compute.unit" + std::to_string(m_index), {}};
  const MacEnergy& mac = m_config.energy.mac;
  const std::array<double, 4> mac_pj{mac.int8_pj, mac.fp16_pj, mac.bf16_pj, mac.fp32_pj};
  for (size_t t = 0; t < mac_pj.size(); ++t)
    if (m_macs_by_dtype[t] > 0)
      e.add("mac_" + dtype_names()[t], static_cast<double>(m_macs_by_dtype[t]) * mac_pj[t]);
  e.add("vector", static_cast<double>(m_vector_ops.count()) * m_config.energy.vector_op_pj);
  const double macs = static_cast<double>(m_config.array.rows) * m_config.array.cols;
  e.add("static", static_pj(m_config.energy.static_mw_per_mac * macs, simulated_ps));
  return e;
}

} // namespace npu
