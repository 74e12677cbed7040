#pragma once

#include <array>
#include <cstdint>
#include <string>

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

/// One launch: its timestamps and what ran where.
struct LaunchRecord : LaunchTimes {
  uint64_t launch_id = 0;
  std::string kernel;
  std::string stream;
  int unit = -1;      ///< critical (last finishing) unit
  uint32_t units = 1; ///< units the kernel ran on
  bool async = false;
};

} // namespace npu
