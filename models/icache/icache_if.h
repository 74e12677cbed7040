#pragma once

#include <systemc>

#include <cstdint>

namespace npu {

/// What a compute unit needs of its instruction cache: make a binary resident before
/// it runs (preload), fetch code while it runs, and count hits and misses (lines).
class InstructionCacheIf : public virtual sc_core::sc_interface {
public:
  /// Makes [addr, addr+bytes) resident, blocking the calling thread until the last
  /// fill; `owed` as for ICache::preload().
  virtual void preload(uint64_t addr, uint64_t bytes, uint64_t launch_id, uint64_t* owed) = 0;
  /// One pass over the code at [addr, addr+bytes); returns the stall (ps).
  virtual uint64_t fetch(uint64_t addr, uint64_t bytes, uint64_t launch_id, uint64_t* owed) = 0;
  /// Lines of [addr, addr+bytes) present now.
  virtual uint64_t resident_lines(uint64_t addr, uint64_t bytes) const = 0;
  /// Lines found resident so far (preload and fetch).
  virtual uint64_t hits() const = 0;
  /// Lines filled so far (preload and fetch).
  virtual uint64_t misses() const = 0;
};

} // namespace npu
