#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// The seven instants of a kernel launch, in order (the SPEC's t0..t6).
enum class Stamp : uint8_t {
  Called,    ///< t0 host enters the launch call
  Packed,    ///< t1 parameters packed
  Submitted, ///< t2 doorbell accepted by the device
  Assigned,  ///< t3 compute unit(s) assigned
  Resident,  ///< t4 instructions resident
  Finished,  ///< t5 kernel finished
  Learnt,    ///< t6 host learns of completion
};
inline constexpr size_t kStamps = 7;

/// A launch's instants in simulated picoseconds, one per Stamp.
class Stamps {
public:
  Stamps() = default;
  /// All seven in order, Called first.
  explicit Stamps(const std::array<uint64_t, kStamps>& ps) : m_ps(ps) {}

  uint64_t& operator[](Stamp s) { return m_ps[static_cast<size_t>(s)]; }
  uint64_t operator[](Stamp s) const { return m_ps[static_cast<size_t>(s)]; }
  /// The `i`-th instant (0 = Called ... 6 = Learnt), for walks over consecutive phases.
  uint64_t nth(size_t i) const { return m_ps[i]; }
  uint64_t& nth(size_t i) { return m_ps[i]; }
  const std::array<uint64_t, kStamps>& all() const { return m_ps; }
  static constexpr size_t size() { return kStamps; }
  const uint64_t* begin() const { return m_ps.data(); }
  const uint64_t* end() const { return m_ps.data() + kStamps; }
  uint64_t* begin() { return m_ps.data(); }
  uint64_t* end() { return m_ps.data() + kStamps; }

private:
  std::array<uint64_t, kStamps> m_ps{};
};

/// The instants of one kernel launch and the phases between them.
struct LaunchTimes {
  Stamps at;
  uint64_t schedule_dispatch_ps = 0; ///< scheduler's own work inside the schedule phase
  uint64_t ifetch_stall_ps = 0;      ///< instruction-fetch stalls inside execute

  uint64_t span(Stamp from, Stamp to) const { return at[to] - at[from]; }
  uint64_t prepare_ps() const { return span(Stamp::Called, Stamp::Packed); }
  uint64_t submit_ps() const { return span(Stamp::Packed, Stamp::Submitted); }
  uint64_t schedule_ps() const { return span(Stamp::Submitted, Stamp::Assigned); }
  uint64_t schedule_wait_ps() const { return schedule_ps() - schedule_dispatch_ps; }
  uint64_t iload_ps() const { return span(Stamp::Assigned, Stamp::Resident); }
  uint64_t execute_ps() const { return span(Stamp::Resident, Stamp::Finished); }
  uint64_t complete_ps() const { return span(Stamp::Finished, Stamp::Learnt); }
  uint64_t total_ps() const { return span(Stamp::Called, Stamp::Learnt); }
};

/// What held a launch back, as the simulator recorded it when it happened (not inferred
/// from timestamps afterwards): the critical path follows these.
struct LaunchCauses {
  /// The launch whose completion let the device dispatch this one: its stream's
  /// previous launch, the launch behind an event it waited for, or the launch that freed
  /// the units it needed, directly or through copies and events in between. -1 when the
  /// host's submission came last (the command arrived after all of those).
  int64_t released_by = -1;
  /// When that completion released it (the predecessor's Finished, or the end of a copy
  /// or an event wait after it); used when released_by >= 0.
  uint64_t released_ps = 0;
  /// The launch whose completion ended the host's latest wait (a sync, a synchronous
  /// memcpy or launch, a full ring) before this launch call; -1 when the host came to
  /// this call from its previous launch call, or from the start, without waiting.
  int64_t host_after = -1;
};

/// One compute unit's part of a launch: it took the kernel when the launch was assigned,
/// had the instructions resident at `resident_ps` and finished its share at `finished_ps`.
struct UnitSpan {
  uint32_t unit = 0;
  uint64_t resident_ps = 0;
  uint64_t finished_ps = 0;
};

/// The work of one launch, summed over the units it ran on, as they did it.
struct LaunchWork {
  uint64_t macs = 0;       ///< useful multiply-accumulates
  uint64_t vector_ops = 0; ///< useful vector element operations
  /// Operand and result bytes its DMA moved between DDR and SRAM (not those of buffers
  /// in SRAM, nor instruction fills).
  uint64_t dram_bytes = 0;
  /// Its MACs at the peak rate of the MAC arrays of its units together (ps).
  uint64_t mac_roof_ps = 0;
  /// Its MACs, vector operations and busy cycles at the peak rates of its units'
  /// engines together (ps): the compute roof.
  uint64_t compute_roof_ps = 0;
};

/// One launch: its timestamps and what ran where.
struct LaunchRecord : LaunchTimes, LaunchCauses {
  uint64_t launch_id = 0;
  std::string kernel;
  std::string stream;
  int unit = -1;      ///< critical (last finishing) unit
  uint32_t units = 1; ///< units the kernel ran on
  /// Each unit's part, in ascending unit order (the dispatch policy picks any free
  /// units, not a contiguous range); the launch's Resident and Finished are the critical
  /// unit's.
  std::vector<UnitSpan> unit_spans;
  LaunchWork work;
  bool async = false;
};

} // namespace npu
