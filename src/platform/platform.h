#pragma once

#include "models/common/energy.h"
#include "models/common/launch_observer.h"
#include "models/common/stats.h"
#include "models/common/time_order.h"
#include "models/compute/compute_unit.h"
#include "models/ddr/ddr.h"
#include "models/dma/dma.h"
#include "models/host/driver.h"
#include "models/host/host_cpu.h"
#include "models/host/host_memory.h"
#include "models/icache/icache.h"
#include "models/interconnect/pcie_link.h"
#include "models/interconnect/router.h"
#include "models/scheduler/scheduler.h"
#include "models/sram/sram.h"
#include "platform/platform_config.h"

#include <memory>
#include <vector>

namespace npu {

/// Every block of the NPU and its host, built from a config and bound through the
/// interconnect:
///   host, scheduler, DMA, instruction caches -> router -> DDR | SRAM | registers
/// (the instruction caches through a shared second level when icache.l2 is set).
/// With interconnect.pcie.enabled (a discrete card) the host reaches the router
/// through the PCIe link, and the router reaches host memory back through it.
/// What the tile planner of a unit with `partition_bytes` of SRAM knows of `config`.
PlanTarget plan_target_of(const PlatformConfig& config, uint64_t partition_bytes);

class Platform {
public:
  explicit Platform(const PlatformConfig& config);

  const PlatformConfig& config() const { return m_config; }
  HostCpu& host() { return *m_host; }
  const HostCpu& host() const { return *m_host; }
  Driver& driver() { return *m_driver; }
  const Driver& driver() const { return *m_driver; }
  Scheduler& scheduler() { return *m_scheduler; }
  Ddr& ddr() { return *m_ddr; }
  const Ddr& ddr() const { return *m_ddr; }
  Sram& sram() { return *m_sram; }
  DmaEngine& dma() { return *m_dma; }
  Router& router() { return *m_router; }
  ComputeUnit& unit(size_t i) { return *m_units.at(i); }
  size_t unit_count() const { return m_units.size(); }
  /// Binds the blocks that publish launch events (driver, scheduler) to `observer`;
  /// before the simulation starts.
  void observe_launches(LaunchObserverIf& observer);
  /// True for a discrete card: host buffers live in host memory behind PCIe.
  bool discrete() const { return m_config.interconnect.pcie.enabled; }
  const CommandLayout& layout() const { return m_layout; }
  /// First DDR byte free for kernels and buffers (after the command area).
  uint64_t heap_base() const { return m_heap_base; }

  /// Reports what every block does to `tracer` (null: tracing off).
  void set_tracer(Tracer* tracer);

  /// Statistics of every block; `icache` sums the per-unit caches.
  std::vector<StatGroup> stats(uint64_t simulated_ps) const;
  /// Energy of every block over `simulated_ps`, in platform order; the compute units and
  /// their instruction caches each summed into one entry ("compute", "icache").
  /// `settled` brings idle DRAM channels up to date first, which only the report after
  /// the run may do; mid-run (a trace's power track) each block gives what it has
  /// counted so far.
  std::vector<BlockEnergy> energy(uint64_t simulated_ps, bool settled = true) const;

private:
  /// Makes the compute units and their instruction caches over SRAM tile partitions.
  void build_units(const PlatformConfig& config);
  /// Lists the blocks in report order (m_blocks), once every block is made.
  void collect_blocks();
  PlatformConfig m_config;
  CommandLayout m_layout;
  uint64_t m_heap_base = 0;
  std::unique_ptr<Router> m_router;
  std::unique_ptr<Ddr> m_ddr;
  std::unique_ptr<Sram> m_sram;
  std::unique_ptr<TimeOrder> m_order;
  std::unique_ptr<DmaEngine> m_dma;
  std::vector<std::unique_ptr<ICache>> m_icaches;
  std::unique_ptr<ICacheL2> m_icache_l2; ///< shared second level, when configured
  std::vector<std::unique_ptr<ComputeUnit>> m_units;
  std::unique_ptr<Scheduler> m_scheduler;
  std::unique_ptr<HostCpu> m_host;
  std::unique_ptr<Driver> m_driver;
  std::unique_ptr<ICacheTotals> m_icache_totals;
  std::unique_ptr<PcieLink> m_pcie;
  std::unique_ptr<HostMemory> m_host_memory;
  /// Every block in report order: driver and CPU, interconnect, PCIe and host memory,
  /// DDR, DMA, SRAM, the instruction caches' totals, the second level, each unit's cache,
  /// the scheduler, the units.
  std::vector<Block*> m_blocks;
};

} // namespace npu
