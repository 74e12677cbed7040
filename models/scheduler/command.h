#pragma once

#include "models/compute/kernel_job.h"

#include <array>
#include <cstdint>
#include <vector>

namespace npu {

/// What a command-ring entry asks the device to do.
enum class CommandType : uint32_t { Kernel = 1, Copy = 2, EventRecord = 3, EventWait = 4 };

/// A 64-byte command descriptor as the driver writes it into a ring in DDR
/// (little-endian). Field meaning depends on the type:
///   Kernel: a = binary address, b = binary bytes, c = kernel index, d = launch id
///           (its argument block sits in the slot's argument area)
///   Copy:   a = source, b = destination, c = bytes
///   EventRecord: c = event id;  EventWait: c = event id, d = records to wait for
struct Descriptor {
  static constexpr uint64_t kBytes = 64;
  CommandType type = CommandType::Kernel;
  uint32_t queue = 0;
  uint64_t command_id = 0; ///< driver's sequence number; launch id for kernels
  uint64_t a = 0, b = 0, c = 0, d = 0;
  uint32_t arg_bytes = 0; ///< bytes of the argument block at d
  uint32_t units = 1;     ///< units a kernel spans
  int32_t priority = 0;   ///< stream priority, higher runs first under `priority`

  std::array<uint8_t, kBytes> encode() const;
  /// Returns false when the bytes are not a valid descriptor.
  static bool decode(const uint8_t* bytes, Descriptor* out);
};

/// Launch arguments: memory regions, inputs first and the output last.
std::vector<uint8_t> encode_args(const std::vector<Region>& regions);
bool decode_args(const uint8_t* bytes, uint32_t len, std::vector<Region>* out);

/// Where the command rings, argument blocks and completion records sit in DDR.
struct CommandLayout {
  static constexpr uint64_t kArgBytes = 1024;      ///< argument block per ring slot
  static constexpr uint64_t kCompletionBytes = 16; ///< completion record per ring slot
  static constexpr uint32_t kMaxArgs = (kArgBytes - 8) / 16;

  uint64_t base = 0;
  uint32_t queues = 1;
  uint32_t entries = 256;

  uint64_t descriptor_addr(uint32_t q, uint64_t slot) const {
    return base + (static_cast<uint64_t>(q) * entries + slot % entries) * Descriptor::kBytes;
  }
  uint64_t arg_addr(uint32_t q, uint64_t slot) const {
    return base + total_slots() * Descriptor::kBytes +
           (static_cast<uint64_t>(q) * entries + slot % entries) * kArgBytes;
  }
  uint64_t completion_addr(uint32_t q, uint64_t slot) const {
    return base + total_slots() * (Descriptor::kBytes + kArgBytes) +
           (static_cast<uint64_t>(q) * entries + slot % entries) * kCompletionBytes;
  }
  uint64_t end() const {
    return base + total_slots() * (Descriptor::kBytes + kArgBytes + kCompletionBytes);
  }
  uint64_t total_slots() const { return static_cast<uint64_t>(queues) * entries; }
};

} // namespace npu
