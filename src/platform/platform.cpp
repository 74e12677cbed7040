#include "platform/platform.h"

#include "models/common/tlm_util.h"
#include "models/ddr/address_mapper.h"
#include "platform/address_map.h"

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
  t.dma_streams = std::max<uint32_t>(ComputeUnit::kStreams,
                                     config.dma.channels / std::max<uint32_t>(c.units, 1));
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
  const AddressMapper mapper(dram, config.ddr.mapping_fields, config.ddr.hash);
  t.ddr_channel_shift = mapper.shift(DramField::Channel);
  t.ddr_channel_bits = mapper.bits(DramField::Channel);
  t.ddr_group_shift = mapper.shift(DramField::BankGroup);
  t.ddr_group_bits = mapper.bits(DramField::BankGroup);
  t.ddr_hashed = config.ddr.hash;
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

namespace {

// Spans reach the DDR in batches spanning what its read queue holds at its peak rate, and no
// longer than its controller latency, before which no answer comes back.
uint64_t span_batch_window_ps(const DdrConfig& ddr) {
  const DramSpec& dram = ddr.spec;
  const double queue_ps =
      static_cast<double>(ddr.controller.read_queue) * dram.burst_cycles() * dram.tck_ps;
  return std::min(static_cast<uint64_t>(queue_ps), ddr.controller_latency_ps);
}

} // namespace

Platform::Platform(const PlatformConfig& config) : m_config(config) {
  m_layout.base = 1ull << 20; // DDR offset; the first MiB left unused: null guard
  m_layout.queues = config.scheduler.hw_queues;
  m_layout.entries = config.scheduler.ring_entries;
  m_heap_base = (m_layout.end() + (1ull << 20) - 1) / (1ull << 20) * (1ull << 20);

  m_router = std::make_unique<Router>("interconnect", config.interconnect);
  // The transaction-level DRAM takes the whole data path to descriptor-level transactions.
  const Granularity granularity = config.ddr.model == DdrModel::Transaction
                                      ? Granularity::Transaction
                                      : config.interconnect.granularity;
  m_ddr = std::make_unique<Ddr>("ddr", config.ddr, granularity);
  m_sram = std::make_unique<Sram>("sram", config.sram);
  // One order for what the DMA's workers and the instruction caches' fills do at one time.
  m_order = std::make_unique<TimeOrder>("order");
  m_dma = std::make_unique<DmaEngine>("dma", config.dma, granularity, m_order.get());
  if (granularity == Granularity::Transaction)
    m_dma->set_batch_window(span_batch_window_ps(config.ddr), address_map::kDdrBase,
                            config.ddr.size_bytes);

  build_units(config);
  const CommandAddresses commands{address_map::kDdrBase, address_map::kRegsBase};
  m_scheduler = std::make_unique<Scheduler>("scheduler", config.scheduler, m_layout, commands);
  for (auto& unit : m_units)
    m_scheduler->units.bind(*unit); // in unit order: the port index is the unit's index
  m_scheduler->dma.bind(*m_dma);
  m_host = std::make_unique<HostCpu>("host", config.host);
  m_driver = std::make_unique<Driver>("driver", config.host, m_layout, commands);
  m_driver->cpu.bind(*m_host);
  m_host->handler.bind(*m_driver);
  m_scheduler->completions.bind(*m_driver);
  m_driver->device.bind(*m_scheduler);

  // Address map: the order of map() calls is the order of initiator bindings.
  m_router->map(address_map::kDdrBase, config.ddr.size_bytes, "ddr",
                granularity != Granularity::Access64);
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
  collect_blocks();
}

// Testbench buffers first, then equal tile partitions for the units, each unit with its
// instruction cache.
void Platform::build_units(const PlatformConfig& config) {
  m_sram->allocate(config.sram.buffer_bytes, 64, "buffer space");
  const uint64_t partition =
      (config.sram.size_bytes - config.sram.buffer_bytes) / config.compute.units / 64 * 64;
  for (uint32_t i = 0; i < config.compute.units; ++i) {
    const std::string suffix = std::to_string(i);
    m_icaches.push_back(std::make_unique<ICache>(("icache" + suffix).c_str(), config.icache,
                                                 static_cast<int>(i), m_order.get()));
    const uint64_t base = m_sram->allocate(partition, 64, "unit " + suffix + " tiles");
    m_units.push_back(std::make_unique<ComputeUnit>(
        ("unit" + suffix).c_str(), config.compute, static_cast<int>(i),
        ComputeUnit::Windows{
            Region{address_map::kSramBase + base, partition},
            Region{address_map::kSramBase, address_map::kRegsBase - address_map::kSramBase},
            Region{address_map::kDdrBase, config.ddr.size_bytes}},
        plan_target_of(config, partition)));
    m_units.back()->icache.bind(*m_icaches.back());
    m_units.back()->dma.bind(*m_dma);
  }
}

void Platform::collect_blocks() {
  std::vector<const ICache*> caches;
  for (const auto& ic : m_icaches)
    caches.push_back(ic.get());
  m_icache_totals = std::make_unique<ICacheTotals>(std::move(caches));
  m_blocks = {m_driver.get(), m_host.get(), m_router.get()};
  if (m_pcie)
    m_blocks.insert(m_blocks.end(), {m_pcie.get(), m_host_memory.get()});
  m_blocks.insert(m_blocks.end(), {m_ddr.get(), m_dma.get(), m_sram.get(), m_icache_totals.get()});
  if (m_icache_l2)
    m_blocks.push_back(m_icache_l2.get());
  for (auto& ic : m_icaches)
    m_blocks.push_back(ic.get());
  m_blocks.push_back(m_scheduler.get());
  for (auto& u : m_units)
    m_blocks.push_back(u.get());
}

void Platform::observe_launches(LaunchObserverIf& observer) {
  m_driver->launches.bind(observer);
  m_scheduler->launches.bind(observer);
}

void Platform::set_tracer(Tracer* tracer) {
  for (Block* b : m_blocks)
    b->set_tracer(tracer);
}

std::vector<StatGroup> Platform::stats(uint64_t simulated_ps) const {
  StatSink sink;
  for (const Block* b : m_blocks)
    b->report_stats(sink, simulated_ps);
  return sink.take();
}

std::vector<BlockEnergy> Platform::energy(uint64_t simulated_ps, bool settled) const {
  EnergySink sink;
  for (const Block* b : m_blocks)
    b->report_energy(sink, simulated_ps, settled);
  return sink.take();
}

} // namespace npu
