#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace npu {

/// Who issued a transaction; rides on every payload so targets can attribute traffic.
enum class Initiator : uint8_t { Host, Scheduler, Dma, ICache, Compute, Unknown };
constexpr size_t kInitiators = 6; ///< values of Initiator

/// Machine name of an initiator ("host", "dma", ...).
inline const char* initiator_name(Initiator who) {
  static constexpr std::array<const char*, kInitiators> names{"host",   "scheduler", "dma",
                                                              "icache", "compute",   "unknown"};
  return names[static_cast<size_t>(who)];
}

/// Bytes read [0] and written [1] by each Initiator.
using InitiatorBytes = std::array<std::array<uint64_t, 2>, kInitiators>;

} // namespace npu
