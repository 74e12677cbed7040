#pragma once

#include <array>
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
  /// `rows` rows of `row_bytes`, each `stride` after the previous one from `addr`, to or
  /// from `data`, where they lie packed one after the other.
  void read_rows(uint64_t addr, uint64_t stride, uint64_t row_bytes, uint64_t rows,
                 uint8_t* data) const;
  void write_rows(uint64_t addr, uint64_t stride, uint64_t row_bytes, uint64_t rows,
                  const uint8_t* data);

private:
  static constexpr uint64_t kPageBytes = 4096;
  /// The page holding `page`'s bytes, or null while it is untouched.
  uint8_t* find(uint64_t page) const;
  uint8_t* create(uint64_t page);

  uint64_t m_size_bytes;
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> m_pages;
  /// Pages looked up lately, by page number modulo its size: (page + 1, its bytes or null
  /// while untouched); 0 marks a free entry. Concurrent streams (DMA bursts walking tiles)
  /// come back to the same few pages, which the hash map would look up again each time.
  static constexpr size_t kRecent = 64;
  mutable std::array<std::pair<uint64_t, uint8_t*>, kRecent> m_recent{};
};

} // namespace npu
