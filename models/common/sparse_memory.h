#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace npu {

/// Byte storage that costs nothing until touched: 4 KiB pages allocated on first
/// write; untouched bytes read as zero. Used by every memory model.
class SparseMemory {
public:
  explicit SparseMemory(uint64_t size_bytes)
      : m_size_bytes(size_bytes), m_table(size_bytes / kPageBytes / kTablePages + 1) {}

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
  /// Where each page of the memory lies (null while untouched), in parts of kTablePages
  /// made on the first write to one: a look-up is two loads where the hash map's walks
  /// scattered nodes (every row a DMA moves looks its page up).
  static constexpr uint64_t kTablePages = 4096;
  std::vector<std::unique_ptr<uint8_t*[]>> m_table;
};

} // namespace npu
