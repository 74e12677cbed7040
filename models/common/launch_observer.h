#pragma once

#include "models/common/launch_record.h"

#include <systemc>

#include <cstdint>

namespace npu {

/// What the driver knows of a launch when the host enters its call.
struct LaunchCall {
  uint32_t kernel = 0; ///< index in the device's kernel table
  uint32_t stream = 0;
  uint32_t units = 1;
  bool async = false;
  /// The launch whose completion ended the host's latest wait before this call (-1: none).
  int64_t host_after = -1;
};

/// What the scheduler knows of a kernel launch when it assigns units to it.
struct LaunchDispatch {
  uint64_t assigned_ps = 0; ///< the Assigned instant
  /// The command processor's own work for it (fetch, decode, dispatch), which the
  /// schedule phase holds besides waiting.
  uint64_t dispatch_ps = 0;
  uint32_t units = 1;
  /// What released it: a launch's completion (-1: the host's submission) and when.
  int64_t released_by = -1;
  uint64_t released_ps = 0;
};

/// What one compute unit did for a launch.
struct UnitPart {
  uint32_t unit = 0;
  uint64_t resident_ps = 0; ///< instructions resident
  uint64_t finished_ps = 0; ///< its share finished
  uint64_t ifetch_stall_ps = 0;
  uint64_t macs = 0;
  uint64_t vector_ops = 0;
  uint64_t dram_bytes = 0;
  double mac_roof_ps = 0;     ///< its MACs at its peak MAC rate
  double compute_roof_ps = 0; ///< its work at its engines' peaks
};

/// What the blocks tell about each launch as it happens: the driver its calls, stamps and
/// completions, the scheduler its dispatch and each unit's part. A collector built above
/// the models implements it and makes the launch records; no block reads what another
/// wrote. Blocks publish through a port bound in the platform (unbound: nothing is told).
class LaunchObserverIf : public virtual sc_core::sc_interface {
public:
  /// The host entered the call of launch `launch_id` (ids count launches from 0) at
  /// `called_ps`.
  virtual void called(uint64_t launch_id, const LaunchCall& call, uint64_t called_ps) = 0;
  /// The driver reached an instant of the launch: Packed, Submitted or Learnt.
  virtual void stamped(uint64_t launch_id, Stamp stamp, uint64_t at_ps) = 0;
  /// The host's launch call returned at `at_ps`; `listed`: the launch was one of a
  /// command list, whose call the host thread shows as a whole.
  virtual void returned(uint64_t launch_id, uint64_t at_ps, bool listed) = 0;
  /// The scheduler assigned units to the launch.
  virtual void dispatched(uint64_t launch_id, const LaunchDispatch& dispatch) = 0;
  /// One of its units finished its share (in the order they finish).
  virtual void unit_done(uint64_t launch_id, const UnitPart& part) = 0;
};

} // namespace npu
