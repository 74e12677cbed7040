#pragma once

#include "models/compute/kernel_job.h"

#include <array>
#include <cstdint>
#include <variant>
#include <vector>

namespace npu {

/// What a command-ring entry asks the device to do.
enum class CommandType : uint32_t { Kernel = 1, Copy = 2, EventRecord = 3, EventWait = 4 };

/// Launch a loaded kernel: its binary, its index in the device's kernel table, and
/// its argument block (in the ring slot's argument area).
struct KernelCommand {
  uint64_t binary_addr = 0;
  uint64_t binary_bytes = 0;
  uint64_t kernel = 0; ///< index in the device's kernel table
  uint64_t launch_id = 0;
  uint32_t arg_bytes = 0; ///< bytes of the argument block
  uint32_t units = 1;     ///< units the kernel spans
};
/// Copy `bytes` from `src` to `dst` (device addresses) on the DMA engine.
struct CopyCommand {
  uint64_t src = 0;
  uint64_t dst = 0;
  uint64_t bytes = 0;
};
/// Record `event` once its queue reaches it.
struct EventRecordCommand {
  uint64_t event = 0;
};
/// Hold the queue until `event` has been recorded `records` times.
struct EventWaitCommand {
  uint64_t event = 0;
  uint64_t records = 0;
};
/// What one command asks for; the alternatives are in CommandType order.
using CommandBody = std::variant<KernelCommand, CopyCommand, EventRecordCommand, EventWaitCommand>;

/// A 64-byte command descriptor as the driver writes it into a ring in DDR
/// (little-endian): type, queue, command id, four 64-bit words whose meaning the
/// type gives, argument bytes, units, priority. Words per type:
///   Kernel: binary_addr, binary_bytes, kernel, launch_id (arg_bytes and units in their own)
///   Copy: src, dst, bytes;  EventRecord: -, -, event;  EventWait: -, -, event, records
/// Unused words are written as zero, and arg_bytes and units as 0 and 1.
struct Descriptor {
  static constexpr uint64_t kBytes = 64;
  uint32_t queue = 0;
  uint64_t command_id = 0; ///< driver's sequence number
  int32_t priority = 0;    ///< stream priority, higher runs first under `priority`
  CommandBody body;

  CommandType type() const { return static_cast<CommandType>(body.index() + 1); }
  /// The kernel launch, or null for other commands.
  const KernelCommand* kernel() const { return std::get_if<KernelCommand>(&body); }

  std::array<uint8_t, kBytes> encode() const;
  /// Returns false when the bytes are not a valid descriptor.
  static bool decode(const uint8_t* bytes, Descriptor* out);
};

/// Launch arguments: memory regions, inputs first and the output last.
std::vector<uint8_t> encode_args(const std::vector<Region>& regions);
bool decode_args(const uint8_t* bytes, uint32_t len, std::vector<Region>* out);

/// Where the driver and the scheduler find each other in the device's address space, as
/// the platform maps it.
struct CommandAddresses {
  uint64_t ddr_base = 0;  ///< device address of DDR offset 0 (the command area lives there)
  uint64_t regs_base = 0; ///< device address of the scheduler's doorbell registers
};

/// Where the command rings, argument blocks and completion records sit in DDR.
struct CommandLayout {
  static constexpr uint64_t kArgBytes = 1024;      ///< argument block per ring slot
  static constexpr uint64_t kCompletionBytes = 16; ///< completion record per ring slot
  static constexpr uint32_t kMaxArgs = (kArgBytes - 8) / 16;

  uint64_t base = 0;
  uint32_t queues = 1;
  uint32_t entries = 256;

  /// The scheduler's registers: one 8-byte doorbell per hardware queue; writing it
  /// publishes the queue's new ring write index.
  static constexpr uint64_t doorbell_offset(uint32_t queue) { return 8ull * queue; }

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
