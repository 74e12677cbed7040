// Kernels the whole-platform tests launch.
#pragma once

#include "runtime/runtime.h"

#include <cstdint>
#include <string>

namespace npu::test {

/// A `cycles` kernel: `cycles` of compute over `iterations` passes of its hot loop.
inline KernelDesc cycles_kernel(const std::string& name, uint64_t cycles,
                                uint64_t binary_bytes = 4096, uint64_t iterations = 1) {
  KernelDesc k;
  k.name = name;
  auto& shape = k.op.shape.emplace<CyclesOp>();
  shape.cycles = cycles;
  shape.iterations = iterations;
  k.binary_bytes = binary_bytes;
  return k;
}

} // namespace npu::test
