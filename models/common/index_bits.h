#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu {

/// A set of indexes as one bit each, visited lowest first; clearing the visited index
/// during a visit is allowed.
class IndexBits {
public:
  void resize(size_t n) { m_words.assign((n + 63) / 64, 0); }
  void set(size_t i) { m_words[i / 64] |= uint64_t{1} << (i % 64); }
  void clear(size_t i) { m_words[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  template <class F> void for_each(F&& f) const {
    for (size_t w = 0; w < m_words.size(); ++w)
      for (uint64_t bits = m_words[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
  }

private:
  std::vector<uint64_t> m_words;
};

} // namespace npu
