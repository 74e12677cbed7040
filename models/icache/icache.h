#pragma once

#include "common/stats.h"
#include "common/tlm_util.h"
#include "common/worker_pool.h"
#include "models/icache/icache_config.h"
#include "models/icache/tag_store.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <memory>
#include <vector>

namespace npu {

/// One compute unit's instruction cache. Lines are filled from DDR through the
/// interconnect, so fills contend with data traffic.
class ICache : public sc_core::sc_module {
public:
  tlm_utils::simple_initiator_socket<ICache> socket;

  ICache(sc_core::sc_module_name name, const ICacheConfig& config, int unit);

  /// Phase 4: makes [addr, addr+bytes) resident, filling missing lines with up to
  /// fills_outstanding in flight; blocks the calling thread until the last fill.
  void preload(uint64_t addr, uint64_t bytes, uint64_t launch_id);
  /// Lines of [addr, addr+bytes) present now (for affinity dispatch).
  uint64_t resident_lines(uint64_t addr, uint64_t bytes) const;

  uint64_t hits() const { return m_hits; }
  uint64_t misses() const { return m_misses; }
  uint64_t evictions() const { return m_evictions; }
  StatGroup stats() const;

private:
  ICacheConfig m_config;
  int m_unit;
  uint64_t m_period_ps;
  TagStore m_tags;
  std::unique_ptr<WorkerPool> m_fills;
  std::vector<uint64_t> m_missing; ///< scratch: lines a preload must fill
  uint64_t m_hits = 0;
  uint64_t m_misses = 0;
  uint64_t m_evictions = 0;
  uint64_t m_fill_ps = 0;
};

} // namespace npu
