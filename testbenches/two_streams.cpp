// The chapter's two-stream async sample (section 4.3) as a host program: batches go to
// two streams in turn, each as copy in, kernel, copy out, all asynchronous. While the
// device works, the host prepares the next batch; it synchronises only at the end,
// when it needs the results.
#include "cli/app.h"

#include <systemc>

#include <cstdint>
#include <vector>

namespace {

constexpr int kBatches = 8;
constexpr uint64_t kPrepareNs = 100'000; // host time to prepare one batch (100 us)
constexpr uint64_t kN = 1, kC = 64, kH = 28, kW = 28, kK = 64;
constexpr uint64_t kInputBytes = kN * kC * kH * kW; // int8
constexpr uint64_t kOutputBytes = kN * kK * kH * kW;

npu::KernelDesc conv_layer() {
  npu::KernelDesc desc;
  desc.name = "conv2d";
  auto& shape = desc.op.shape.emplace<npu::Conv2dOp>();
  desc.op.dtype = npu::DType::Int8;
  shape.batch = kN;
  shape.channels = kC;
  shape.height = kH;
  shape.width = kW;
  shape.filters = kK;
  shape.r = 3;
  shape.s = 3;
  shape.pad = 1;
  desc.binary_bytes = 48 << 10;
  return desc;
}

// The CPU's own work between launches: fill the next batch's input (here a pattern)
// and spend the host time that decoding or preprocessing would take.
void prepare_next_batch(npu::Runtime& rt, const npu::Buffer& host_input, int batch) {
  const std::vector<uint8_t> data(host_input.bytes, static_cast<uint8_t>(batch));
  rt.write(host_input, data.data(), data.size());
  rt.host_work(kPrepareNs * 1000);
}

void host_program(npu::Runtime& rt) {
  const npu::Kernel conv = rt.load_kernel(conv_layer());
  const npu::Buffer weight = rt.malloc(kK * kC * 3 * 3, npu::MemoryKind::Ddr, "weight");

  // npu_create_stream(&stream1); npu_create_stream(&stream2);
  const npu::Stream stream1 = rt.stream_create("stream1");
  const npu::Stream stream2 = rt.stream_create("stream2");
  const npu::Stream streams[2] = {stream1, stream2};
  // Each stream has its own device buffers; stream order keeps batch b + 2 from
  // overwriting them before batch b is done.
  npu::Buffer input[2], output[2];
  for (int s = 0; s < 2; ++s) {
    input[s] = rt.malloc(kInputBytes, npu::MemoryKind::Ddr, "input" + std::to_string(s + 1));
    output[s] = rt.malloc(kOutputBytes, npu::MemoryKind::Ddr, "output" + std::to_string(s + 1));
  }
  // Host buffers per batch: the host fills the next one while the last is still in flight.
  std::vector<npu::Buffer> host_input, host_output;
  for (int b = 0; b < kBatches; ++b) {
    host_input.push_back(rt.malloc(kInputBytes, npu::MemoryKind::Host));
    host_output.push_back(rt.malloc(kOutputBytes, npu::MemoryKind::Host));
  }

  prepare_next_batch(rt, host_input[0], 0);
  for (int b = 0; b < kBatches; ++b) {
    const int s = b % 2;
    rt.memcpy_async(input[s], host_input[b], kInputBytes, streams[s]);
    // npu_launch_kernel_async(kernel, args, stream): returns once submitted.
    rt.launch_async(conv, {input[s], weight, output[s]}, streams[s]);
    rt.memcpy_async(host_output[b], output[s], kOutputBytes, streams[s]);
    // The CPU can do something else here, such as prepare the next batch.
    if (b + 1 < kBatches)
      prepare_next_batch(rt, host_input[b + 1], b + 1);
  }

  // Synchronise when the results are needed.
  rt.stream_synchronize(stream1);
  rt.stream_synchronize(stream2);

  for (int b = 0; b < kBatches; ++b) {
    rt.free(host_input[b]);
    rt.free(host_output[b]);
  }
  for (int s = 0; s < 2; ++s) {
    rt.free(input[s]);
    rt.free(output[s]);
  }
  rt.free(weight);
  rt.stream_destroy(stream1);
  rt.stream_destroy(stream2);
}

} // namespace

NPU_TESTBENCH_MAIN("two_streams", host_program)
