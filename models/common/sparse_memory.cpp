#include "models/common/sparse_memory.h"

#include <algorithm>
#include <cstring>

namespace npu {

void SparseMemory::read(uint64_t addr, uint8_t* dst, uint64_t len) const {
  while (len > 0) {
    const uint64_t page = addr / kPageBytes;
    const uint64_t offset = addr % kPageBytes;
    const uint64_t chunk = std::min(len, kPageBytes - offset);
    const auto it = m_pages.find(page);
    if (it == m_pages.end())
      std::memset(dst, 0, chunk);
    else
      std::memcpy(dst, it->second.get() + offset, chunk);
    addr += chunk;
    dst += chunk;
    len -= chunk;
  }
}

void SparseMemory::write(uint64_t addr, const uint8_t* src, uint64_t len) {
  while (len > 0) {
    const uint64_t page = addr / kPageBytes;
    const uint64_t offset = addr % kPageBytes;
    const uint64_t chunk = std::min(len, kPageBytes - offset);
    auto& slot = m_pages[page];
    if (!slot) {
      slot = std::make_unique<uint8_t[]>(kPageBytes);
      std::memset(slot.get(), 0, kPageBytes);
    }
    std::memcpy(slot.get() + offset, src, chunk);
    addr += chunk;
    src += chunk;
    len -= chunk;
  }
}

} // namespace npu
