#pragma once

#include <cstdint>

// The device's physical address map, as the interconnect decodes it. Only the platform
// knows it: it hands each block the addresses the block needs.
namespace npu::address_map {

constexpr uint64_t kDdrBase = 0x0;                ///< DDR, up to 256 GiB
constexpr uint64_t kSramBase = 0x40'0000'0000ull; ///< on-chip scratchpad
constexpr uint64_t kRegsBase = 0x80'0000'0000ull; ///< scheduler / command-processor registers
constexpr uint64_t kRegsSize = 0x1000;            ///< 4 KiB register page
constexpr uint64_t kHostBase = 0xC0'0000'0000ull; ///< host DRAM, behind the PCIe link (discrete)

} // namespace npu::address_map
