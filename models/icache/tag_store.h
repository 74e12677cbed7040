#pragma once

#include <cstdint>
#include <vector>

namespace npu {

/// Set-associative tag array with true LRU replacement. Plain logic, no timing.
class TagStore {
public:
  /// `size_bytes` / (`line_bytes` * `ways`) sets; all three powers of two.
  TagStore(uint64_t size_bytes, uint64_t line_bytes, uint32_t ways);

  /// True when the line holding `addr` is present; a hit refreshes its LRU age.
  bool lookup(uint64_t addr);
  /// When all `lines` lines from the one holding `addr` are present, refreshes their LRU
  /// ages in order (as lookup() on each would) and returns true; otherwise changes
  /// nothing and returns false. A range seen whole before, with no insert since, is
  /// refreshed without searching the sets again, and its new ages are written only once
  /// another operation needs them (a relaunch touches the same range again and again).
  bool touch_all(uint64_t addr, uint64_t lines);
  /// Presence without touching LRU state.
  bool contains(uint64_t addr) const;
  /// Inserts the line holding `addr`, evicting the least recently used way.
  /// Returns true when a valid line was evicted.
  bool insert(uint64_t addr);
  void clear();

  uint64_t line_bytes() const { return m_line_bytes; }
  uint64_t sets() const { return m_sets; }
  uint32_t ways() const { return m_ways; }

private:
  struct Way {
    uint64_t tag = 0;
    uint64_t last_use = 0;
    bool valid = false;
  };

  Way* find(uint64_t line);
  const Way* find(uint64_t line) const;

  uint64_t m_line_bytes;
  uint32_t m_line_shift; ///< log2(line_bytes)
  uint64_t m_sets;
  uint32_t m_ways;
  uint64_t m_clock = 0;
  uint64_t m_inserts = 0; ///< changes of the tags (not of LRU ages)
  /// Ranges found whole: where each line sits, valid while no insert happened since.
  struct Run {
    uint64_t first_line = 0;
    uint64_t lines = 0;
    uint64_t inserts = UINT64_MAX;
    std::vector<uint32_t> ways; ///< indices into m_ways_storage
  };
  Run m_runs[2];
  uint32_t m_next_run = 0;
  /// The run touched last whose ages are not written yet: way i of m_runs[m_pending] is
  /// due last_use m_pending_base + i + 1 (kNoRun: none).
  static constexpr uint32_t kNoRun = UINT32_MAX;
  uint32_t m_pending = kNoRun;
  uint64_t m_pending_base = 0;
  /// Writes the pending run's ages.
  void settle_ages();
  std::vector<Way> m_ways_storage; ///< sets x ways
};

} // namespace npu
