#include "models/compute/compute_unit.h"

#include "common/address_map.h"
#include "common/tlm_util.h"

#include <algorithm>

namespace npu {

ComputeUnit::ComputeUnit(sc_core::sc_module_name name, const ComputeConfig& config, int index,
                         ICache& icache, DmaEngine& dma, Region sram_partition)
    : sc_module(name), m_config(config), m_index(index), m_icache(icache), m_dma(dma),
      m_sram(sram_partition), m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)) {
  SC_HAS_PROCESS(ComputeUnit);
  SC_THREAD(run);
}

void ComputeUnit::start(const KernelJob& job, DoneCallback done) {
  sc_assert(!m_job);
  m_job = job;
  m_done = std::move(done);
  m_start.notify(sc_core::SC_ZERO_TIME);
}

void ComputeUnit::run() {
  guarded([this] { serve(); });
}

void ComputeUnit::serve() {
  while (true) {
    while (!m_job)
      sc_core::wait(m_start);
    const KernelJob job = *m_job;
    const uint64_t t3 = to_ps(sc_core::sc_time_stamp());
    UnitResult result;
    result.unit = m_index;
    m_icache.preload(job.binary_addr, job.binary_bytes, job.launch_id);
    result.t4_ps = to_ps(sc_core::sc_time_stamp());
    execute(job);
    result.t5_ps = to_ps(sc_core::sc_time_stamp());
    m_busy_ps += result.t5_ps - t3;
    ++m_kernels;
    DoneCallback done = std::move(m_done);
    m_job.reset();
    done(result);
  }
}

void ComputeUnit::stream(const std::vector<Region>& regions, uint64_t bytes, bool to_sram,
                         uint64_t launch_id) {
  if (bytes == 0 || regions.empty())
    return;
  // Half the partition per chunk: the other half holds the tile being computed.
  const uint64_t chunk_max = std::max<uint64_t>(m_sram.bytes / 2, 64);
  NpuExtension tag;
  tag.who = Initiator::Compute;
  tag.unit = m_index;
  tag.launch_id = launch_id;
  size_t region = 0;
  uint64_t region_offset = 0;
  uint64_t half = 0;
  while (bytes > 0) {
    const Region& r = regions[region];
    const uint64_t len = std::min({bytes, chunk_max, r.bytes - region_offset});
    const uint64_t sram = address_map::kSramBase + m_sram.addr + half * chunk_max;
    const uint64_t mem = r.addr + region_offset;
    if (to_sram)
      m_dma.copy(sram, mem, len, "operand load of launch " + std::to_string(launch_id), tag);
    else
      m_dma.copy(mem, sram, len, "result store of launch " + std::to_string(launch_id), tag);
    bytes -= len;
    half ^= 1;
    region_offset += len;
    if (region_offset == r.bytes) {
      region_offset = 0;
      region = (region + 1) % regions.size();
    }
  }
}

void ComputeUnit::execute(const KernelJob& job) {
  const OpWork work = op_work(job.op, m_config.array, job.units);
  sc_core::wait(ps(m_config.launch_overhead_cycles * m_period_ps));
  stream(job.inputs, work.load_bytes, true, job.launch_id);
  const uint64_t compute_ps = work.compute_cycles * m_period_ps;
  sc_core::wait(ps(compute_ps));
  m_compute_ps += compute_ps;
  m_macs += work.macs;
  stream({job.output}, work.store_bytes, false, job.launch_id);
}

StatGroup ComputeUnit::stats(uint64_t simulated_ps) const {
  StatGroup g{"compute.unit" + std::to_string(m_index), {}};
  g.add("kernels", static_cast<double>(m_kernels), "count", "kernels (or shares) run");
  g.add("busy_ns", static_cast<double>(m_busy_ps) / 1000.0, "ns", "time from dispatch to finish");
  g.add("utilization", simulated_ps ? static_cast<double>(m_busy_ps) / simulated_ps : 0, "ratio",
        "busy fraction of simulated time");
  g.add("mac_utilization",
        m_compute_ps
            ? static_cast<double>(m_macs) / (static_cast<double>(m_compute_ps) / m_period_ps *
                                             m_config.array.rows * m_config.array.cols)
            : 0,
        "ratio", "useful MACs per MAC-array cycle while computing");
  return g;
}

} // namespace npu
