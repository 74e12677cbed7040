#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace npu {

/// Byte storage that costs nothing until touched: 4 KiB pages allocated on first
/// write; untouched bytes read as zero. Used by every memory model.
class SparseMemory {
public:
  explicit SparseMemory(uint64_t size_bytes) : m_size_bytes(size_bytes) {}

  uint64_t size_bytes() const { return m_size_bytes; }
  uint64_t touched_bytes() const { return m_pages.size() * kPageBytes; }
  /// False when [addr, addr+len) leaves the memory.
  bool contains(uint64_t addr, uint64_t len) const {
    return addr <= m_size_bytes && len <= m_size_bytes - addr;
  }
  void read(uint64_t addr, uint8_t* dst, uint64_t len) const;
  void write(uint64_t addr, const uint8_t* src, uint64_t len);

private:
  static constexpr uint64_t kPageBytes = 4096;
  uint64_t m_size_bytes;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> m_pages;
};

} // namespace npu
