#pragma once

#include <cstdint>

// The device's physical address map, as the interconnect decodes it.
namespace npu::address_map {

constexpr uint64_t kDdrBase = 0x0;                ///< DDR, up to 256 GiB
constexpr uint64_t kSramBase = 0x40'0000'0000ull; ///< on-chip scratchpad
constexpr uint64_t kRegsBase = 0x80'0000'0000ull; ///< scheduler / command-processor registers
constexpr uint64_t kRegsSize = 0x1000;            ///< 4 KiB register page
constexpr uint64_t kHostBase = 0xC0'0000'0000ull; ///< host DRAM, behind the PCIe link (discrete)

/// Scheduler registers: one 8-byte doorbell per hardware queue; writing it
/// publishes the queue's new ring write index.
constexpr uint64_t doorbell_offset(uint32_t queue) {
  return 8ull * queue;
}

} // namespace npu::address_map
