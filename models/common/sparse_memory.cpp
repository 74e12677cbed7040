#include "models/common/sparse_memory.h"

#include <algorithm>
#include <cstring>

namespace npu {

uint8_t* SparseMemory::find(uint64_t page) const {
  if (page / kTablePages < m_table.size()) {
    const auto& part = m_table[page / kTablePages];
    return part ? part[page % kTablePages] : nullptr;
  }
  const auto it = m_pages.find(page); // beyond the memory's size
  return it == m_pages.end() ? nullptr : it->second.get();
}

uint8_t* SparseMemory::create(uint64_t page) {
  auto& slot = m_pages[page];
  slot = std::make_unique<uint8_t[]>(kPageBytes);
  std::memset(slot.get(), 0, kPageBytes);
  if (page / kTablePages < m_table.size()) {
    auto& part = m_table[page / kTablePages];
    if (!part)
      part = std::make_unique<uint8_t*[]>(kTablePages); // all null
    part[page % kTablePages] = slot.get();
  }
  return slot.get();
}

void SparseMemory::read(uint64_t addr, uint8_t* dst, uint64_t len) const {
  while (len > 0) {
    const uint64_t page = addr / kPageBytes;
    const uint64_t offset = addr % kPageBytes;
    const uint64_t chunk = std::min(len, kPageBytes - offset);
    if (const uint8_t* bytes = find(page))
      std::memcpy(dst, bytes + offset, chunk);
    else
      std::memset(dst, 0, chunk);
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
    uint8_t* bytes = find(page);
    if (!bytes)
      bytes = create(page);
    std::memcpy(bytes + offset, src, chunk);
    addr += chunk;
    src += chunk;
    len -= chunk;
  }
}

// A row within one page that is already at hand is one copy; any other goes the long way.
// Packed rows of untouched pages are zeroed together, up to kZeroBytes at once (a short
// memset runs as vector stores).
void SparseMemory::read_rows(uint64_t addr, uint64_t stride, uint64_t row_bytes, uint64_t rows,
                             uint8_t* data) const {
  constexpr uint64_t kZeroBytes = 2048;
  uint64_t held = UINT64_MAX; // the page at hand (bytes: its data, null while untouched)
  const uint8_t* bytes = nullptr;
  uint8_t* zero_from = data; // rows from here to `data` are of untouched pages, not yet zeroed
  for (uint64_t i = 0; i < rows; ++i, addr += stride, data += row_bytes) {
    const uint64_t page = addr / kPageBytes;
    const uint64_t offset = addr % kPageBytes;
    if (offset + row_bytes <= kPageBytes) {
      if (page != held) {
        held = page;
        bytes = find(page);
      }
      if (!bytes && static_cast<uint64_t>(data - zero_from) + row_bytes <= kZeroBytes)
        continue;
    }
    if (data > zero_from)
      std::memset(zero_from, 0, static_cast<size_t>(data - zero_from));
    zero_from = data;
    if (offset + row_bytes > kPageBytes) {
      read(addr, data, row_bytes);
      zero_from = data + row_bytes;
    } else if (bytes) {
      std::memcpy(data, bytes + offset, row_bytes);
      zero_from = data + row_bytes;
    }
  }
  std::memset(zero_from, 0, static_cast<size_t>(data - zero_from));
}

void SparseMemory::write_rows(uint64_t addr, uint64_t stride, uint64_t row_bytes, uint64_t rows,
                              const uint8_t* data) {
  if (stride == row_bytes && row_bytes > 0) { // one region (an empty row still makes its page)
    write(addr, data, rows * row_bytes);
    return;
  }
  uint64_t held = UINT64_MAX;
  uint8_t* bytes = nullptr;
  for (uint64_t i = 0; i < rows; ++i, addr += stride, data += row_bytes) {
    const uint64_t page = addr / kPageBytes;
    const uint64_t offset = addr % kPageBytes;
    if (offset + row_bytes > kPageBytes) {
      write(addr, data, row_bytes);
      held = UINT64_MAX; // it may have made a page
      continue;
    }
    if (page != held) {
      held = page;
      bytes = find(page);
      if (!bytes)
        bytes = create(page);
    }
    std::memcpy(bytes + offset, data, row_bytes);
  }
}

} // namespace npu
