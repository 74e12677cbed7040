#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>

namespace npu {

/// a * b, or nothing when the product does not fit in 64 bits.
inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product))
    return std::nullopt;
  return product;
}

/// a + b, or nothing when the sum does not fit in 64 bits.
inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

/// The product of `factors`, or nothing when it (or any partial product) does not fit.
inline std::optional<uint64_t> checked_product(std::initializer_list<uint64_t> factors) {
  uint64_t product = 1;
  for (const uint64_t f : factors) {
    const auto next = checked_mul(product, f);
    if (!next)
      return std::nullopt;
    product = *next;
  }
  return product;
}

/// Saturating forms: UINT64_MAX stands for "does not fit", which compares above any limit.
inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return checked_mul(a, b).value_or(std::numeric_limits<uint64_t>::max());
}
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return checked_add(a, b).value_or(std::numeric_limits<uint64_t>::max());
}
inline uint64_t saturating_product(std::initializer_list<uint64_t> factors) {
  return checked_product(factors).value_or(std::numeric_limits<uint64_t>::max());
}

} // namespace npu
