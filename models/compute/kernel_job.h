#pragma once

#include "models/compute/op.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace npu {

/// A memory region a kernel reads or writes (a launch argument or a workspace).
struct Region {
  uint64_t addr = 0;
  uint64_t bytes = 0;
};

/// One unit's share of a dispatched kernel, as the scheduler hands it over.
struct KernelJob {
  uint64_t launch_id = 0;
  uint64_t binary_addr = 0;
  uint64_t binary_bytes = 0;
  uint64_t hot_loop_addr = 0; ///< code run once per tile (per iteration of `cycles`)
  uint64_t hot_loop_bytes = 0;
  /// Run in order (more than one: a fused kernel); shared with the loaded kernel.
  std::shared_ptr<const std::vector<OpSpec>> ops;
  uint32_t units = 1;         ///< units the kernel spans
  uint32_t share = 0;         ///< which of the `units` shares this unit runs (0-based)
  std::vector<Region> inputs; ///< operands, read cyclically
  Region output;              ///< results, written cyclically
};

/// What a unit reports when its share finished.
struct UnitResult {
  int unit = -1;
  uint64_t resident_ps = 0; ///< instructions resident
  uint64_t finished_ps = 0; ///< finished
  uint64_t ifetch_stall_ps = 0;
  uint64_t compute_ps = 0;      ///< MAC array, vector unit and setup busy, within t4..t5
  uint64_t memory_stall_ps = 0; ///< waiting for operand loads or result stores, within t4..t5
  uint64_t preload_hits = 0;    ///< binary lines found resident in phase 4
  uint64_t preload_misses = 0;  ///< ... and filled from memory
  uint64_t macs = 0;            ///< useful MACs of this share
  uint64_t vector_ops = 0;      ///< useful vector element operations of this share
  uint64_t dram_bytes = 0;      ///< operand and result bytes moved to or from DDR
  double mac_roof_ps = 0;       ///< the share's MACs at this unit's peak MAC rate
  double compute_roof_ps = 0;   ///< MACs, vector ops and busy cycles at the engines' peaks
};

} // namespace npu
