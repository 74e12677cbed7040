#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/stats.h"
#include "models/common/time_order.h"
#include "models/common/tlm_util.h"
#include "models/common/trace.h"
#include "models/common/worker_pool.h"
#include "models/icache/icache_config.h"
#include "models/icache/icache_if.h"
#include "models/icache/tag_store.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <map>
#include <memory>
#include <vector>

namespace npu {

/// One compute unit's instruction cache. Lines are filled from DDR through the
/// interconnect (or through the shared second level), so fills contend with data
/// traffic.
class ICache : public sc_core::sc_module, public InstructionCacheIf, public Block {
public:
  tlm_utils::simple_initiator_socket<ICache> socket;

  /// Fills start and end through `order` (shared with other initiators; null: one of its
  /// own), so fills of several units that fall at one time meet the memory in one order.
  ICache(sc_core::sc_module_name name, const ICacheConfig& config, int unit,
         TimeOrder* order = nullptr);

  /// Phase 4: makes [addr, addr+bytes) resident, filling missing lines with up to
  /// fills_outstanding in flight; blocks the calling thread until the last fill.
  /// With `owed`, the caller's thread is *owed ps behind its own time: when every
  /// line hits, the scan time is added to it instead of waited; otherwise the owed
  /// time and the scan are waited out (and *owed cleared) before the fills start.
  void preload(uint64_t addr, uint64_t bytes, uint64_t launch_id,
               uint64_t* owed = nullptr) override;
  /// Execution: one pass of the unit over the code at [addr, addr+bytes) (a hot-loop
  /// iteration). Resident lines cost nothing beyond the pipeline; missing lines stall
  /// the unit until they are filled, fills_outstanding at a time. Returns the stall (ps).
  /// `owed` as for preload().
  uint64_t fetch(uint64_t addr, uint64_t bytes, uint64_t launch_id,
                 uint64_t* owed = nullptr) override;
  /// Lines of [addr, addr+bytes) present now (for affinity dispatch).
  uint64_t resident_lines(uint64_t addr, uint64_t bytes) const override;
  uint64_t line_bytes() const { return m_config.line_bytes; }
  /// Reports misses to `tracer` (null: off).
  void set_tracer(Tracer* tracer) override { m_trace = tracer; }

  uint64_t hits() const override { return m_preload.hits + m_fetch.hits; }
  uint64_t misses() const override { return m_preload.misses + m_fetch.misses; }
  uint64_t fetch_misses() const { return m_fetch.misses; }
  uint64_t evictions() const { return m_evictions.count(); }
  uint64_t fetch_stall_ps() const { return m_fetch.ps; }
  StatGroup stats() const;
  /// Lookups (every line checked, hit or miss), fills (misses) and leakage.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_stats(StatSink& sink, uint64_t) const override { sink.add(stats()); }
  /// The units' caches make one energy entry, "icache".
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool) const override {
    BlockEnergy e = energy(simulated_ps);
    e.block = "icache";
    sink.add(e);
  }

private:
  struct Counts {
    uint64_t hits = 0;
    uint64_t misses = 0;
    uint64_t ps = 0; ///< time spent (preload) or stalled (fetch)
  };

  /// Looks up every line of the range (claiming the missing ones) and fills the
  /// missing ones from memory; returns the time it took.
  uint64_t access(uint64_t addr, uint64_t bytes, uint64_t launch_id, bool scan, Counts& counts,
                  uint64_t* owed);

  ICacheConfig m_config;
  int m_unit;
  Tracer* m_trace = nullptr;
  uint64_t m_period_ps;
  TagStore m_tags;
  std::unique_ptr<WorkerPool> m_fills;
  std::unique_ptr<TimeOrder> m_own_order; ///< when none is shared
  TimeOrder* m_order;
  std::vector<uint64_t> m_missing; ///< scratch: lines to fill
  std::vector<uint8_t> m_line;     ///< scratch: fill data per worker
  Counts m_preload;
  Counts m_fetch;

  StatRegistry m_stats{"icache.unit" + std::to_string(m_unit)};
  DerivedStat m_hits{m_stats, "hits", "count", "lines found resident",
                     [this](uint64_t) { return static_cast<double>(hits()); }};
  DerivedStat m_misses{m_stats, "misses", "count", "lines filled from memory",
                       [this](uint64_t) { return static_cast<double>(misses()); }};
  Stat m_evictions{m_stats, "evictions", "count", "valid lines replaced"};
  DerivedStat m_load_ns{m_stats, "load_ns", "ns", "time spent in phase 4",
                        [this](uint64_t) { return static_cast<double>(m_preload.ps) / 1000.0; }};
  DerivedStat m_fetch_misses{m_stats, "fetch_misses", "count",
                             "lines missed while executing (a hot loop larger than the cache)",
                             [this](uint64_t) { return static_cast<double>(m_fetch.misses); }};
  DerivedStat m_fetch_stall_ns{
      m_stats, "fetch_stall_ns", "ns", "execution stalled on those misses",
      [this](uint64_t) { return static_cast<double>(m_fetch.ps) / 1000.0; }};
};

/// Second-level instruction cache shared by every unit's cache (optional). A hit
/// answers after `latency`; a miss forwards the line read to memory. Concurrent
/// misses on one line share a single fill. Lookups are served one per cycle.
class ICacheL2 : public sc_core::sc_module, public Block {
public:
  tlm_utils::multi_passthrough_target_socket<ICacheL2> socket; ///< from every unit's cache
  tlm_utils::simple_initiator_socket<ICacheL2> mem;            ///< to the interconnect

  ICacheL2(sc_core::sc_module_name name, const ICacheConfig& config);

  uint64_t hits() const { return m_hits.count(); }
  uint64_t misses() const { return m_misses.count(); }
  StatGroup stats() const;
  void report_stats(StatSink& sink, uint64_t) const override { sink.add(stats()); }

private:
  void b_transport(int unit, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  unsigned transport_dbg(int unit, tlm::tlm_generic_payload& payload);

  ICacheL2Config m_config;
  uint64_t m_line_bytes;
  uint64_t m_period_ps;
  TagStore m_tags;
  BusyResource m_port;
  std::map<uint64_t, std::unique_ptr<sc_core::sc_event>> m_filling; ///< line -> fill done

  StatRegistry m_stats{"icache.l2"};
  Stat m_hits{m_stats, "hits", "count", "line reads served from the second level"};
  Stat m_misses{m_stats, "misses", "count", "line reads forwarded to memory"};
  Stat m_merged{m_stats, "merged", "count", "misses that joined a fill already in flight"};
  Stat m_evictions{m_stats, "evictions", "count", "valid lines replaced"};
  DerivedStat m_hit_rate{m_stats, "hit_rate", "ratio", "reads that did not go to memory",
                         [this](uint64_t) { return hit_rate(); }};

  double hit_rate() const;
};

/// Every unit's instruction cache as one report entry, "icache": their counts summed.
class ICacheTotals : public Block {
public:
  explicit ICacheTotals(std::vector<const ICache*> caches) : m_caches(std::move(caches)) {}
  void report_stats(StatSink& sink, uint64_t simulated_ps) const override;

private:
  std::vector<const ICache*> m_caches;
};

} // namespace npu
