#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace npu {

/// First-fit allocator over [base, base+size) with coalescing free. Plain logic.
class RangeAllocator {
public:
  RangeAllocator(uint64_t base, uint64_t size);

  /// Start of a block of `bytes` aligned to `align` (a power of two), or nullopt.
  std::optional<uint64_t> allocate(uint64_t bytes, uint64_t align);
  /// Frees a block returned by allocate(); false when `addr` is not one (double free).
  bool free(uint64_t addr);
  /// Size of the live block at `addr`, or 0.
  uint64_t block_size(uint64_t addr) const;
  uint64_t used_bytes() const { return m_used; }
  uint64_t live_blocks() const { return m_live.size(); }
  uint64_t largest_free() const;

private:
  std::map<uint64_t, uint64_t> m_free;                      ///< start -> size
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> m_live; ///< user addr -> (block start, size)
  uint64_t m_used = 0;
};

} // namespace npu
