#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npu {

/// Timestamps of one kernel launch, in simulated picoseconds (see SPEC: t0..t6).
///  t0 host enters the launch call      t1 parameters packed
///  t2 doorbell accepted by the device  t3 compute unit(s) assigned
///  t4 instructions resident            t5 kernel finished
///  t6 host learns of completion
struct LaunchTimes {
  std::array<uint64_t, 7> t_ps{};
  uint64_t schedule_dispatch_ps = 0; ///< scheduler's own work inside t3 - t2
  uint64_t ifetch_stall_ps = 0;      ///< instruction-fetch stalls inside execute

  uint64_t prepare_ps() const { return t_ps[1] - t_ps[0]; }
  uint64_t submit_ps() const { return t_ps[2] - t_ps[1]; }
  uint64_t schedule_ps() const { return t_ps[3] - t_ps[2]; }
  uint64_t schedule_wait_ps() const { return schedule_ps() - schedule_dispatch_ps; }
  uint64_t iload_ps() const { return t_ps[4] - t_ps[3]; }
  uint64_t execute_ps() const { return t_ps[5] - t_ps[4]; }
  uint64_t complete_ps() const { return t_ps[6] - t_ps[5]; }
  uint64_t total_ps() const { return t_ps[6] - t_ps[0]; }
};

/// What held a launch back, as the simulator recorded it when it happened (not inferred
/// from timestamps afterwards): the critical path follows these.
struct LaunchCauses {
  /// The launch whose completion let the device dispatch this one: its stream's
  /// previous launch, the launch behind an event it waited for, or the launch that freed
  /// the units it needed, directly or through copies and events in between. -1 when the
  /// host's submission came last (the command arrived after all of those).
  int64_t released_by = -1;
  /// When that completion released it (the predecessor's t5, or the end of a copy or
  /// an event wait after it); used when released_by >= 0.
  uint64_t released_ps = 0;
  /// The launch whose completion ended the host's latest wait (a sync, a synchronous
  /// memcpy or launch, a full ring) before this launch call; -1 when the host came to
  /// this call from its previous launch call, or from the start, without waiting.
  int64_t host_after = -1;
};

/// One compute unit's part of a launch: it took the kernel at the launch's t3, had the
/// instructions resident at `t4_ps` and finished its share at `t5_ps`.
struct UnitSpan {
  uint32_t unit = 0;
  uint64_t t4_ps = 0;
  uint64_t t5_ps = 0;
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
  /// units, not a contiguous range); the launch's t4 and t5 are the critical unit's.
  std::vector<UnitSpan> unit_spans;
  LaunchWork work;
  bool async = false;
};

} // namespace npu
