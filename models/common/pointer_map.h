#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace npu {

/// A map from a pointer to a small value, for the transactions a block has in flight:
/// open addressing with linear probing in one array, so inserting and erasing allocate
/// nothing once it has grown to the peak number in flight (std::unordered_map allocates a
/// node per insert). Keys must not be null.
template <class K, class V> class PointerMap {
public:
  /// Sets the value of `key` (inserted if absent).
  void put(const K* key, const V& value) {
    if ((m_size + 1) * 4 > m_slots.size() * 3)
      grow();
    Slot& s = m_slots[probe(key)];
    if (!s.key)
      ++m_size;
    s.key = key;
    s.value = value;
  }
  /// The value of `key`, or null when absent.
  V* find(const K* key) {
    if (m_slots.empty())
      return nullptr;
    Slot& s = m_slots[probe(key)];
    return s.key ? &s.value : nullptr;
  }
  /// Removes `key` and returns its value; it must be present.
  V take(const K* key) {
    size_t hole = probe(key);
    V value = std::move(m_slots[hole].value);
    // Backward-shift deletion: pull later entries of the run into the hole, so lookups
    // stop at the first empty slot without tombstones.
    const size_t mask = m_slots.size() - 1;
    for (size_t i = (hole + 1) & mask; m_slots[i].key; i = (i + 1) & mask) {
      const size_t home = bucket(m_slots[i].key);
      // Moves only if its home is not in (hole, i], cyclically.
      if (((i - home) & mask) >= ((i - hole) & mask)) {
        m_slots[hole] = std::move(m_slots[i]);
        hole = i;
      }
    }
    m_slots[hole].key = nullptr;
    --m_size;
    return value;
  }
  size_t size() const { return m_size; }

private:
  struct Slot {
    const K* key = nullptr;
    V value{};
  };
  size_t bucket(const K* key) const {
    // Fibonacci hashing of the address: payloads lie a fixed stride apart.
    const auto h = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(key)) * 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(h >> 32) & (m_slots.size() - 1);
  }
  /// The slot holding `key`, or the empty slot where it would go.
  size_t probe(const K* key) const {
    const size_t mask = m_slots.size() - 1;
    size_t i = bucket(key);
    while (m_slots[i].key && m_slots[i].key != key)
      i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(old.empty() ? 16 : old.size() * 2, Slot{});
    m_size = 0;
    for (Slot& s : old)
      if (s.key)
        put(s.key, s.value);
  }

  std::vector<Slot> m_slots; ///< size a power of two, at most 3/4 full
  size_t m_size = 0;
};

} // namespace npu
