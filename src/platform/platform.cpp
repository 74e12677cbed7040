#include "platform/platform.h"

#include "models/common/address_map.h"
#include "models/common/tlm_util.h"

#include <algorithm>

namespace npu {

PlanTarget plan_target_of(const PlatformConfig& config, uint64_t partition_bytes) {
  PlanTarget t;
  const ComputeConfig& c = config.compute;
  const DramSpec& dram = config.ddr.spec;
  t.model = c.model();
  t.partition_bytes = partition_bytes;
  t.buffers = c.buffers;
  t.unit_hz = c.frequency_hz;
  t.dma_channels = config.dma.channels;
  t.dma_outstanding = config.dma.outstanding;
  t.dma_buffer_bytes = config.dma.buffer_bytes;
  t.dma_burst_bytes = config.dma.burst_bytes;
  t.descriptor_s = static_cast<double>(config.dma.setup_latency_ps) * 1e-12;
  t.ddr_bytes_per_s = config.ddr.channel_bytes_per_s() * config.ddr.channels;
  t.port_bytes_per_s = config.interconnect.port_bytes_per_s;
  // DMA to SRAM and DDR and back across the interconnect, the controller, and a row
  // opened for the read.
  t.latency_s = (4.0 * static_cast<double>(config.interconnect.hop_latency_ps) +
                 static_cast<double>(config.ddr.controller_latency_ps) +
                 (dram.t.RCD + dram.t.CL) * dram.tck_ps) *
                1e-12;
  t.ddr_access_bytes = dram.access_bytes;
  t.ddr_row_bytes = dram.row_bytes();
  t.ddr_interleave = config.ddr.channels * std::max<uint32_t>(dram.bank_groups, 1);
  // At most four activations per tFAW per rank (or one per tRRD where tFAW is 0).
  const double activate_ps = dram.t.FAW > 0 ? dram.t.FAW * dram.tck_ps / 4.0
                                            : std::max<uint32_t>(dram.t.RRD_S, 1) * dram.tck_ps;
  t.ddr_activates_per_s = config.ddr.channels * dram.ranks / (activate_ps * 1e-12);
  const SramConfig& sram = config.sram;
  t.sram_bytes_per_s = static_cast<double>(sram.banks) * sram.bank_width_bytes * sram.frequency_hz;
  t.sram_latency_s = 4.0 * static_cast<double>(config.interconnect.hop_latency_ps) * 1e-12 +
                     sram.latency_cycles / sram.frequency_hz;
  return t;
}

Platform::Platform(const PlatformConfig& config) : m_config(config) {
  m_layout.base = address_map::kDdrBase + (1ull << 20); // first MiB left unused: null guard
  m_layout.queues = config.scheduler.hw_queues;
  m_layout.entries = config.scheduler.ring_entries;
  m_heap_base = (m_layout.end() + (1ull << 20) - 1) / (1ull << 20) * (1ull << 20);

  m_router = std::make_unique<Router>("interconnect", config.interconnect);
  const Granularity granularity = config.interconnect.granularity;
  m_ddr = std::make_unique<Ddr>("ddr", config.ddr, granularity);
  m_sram = std::make_unique<Sram>("sram", config.sram);
  // One order for what the DMA's workers and the instruction caches' fills do at one time.
  m_order = std::make_unique<TimeOrder>("order");
  m_dma = std::make_unique<DmaEngine>("dma", config.dma, granularity, m_order.get());

  // Testbench buffers first, then equal tile partitions for the units.
  m_sram->allocate(config.sram.buffer_bytes, 64, "buffer space");
  const uint64_t partition =
      (config.sram.size_bytes - config.sram.buffer_bytes) / config.compute.units / 64 * 64;
  for (uint32_t i = 0; i < config.compute.units; ++i) {
    const std::string suffix = std::to_string(i);
    m_icaches.push_back(std::make_unique<ICache>(("icache" + suffix).c_str(), config.icache,
                                                 static_cast<int>(i), m_order.get()));
    const uint64_t base = m_sram->allocate(partition, 64, "unit " + suffix + " tiles");
    m_units.push_back(std::make_unique<ComputeUnit>(("unit" + suffix).c_str(), config.compute,
                                                    static_cast<int>(i), Region{base, partition},
                                                    plan_target_of(config, partition)));
    m_units.back()->icache.bind(*m_icaches.back());
    m_units.back()->dma.bind(*m_dma);
  }
  m_scheduler = std::make_unique<Scheduler>("scheduler", config.scheduler, m_layout, m_log);
  for (auto& unit : m_units)
    m_scheduler->units.bind(*unit); // in unit order: the port index is the unit's index
  m_scheduler->dma.bind(*m_dma);
  m_host = std::make_unique<HostCpu>("host", config.host, m_layout, m_log);
  m_scheduler->completions.bind(*m_host);
  m_host->device.bind(*m_scheduler);

  // Address map: the order of map() calls is the order of initiator bindings.
  m_router->map(address_map::kDdrBase, config.ddr.size_bytes, "ddr",
                granularity == Granularity::Burst);
  m_router->initiator.bind(m_ddr->socket);
  m_router->map(address_map::kSramBase, config.sram.size_bytes, "sram");
  m_router->initiator.bind(m_sram->socket);
  m_router->map(address_map::kRegsBase, address_map::kRegsSize, "regs");
  m_router->initiator.bind(m_scheduler->regs);

  if (discrete()) {
    const auto& ic = config.interconnect;
    m_pcie = std::make_unique<PcieLink>("pcie", ic.pcie);
    // Host DRAM: latency after GPU DRAM at ~570 cycles (docs/references.md
    // [gpu-latency-microbench]), bandwidth well above the link so the link is what limits.
    m_host_memory = std::make_unique<HostMemory>("host_memory", ic.host_memory_bytes,
                                                 ic.host_memory_latency_ps, 100e9);
    m_router->map(address_map::kHostBase, ic.host_memory_bytes, "host");
    m_router->initiator.bind(m_pcie->up_in);
    m_pcie->up_out.bind(m_host_memory->socket);
    m_host->socket.bind(m_pcie->down_in);
    m_pcie->down_out.bind(m_router->target);
  } else {
    m_host->socket.bind(m_router->target);
  }
  m_scheduler->mem.bind(m_router->target);
  m_dma->socket.bind(m_router->target);
  if (config.icache.l2.size_bytes > 0) {
    m_icache_l2 = std::make_unique<ICacheL2>("icache_l2", config.icache);
    for (auto& ic : m_icaches)
      ic->socket.bind(m_icache_l2->socket);
    m_icache_l2->mem.bind(m_router->target);
  } else {
    for (auto& ic : m_icaches)
      ic->socket.bind(m_router->target);
  }
}

void Platform::set_tracer(Tracer* tracer) {
  m_host->set_tracer(tracer);
  m_scheduler->set_tracer(tracer);
  m_dma->set_tracer(tracer);
  m_ddr->set_tracer(tracer);
  for (auto& icache : m_icaches)
    icache->set_tracer(tracer);
}

std::vector<StatGroup> Platform::stats(uint64_t simulated_ps) const {
  std::vector<StatGroup> out;
  out.push_back(m_host->stats());
  out.push_back(m_router->stats(simulated_ps));
  if (m_pcie) {
    out.push_back(m_pcie->stats(simulated_ps));
    out.push_back(m_host_memory->stats(simulated_ps));
  }
  out.push_back(m_ddr->stats(simulated_ps));
  out.push_back(m_dma->stats(simulated_ps));
  out.push_back(m_sram->stats(simulated_ps));
  StatGroup icache{"icache", {}};
  uint64_t hits = 0, misses = 0, evictions = 0, fetch_misses = 0, fetch_stall_ps = 0;
  for (const auto& ic : m_icaches) {
    hits += ic->hits();
    misses += ic->misses();
    evictions += ic->evictions();
    fetch_misses += ic->fetch_misses();
    fetch_stall_ps += ic->fetch_stall_ps();
  }
  icache.add("hits", static_cast<double>(hits), "count", "lines found resident, all units");
  icache.add("misses", static_cast<double>(misses), "count", "lines filled, all units");
  icache.add("evictions", static_cast<double>(evictions), "count", "lines replaced, all units");
  icache.add("hit_rate", hits + misses ? static_cast<double>(hits) / (hits + misses) : 0, "ratio",
             "hits over lookups");
  icache.add("fetch_misses", static_cast<double>(fetch_misses), "count",
             "lines missed while executing, all units");
  icache.add("fetch_stall_ns", static_cast<double>(fetch_stall_ps) / 1000.0, "ns",
             "execution stalled on instruction misses, all units");
  out.push_back(icache);
  if (m_icache_l2)
    out.push_back(m_icache_l2->stats());
  for (const auto& ic : m_icaches)
    out.push_back(ic->stats());
  for (auto& g : m_scheduler->stats(simulated_ps))
    out.push_back(std::move(g));
  for (const auto& u : m_units)
    out.push_back(u->stats(simulated_ps));
  return out;
}

namespace {

/// Adds `from`'s parts to `into`'s parts of the same name (appending new names).
void merge_parts(BlockEnergy& into, const BlockEnergy& from) {
  for (const EnergyPart& p : from.parts) {
    auto it = std::find_if(into.parts.begin(), into.parts.end(),
                           [&](const EnergyPart& q) { return q.name == p.name; });
    if (it == into.parts.end())
      into.parts.push_back(p);
    else
      it->pj += p.pj;
  }
}

} // namespace

std::vector<BlockEnergy> Platform::energy(uint64_t simulated_ps, bool settled) const {
  std::vector<BlockEnergy> out;
  out.push_back(m_host->energy(simulated_ps));
  out.push_back(m_router->energy(simulated_ps));
  if (m_pcie)
    out.push_back(m_pcie->energy(simulated_ps));
  out.push_back(settled ? m_ddr->energy(simulated_ps) : m_ddr->energy_so_far(simulated_ps));
  out.push_back(m_dma->energy(simulated_ps));
  out.push_back(m_sram->energy(simulated_ps));
  BlockEnergy icache{"icache", {}};
  for (const auto& ic : m_icaches)
    merge_parts(icache, ic->energy(simulated_ps));
  out.push_back(std::move(icache));
  out.push_back(m_scheduler->energy(simulated_ps));
  BlockEnergy compute{"compute", {}};
  for (const auto& u : m_units)
    merge_parts(compute, u->energy(simulated_ps));
  out.push_back(std::move(compute));
  return out;
}

} // namespace npu
