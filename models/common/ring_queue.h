#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace npu {

/// A FIFO over one growable ring buffer: front, push and pop touch one array, and once it
/// has grown to the largest fill seen it allocates nothing (a std::deque allocates and
/// frees a block every few hundred elements and reaches its front through a map).
template <class T> class RingQueue {
public:
  bool empty() const { return m_count == 0; }
  size_t size() const { return m_count; }
  const T& front() const { return m_items[m_head]; }
  T& front() { return m_items[m_head]; }
  /// The element `i` places after the front (i < size()).
  T& operator[](size_t i) { return m_items[(m_head + i) & (m_items.size() - 1)]; }
  void push_back(const T& value) { push_slot() = value; }
  /// Appends the slot after the back as a pop left it (default-constructed if never used),
  /// for the caller to fill: an element that owns storage can keep and reuse it.
  T& push_slot() {
    if (m_count == m_items.size())
      grow();
    ++m_count;
    return (*this)[m_count - 1];
  }
  void pop_front() {
    m_head = (m_head + 1) & (m_items.size() - 1);
    --m_count;
  }

private:
  /// Doubles the capacity (a power of two, so an index wraps with a mask), oldest first.
  void grow() {
    std::vector<T> items(m_items.empty() ? 16 : m_items.size() * 2);
    for (size_t i = 0; i < m_count; ++i)
      items[i] = std::move(m_items[(m_head + i) & (m_items.size() - 1)]);
    m_items = std::move(items);
    m_head = 0;
  }

  std::vector<T> m_items;
  size_t m_head = 0;
  size_t m_count = 0;
};

} // namespace npu
