#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/stats.h"
#include "models/common/worker_pool.h"
#include "models/compute/compute_config.h"
#include "models/compute/kernel_job.h"
#include "models/compute/kernel_unit_if.h"
#include "models/compute/tiling.h"
#include "models/dma/dma_if.h"
#include "models/icache/icache_if.h"

#include <systemc>

#include <array>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace npu {

/// One compute unit: loads the kernel's instructions through its instruction
/// cache (phase 4), then executes (phase 5) its share of the op tile by tile: a
/// loader thread brings each tile's operands into the unit's SRAM partition through
/// the DMA engine, the unit's thread computes (one wait per tile, from the systolic
/// or vector-unit formula), and a storer thread writes finished results back. Two
/// operand and two result buffers let the loads of the next tile and the stores of
/// the previous one overlap the current tile's compute.
class ComputeUnit : public sc_core::sc_module, public KernelUnitIf, public Block {
public:
  sc_core::sc_port<InstructionCacheIf> icache; ///< the unit's own instruction cache
  sc_core::sc_port<DmaIf> dma;                 ///< operand loads and result stores

  /// DMA descriptors one loader or storer keeps in flight (a tile's operands load
  /// side by side, e.g. the A and B blocks of a matmul, on separate DMA channels): at
  /// least this many, or the unit's share of the DMA channels (channels / units).
  static constexpr unsigned kStreams = 4;
  /// Smallest part a one-row descriptor is split into to spread it over channels.
  static constexpr uint64_t kMinSplitBytes = 4096;

  /// Where the unit's data lives, as device addresses the platform hands it.
  struct Windows {
    Region tiles; ///< the unit's own SRAM partition for tiles
    Region sram;  ///< the SRAM's window (operands placed there cost no DDR traffic)
    Region ddr;   ///< the DDR's window (operand bytes inside it count as DRAM traffic)
  };

  /// `target` is what the tile planner knows of the hardware (its partition_bytes is the
  /// size of `windows.tiles`).
  ComputeUnit(sc_core::sc_module_name name, const ComputeConfig& config, int index,
              const Windows& windows, const PlanTarget& target);

  void start(const KernelJob& job, DoneCallback done) override;
  bool busy() const { return m_has_job; }
  int index() const { return m_index; }
  uint64_t busy_ps() const override { return m_occupied_ps; }
  uint64_t resident_lines(uint64_t addr, uint64_t bytes) const override {
    return icache->resident_lines(addr, bytes);
  }
  StatGroup stats(uint64_t simulated_ps) const;
  /// MACs by data type, vector operations and leakage over `simulated_ps`.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override {
    sink.add(stats(simulated_ps));
  }
  /// The units' energy makes one entry, "compute".
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    BlockEnergy e = energy(simulated_ps);
    e.block = "compute";
    sink.add(e);
  }

