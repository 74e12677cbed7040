#include "runtime/range_allocator.h"

#include <algorithm>

namespace npu {

RangeAllocator::RangeAllocator(uint64_t base, uint64_t size) {
  if (size > 0)
    m_free[base] = size;
}

std::optional<uint64_t> RangeAllocator::allocate(uint64_t bytes, uint64_t align) {
  if (bytes == 0)
    bytes = 1;
  for (auto it = m_free.begin(); it != m_free.end(); ++it) {
    const uint64_t start = it->first;
    const uint64_t size = it->second;
    const uint64_t aligned = (start + align - 1) & ~(align - 1);
    if (aligned < start || aligned - start > size || size - (aligned - start) < bytes)
      continue;
    const uint64_t end = aligned + bytes;
    m_free.erase(it);
    if (aligned > start)
      m_free[start] = aligned - start;
    if (start + size > end)
      m_free[end] = start + size - end;
    m_live[aligned] = {aligned, bytes};
    m_used += bytes;
    return aligned;
  }
  return std::nullopt;
}

bool RangeAllocator::free(uint64_t addr) {
  const auto it = m_live.find(addr);
  if (it == m_live.end())
    return false;
  uint64_t start = it->second.first;
  uint64_t size = it->second.second;
  m_used -= size;
  m_live.erase(it);
  // Coalesce with the neighbours.
  auto next = m_free.lower_bound(start);
  if (next != m_free.end() && start + size == next->first) {
    size += next->second;
    next = m_free.erase(next);
  }
  if (next != m_free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      m_free.erase(prev);
    }
  }
  m_free[start] = size;
  return true;
}

uint64_t RangeAllocator::block_size(uint64_t addr) const {
  const auto it = m_live.find(addr);
  return it == m_live.end() ? 0 : it->second.second;
}

uint64_t RangeAllocator::largest_free() const {
  uint64_t best = 0;
  for (const auto& [start, size] : m_free)
    best = std::max(best, size);
  return best;
}

} // namespace npu
