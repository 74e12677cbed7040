// The chapter's launch_conv_kernel sample (section 4.2) as a host program:
// prepare parameters, submit through the driver, wait for completion (sync mode).
#include "cli/app.h"

#include <systemc>

namespace {

void launch_conv_kernel(npu::Runtime& rt, npu::Kernel conv, const npu::Buffer& input,
                        const npu::Buffer& weight, const npu::Buffer& output) {
  // Steps 1 and 2: the runtime packs input, weight and output addresses and the
  // shapes, then submits through the driver. Steps 3-5 happen on the device.
  // A synchronous launch waits for completion, like npu_wait_for_completion().
  rt.launch(conv, {input, weight, output});
}

void host_program(npu::Runtime& rt) {
  const uint64_t n = 1, c = 64, h = 56, w = 56, k = 64;
  npu::KernelDesc desc;
  desc.name = "conv2d";
  auto& shape = desc.op.shape.emplace<npu::Conv2dOp>();
  desc.op.dtype = npu::DType::Int8;
  shape.batch = n;
  shape.channels = c;
  shape.height = h;
  shape.width = w;
  shape.filters = k;
  shape.r = 3;
  shape.s = 3;
  shape.pad = 1;
  desc.binary_bytes = 48 << 10;
  const npu::Kernel conv = rt.load_kernel(desc);

  const npu::Buffer host_in = rt.malloc(n * c * h * w, npu::MemoryKind::Host);
  const npu::Buffer input = rt.malloc(n * c * h * w);
  const npu::Buffer weight = rt.malloc(k * c * 3 * 3);
  const npu::Buffer output = rt.malloc(n * k * h * w);
  rt.memcpy(input, host_in, host_in.bytes); // host -> device
  launch_conv_kernel(rt, conv, input, weight, output);
  launch_conv_kernel(rt, conv, input, weight, output); // the instructions are cached now
  for (const auto& b : {host_in, input, weight, output})
    rt.free(b);
}

} // namespace

NPU_TESTBENCH_MAIN("launch_conv_kernel", host_program)
