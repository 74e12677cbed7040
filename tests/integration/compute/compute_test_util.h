// Helpers for the compute-unit tests: one-kernel runs through the runtime API (configs
// from YAML and statistic lookup come from the model tests' helpers).
#pragma once

#include "config/node.h"
#include "models/common/stats.h"
#include "platform/platform.h"
#include "platform/platform_config.h"
#include "report/report.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npu::test {

inline KernelDesc kernel(const std::string& name, const OpSpec& op, uint32_t units = 1) {
  KernelDesc k;
  k.name = name;
  k.op = op;
  k.units = units;
  return k;
}

inline OpSpec matmul(uint64_t m, uint64_t n, uint64_t k, DType dtype = DType::Int8) {
  OpSpec op;
  auto& shape = op.shape.emplace<MatmulOp>();
  op.dtype = dtype;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  return op;
}

/// Result of one synchronous launch of `op` with real argument buffers (inputs
/// sized `input_bytes` each, output `output_bytes`).
struct OneLaunch {
  RunReport report;
  LaunchRecord record;
  PlatformConfig config;
  uint64_t partition_bytes = 0;

  double unit_stat(const std::string& name) const {
    return stat(report.blocks, "compute.unit0", name);
  }
  double execute_ns() const { return static_cast<double>(record.execute_ps()) / 1000.0; }
};

inline OneLaunch run_one(const std::string& yaml, const OpSpec& op,
                         const std::vector<uint64_t>& input_bytes, uint64_t output_bytes,
                         MemoryKind where = MemoryKind::Ddr) {
  OneLaunch out;
  out.config = config_from_yaml(yaml);
  Simulation sim(out.config);
  out.partition_bytes = (out.config.sram.size_bytes - out.config.sram.buffer_bytes) /
                        out.config.compute.units / 64 * 64;
  out.report = sim.run([&](Runtime& rt) {
    const Kernel k = rt.load_kernel(kernel("k", op));
    std::vector<Buffer> args;
    for (uint64_t b : input_bytes)
      args.push_back(rt.malloc(b, where));
    args.push_back(rt.malloc(output_bytes, where));
    rt.launch(k, args);
  });
  EXPECT_EQ(out.report.launches.size(), 1u);
  if (!out.report.launches.empty())
    out.record = out.report.launches.front();
  return out;
}

} // namespace npu::test
