// Fused kernels: several ops in one binary and one launch. The device runs the ops
// back to back (each op's full work), the host pays one launch.
#include "runtime/runtime.h"
#include "tests/integration/isolated_run.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

KernelDesc matmul(const std::string& name, uint64_t size) {
  KernelDesc k;
  k.name = name;
  auto& shape = k.op.shape.emplace<MatmulOp>();
  shape.m = shape.n = shape.k = size;
  return k;
}

KernelDesc elementwise(const std::string& name, uint64_t elements) {
  KernelDesc k;
  k.name = name;
  auto& shape = k.op.shape.emplace<ElementwiseOp>();
  shape.elements = elements;
  return k;
}

const char* kYaml = "name: t\ncompute: {units: 1}\n";

TEST(Fusion, FusedKernelDoesEveryOpsWorkInOneLaunch) {
  const KernelDesc a = matmul("mm", 128), b = elementwise("relu", 128 * 128);
  const test::IsolatedRun separate = test::run_isolated(kYaml, [&](Runtime& rt, auto&) {
    const Kernel ka = rt.load_kernel(a), kb = rt.load_kernel(b);
    rt.launch(ka);
    rt.launch(kb);
  });
  const test::IsolatedRun fused = test::run_isolated(kYaml, [&](Runtime& rt, auto&) {
    KernelDesc f = a;
    f.name = "mm_relu";
    f.fused.push_back(b.op);
    f.binary_bytes = a.binary_bytes + b.binary_bytes;
    rt.launch(rt.load_kernel(f));
  });
  ASSERT_EQ(separate.error, "");
  ASSERT_EQ(fused.error, "");
  ASSERT_EQ(separate.launches.size(), 2u);
  ASSERT_EQ(fused.launches.size(), 1u);
  // The same useful work on the device.
  for (const char* stat : {"macs", "vector_ops", "tiles", "bytes_loaded", "bytes_stored"})
    EXPECT_EQ(fused.stat("compute.unit0", stat), separate.stat("compute.unit0", stat)) << stat;
  EXPECT_GT(fused.stat("compute.unit0", "macs"), 0);
  EXPECT_GT(fused.stat("compute.unit0", "vector_ops"), 0);
  EXPECT_EQ(fused.stat("compute.unit0", "kernels"), 1);
  // Execute holds both ops one after the other: about both parts' executes (DDR refresh
  // and bank state differ a little between the runs).
  const uint64_t exec_a = separate.launches[0].execute_ps();
  const uint64_t exec_b = separate.launches[1].execute_ps();
  const uint64_t exec_f = fused.launches[0].execute_ps();
  EXPECT_GT(exec_f, std::max(exec_a, exec_b));
  EXPECT_NEAR(static_cast<double>(exec_f), static_cast<double>(exec_a + exec_b),
              0.05 * static_cast<double>(exec_a + exec_b));
  // One launch's host path instead of two: the whole run is shorter.
  EXPECT_LT(fused.launches[0].total_ps(),
            separate.launches[0].total_ps() + separate.launches[1].total_ps());
  EXPECT_LT(fused.simulated_ps, separate.simulated_ps);
}

} // namespace
} // namespace npu
