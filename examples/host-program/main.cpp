// A host program on npusim's runtime API: a matrix multiply and an activation on one
// stream, timed with two events, then synchronised. `host_program --config NAME|FILE`
// picks the hardware (default: edge-npu); --out DIR writes report.json.
#include "cli/app.h"
#include "runtime/runtime.h"

#include <iostream>

namespace {

npu::Kernel matmul_kernel(npu::Runtime& rt, uint64_t m, uint64_t n, uint64_t k) {
  npu::KernelDesc desc;
  desc.name = "matmul";
  auto& shape = desc.op.shape.emplace<npu::MatmulOp>();
  desc.op.dtype = npu::DType::Int8;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  desc.binary_bytes = 16 << 10;
  return rt.load_kernel(desc);
}

npu::Kernel relu_kernel(npu::Runtime& rt, uint64_t elements) {
  npu::KernelDesc desc;
  desc.name = "relu";
  auto& shape = desc.op.shape.emplace<npu::ElementwiseOp>();
  desc.op.dtype = npu::DType::Int8;
  shape.elements = elements;
  shape.inputs = 1;
  desc.binary_bytes = 4 << 10;
  return rt.load_kernel(desc);
}

void host_program(npu::Runtime& rt) {
  const uint64_t m = 256, n = 256, k = 256;
  const npu::Kernel matmul = matmul_kernel(rt, m, n, k);
  const npu::Kernel relu = relu_kernel(rt, m * n);
  const npu::Buffer a = rt.malloc(m * k, npu::MemoryKind::Ddr, "a");
  const npu::Buffer b = rt.malloc(k * n, npu::MemoryKind::Ddr, "b");
  const npu::Buffer c = rt.malloc(m * n, npu::MemoryKind::Ddr, "c");

  const npu::Stream stream = rt.stream_create("main");
  const npu::Event start = rt.event_create("start");
  const npu::Event end = rt.event_create("end");
  const uint64_t submitted_ps = rt.now_ps();
  rt.event_record(start, stream);
  rt.launch_async(matmul, {a, b, c}, stream);
  rt.launch_async(relu, {c, c}, stream);
  rt.event_record(end, stream);
  rt.stream_synchronize(stream);

  std::cout << "host_program: matmul " << m << "x" << n << "x" << k
            << " and relu on the device: " << rt.event_elapsed_ps(start, end) / 1e6
            << " us between the events, " << (rt.now_ps() - submitted_ps) / 1e6
            << " us from the first call to the sync\n";
  rt.stream_destroy(stream);
  for (const npu::Buffer& buffer : {a, b, c})
    rt.free(buffer);
}

} // namespace

NPU_TESTBENCH_MAIN("host_program", host_program)
