#pragma once

#include "models/compute/kernel_job.h"

#include <systemc>

#include <cstdint>
#include <functional>

namespace npu {

/// What the scheduler sees of a compute unit: hand it a kernel share, ask how loaded it
/// has been and how much of a binary its instruction cache holds.
class KernelUnitIf : public virtual sc_core::sc_interface {
public:
  using DoneCallback = std::function<void(const UnitResult&)>;

  /// Hands a job to the idle unit (which copies it: the caller may reuse its job's
  /// storage); `done` runs in the unit's thread when it finishes.
  virtual void start(const KernelJob& job, DoneCallback done) = 0;
  /// Time occupied by kernels, dispatch to finish, summed (ps); for load balancing.
  virtual uint64_t busy_ps() const = 0;
  /// Lines of the binary at [addr, addr+bytes) resident in the unit's instruction cache.
  virtual uint64_t resident_lines(uint64_t addr, uint64_t bytes) const = 0;
};

} // namespace npu
