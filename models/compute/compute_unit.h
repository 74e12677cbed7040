#pragma once

#include "common/stats.h"
#include "models/compute/compute_config.h"
#include "models/compute/kernel_job.h"
#include "models/dma/dma.h"
#include "models/icache/icache.h"

#include <systemc>

#include <functional>
#include <optional>

namespace npu {

/// One compute unit: loads the kernel's instructions through its instruction
/// cache (phase 4), then executes (phase 5): operand tiles come into its SRAM
/// partition through the DMA engine, the MAC array computes, results go back.
class ComputeUnit : public sc_core::sc_module {
public:
  using DoneCallback = std::function<void(const UnitResult&)>;

  ComputeUnit(sc_core::sc_module_name name, const ComputeConfig& config, int index, ICache& icache,
              DmaEngine& dma, Region sram_partition);

  /// Hands a job to the unit; `done` runs in the unit's thread when it finishes.
  void start(const KernelJob& job, DoneCallback done);
  bool busy() const { return m_job.has_value(); }
  int index() const { return m_index; }
  ICache& icache() { return m_icache; }
  uint64_t busy_ps() const { return m_busy_ps; }
  StatGroup stats(uint64_t simulated_ps) const;

private:
  void run();
  void serve();
  void execute(const KernelJob& job);
  /// Moves `bytes` between `regions` (cyclically) and the SRAM partition, in chunks.
  void stream(const std::vector<Region>& regions, uint64_t bytes, bool to_sram, uint64_t launch_id);

  ComputeConfig m_config;
  int m_index;
  ICache& m_icache;
  DmaEngine& m_dma;
  Region m_sram;
  uint64_t m_period_ps;
  std::optional<KernelJob> m_job;
  DoneCallback m_done;
  sc_core::sc_event m_start;
  uint64_t m_busy_ps = 0;
  uint64_t m_kernels = 0;
  uint64_t m_compute_ps = 0;
  uint64_t m_macs = 0;
};

} // namespace npu
