#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <memory>
#include <queue>
#include <tuple>
#include <vector>

namespace npu {

/// Resumes SystemC threads that wait for a time in one fixed order among those due at the
/// same time: by key, those that began waiting before that time first, then those that began
/// at it. SystemC alone resumes threads due at one time in an order of its own, which
/// depends on everything that ran before; requests that reach a shared port at the same
/// time through a TimeOrder reach it in an order that does not. The data paths share one
/// (Platform), so that the DMA's workers and the instruction caches' fills of the 64-byte
/// path and the burst path meet the memories alike.
class TimeOrder : public sc_core::sc_module {
public:
  /// The order among threads due at one time: (block, index, step), e.g. (DMA, channel,
  /// burst) or (instruction cache, unit, fill).
  using Key = std::array<uint64_t, 3>;
  static constexpr uint64_t kDma = 0;
  static constexpr uint64_t kInstructionCache = 1;

  explicit TimeOrder(sc_core::sc_module_name name);

  /// Blocks the calling thread until `at_ps` (now, if earlier), then resumes it in the order
  /// of `key` among the threads due then.
  void wait_until(uint64_t at_ps, const Key& key);

private:
  void run();

  /// A waiting thread: (time, key, order of the call, its wake-up event).
  using Sleeper = std::tuple<uint64_t, Key, uint64_t, sc_core::sc_event*>;
  std::priority_queue<Sleeper, std::vector<Sleeper>, std::greater<>> m_sleepers;
  uint64_t m_seq = 0;
  /// Every wake-up event made, and those free: an event is costly to build.
  std::vector<std::unique_ptr<sc_core::sc_event>> m_events;
  std::vector<sc_core::sc_event*> m_free;
  sc_core::sc_event m_added;
  uint64_t m_wake_at = UINT64_MAX; ///< when run() wakes next
};

} // namespace npu