private:
  struct PendingStore {
    uint64_t result = 0; ///< result index: buffer result % 2
    std::vector<TileTransfer> stores;
  };

  void run();
  void serve();
  /// `ahead`: a cycles-only job, which may run ahead of the clock (defer_cycles()).
  void execute(const KernelJob& job, UnitResult& result, bool ahead);
  /// Simulated time (ns) with no kernel assigned, out of `simulated_ps`.
  double idle_ns(uint64_t simulated_ps) const;
  /// Runs one op of the job (its share of it) to completion, results stored.
  void run_op(const KernelJob& job, const OpSpec& op, UnitResult& result);
  /// One pass over the kernel's hot loop through the instruction cache; misses stall.
  void fetch_hot_loop(const KernelJob& job, UnitResult& result);
  void load_loop();
  void store_loop();
  /// Moves a tile's transfers between their regions (read or written cyclically) and
  /// SRAM at `buffer`: every DMA descriptor of the batch is issued at once, up to
  /// m_streams in flight, and the call returns when all are done.
  void move(const std::vector<TileTransfer>& transfers, bool load, uint64_t buffer,
            WorkerPool& pool);
  /// The tiling of `op` for this unit's share of `job` and where its operands live;
  /// recent plans are kept.
  const TilePlan& cached_plan(const KernelJob& job, const OpSpec& op);
  void wait_cycles(uint64_t cycles);
  /// Busy cycles that touch nothing shared: the unit's thread owes them to the clock
  /// (m_owed_ps) until settle() waits them out, before anything another block sees.
  void defer_cycles(uint64_t cycles);
  void settle();
  /// A job of `cycles` ops only, which may run ahead of the clock.
  static bool cycles_only(const KernelJob& job);

  ComputeConfig m_config;
  int m_index;
  unsigned m_streams;   ///< descriptors in flight per loader or storer (see kStreams)
  Region m_sram;        ///< the unit's tile partition (device addresses)
  Region m_sram_window; ///< the SRAM's window (device addresses)
  Region m_ddr;         ///< the DDR's window (device addresses)
  PlanTarget m_target;
  uint64_t m_period_ps;
  KernelJob m_job; ///< the job at hand, its storage reused by the next (valid while m_has_job)
  bool m_has_job = false;
  DoneCallback m_done;
  sc_core::sc_event m_start;

  // The running job's tile pipeline (shared by the unit, loader and storer threads).
  struct CachedPlan {
    OpSpec op;
    uint32_t units = 0;
    uint32_t share = 0;
    OperandPlaces places;
    TilePlan plan;
  };
  static constexpr size_t kCachedPlans = 64;
  std::deque<CachedPlan> m_plans;   ///< most recently used first
  const TilePlan* m_plan = nullptr; ///< plan of the op running now
  uint64_t m_owed_ps = 0;           ///< see defer_cycles()
  bool m_running = false;
  uint64_t m_next_load = 0;      ///< next tile the loader fetches
  uint64_t m_computed = 0;       ///< tiles computed
  std::deque<Tile> m_ready;      ///< loaded tiles waiting for compute (at most 2)
  uint64_t m_results_issued = 0; ///< result tiles handed to the storer
  uint64_t m_results_stored = 0;
  std::deque<PendingStore> m_to_store;
  WorkerPool m_load_pool;
  WorkerPool m_store_pool;
  sc_core::sc_event m_load_go, m_loaded, m_computed_event, m_store_go, m_stored;
  uint32_t m_dma_active = 0;
  uint64_t m_dma_since_ps = 0;
  uint64_t m_job_dram_bytes = 0; ///< the running job's bytes moved to or from DDR

  uint64_t m_occupied_ps = 0;
  double m_peak_macs = 0;       ///< MACs the array could have done while computing
  double m_peak_vector_ops = 0; ///< likewise for the vector unit

  StatRegistry m_stats{"compute.unit" + std::to_string(m_index)};
  Stat m_kernels{m_stats, "kernels", "count", "kernels (or shares) run"};
  TimeStat m_busy_ps{m_stats, "busy_ns",
                     "computing: MAC array, vector unit, cycles kernels and launch setup"};
  TimeStat m_memory_stall_ps{m_stats, "stalled_on_memory_ns",
                             "waiting for operand loads or for result stores to free a buffer"};
  TimeStat m_instruction_stall_ps{
      m_stats, "stalled_on_instructions_ns",
      "waiting for instructions: preloads (launch phase 4) and fetch misses while executing"};
  DerivedStat m_idle{m_stats, "idle_ns", "ns", "no kernel assigned",
                     [this](uint64_t simulated_ps) { return idle_ns(simulated_ps); }};
  DerivedStat m_utilization{m_stats, "utilization", "ratio", "busy fraction of simulated time",
                            [this](uint64_t simulated_ps) {
                              return simulated_ps ? static_cast<double>(m_busy_ps.ps()) /
                                                        static_cast<double>(simulated_ps)
                                                  : 0;
                            }};
  TimeStat m_array_ps{m_stats, "array_busy_ns", "MAC array computing tiles"};
  TimeStat m_vector_ps{m_stats, "vector_busy_ns", "vector unit computing tiles"};
  DerivedStat m_mac_utilization{
      m_stats, "mac_utilization", "ratio",
      "useful MACs / MACs the array could do while computing tiles", [this](uint64_t) {
        return m_peak_macs > 0 ? static_cast<double>(m_macs.count()) / m_peak_macs : 0;
      }};
  DerivedStat m_vector_utilization{
      m_stats, "vector_utilization", "ratio",
      "useful element operations / what the lanes could do while computing tiles",
      [this](uint64_t) {
        return m_peak_vector_ops > 0 ? static_cast<double>(m_vector_ops.count()) / m_peak_vector_ops
                                     : 0;
      }};
  std::array<uint64_t, 4> m_macs_by_dtype{}; ///< useful MACs, indexed by DType
  Stat m_macs{m_stats, "macs", "count", "useful multiply-accumulates"};
  Stat m_vector_ops{m_stats, "vector_ops", "count", "useful vector element operations"};
  Stat m_tiles{m_stats, "tiles", "count", "SRAM tiles computed"};
  Stat m_bytes_loaded{m_stats, "bytes_loaded", "bytes",
                      "operand bytes moved into the SRAM partition"};
  Stat m_bytes_stored{m_stats, "bytes_stored", "bytes",
                      "result bytes moved out of the SRAM partition"};
  Stat m_dma_transfers{m_stats, "dma_transfers", "count", "DMA descriptors issued"};
  TimeStat m_memory_active_ps{m_stats, "memory_active_ns",
                              "time with an operand load or result store in flight"};
};

} // namespace npu
