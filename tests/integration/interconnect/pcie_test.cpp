// A discrete card: host buffers live in host memory behind the PCIe link.
#include "models/common/tlm_util.h"
#include "platform/address_map.h"
#include "runtime/runtime.h"
#include "runtime/simulation.h"
#include "tests/integration/platform_yaml.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npu {
namespace {

constexpr const char* kDiscrete =
    "name: card\ninterconnect: {pcie: {enabled: true, lanes: 16, rate: 16GT/s, latency: 500ns}}\n"
    "ddr: {preset: HBM2E, channels: 8}\nsram: {buffer_space: 128KiB}\n";

// Host -> device copy time of `bytes` with `outstanding` bursts in flight per channel.
uint64_t copy_ps(const std::string& yaml, uint64_t bytes, std::vector<uint8_t>* back) {
  Simulation sim(test::config_from_yaml(yaml));
  const std::vector<uint8_t> input = test::pattern(bytes, 7);
  uint64_t elapsed = 0;
  const RunReport report = sim.run([&](Runtime& rt) {
    const Buffer host = rt.malloc(bytes, MemoryKind::Host);
    const Buffer dev = rt.malloc(bytes, MemoryKind::Ddr);
    const Buffer host_out = rt.malloc(bytes, MemoryKind::Host);
    EXPECT_GE(host.addr, address_map::kHostBase) << "host buffer not in host memory";
    rt.write(host, input.data(), bytes);
    const uint64_t start = rt.now_ps();
    rt.memcpy(dev, host, bytes);
    elapsed = rt.now_ps() - start;
    rt.memcpy(host_out, dev, bytes);
    back->assign(bytes, 0);
    rt.read(host_out, back->data(), bytes);
  });
  EXPECT_TRUE(*back == input) << "host -> device -> host is not bit-identical";
  // Every payload byte crossed the link once in each direction; toward the device
  // also the driver's two descriptors (64 B) and doorbells (8 B).
  EXPECT_EQ(test::stat(report.blocks, "pcie", "to_device_bytes"), bytes + 2 * (64 + 8));
  EXPECT_EQ(test::stat(report.blocks, "pcie", "to_host_bytes"), bytes);
  return elapsed;
}

TEST(Pcie, CopyNeverBeatsTheLinkAndHidesLatencyWithMoreOutstandingBursts) {
  const uint64_t bytes = 4 << 20;
  std::vector<uint8_t> back;
  const uint64_t few = copy_ps(std::string(kDiscrete) + "dma: {outstanding: 4}\n", bytes, &back);
  // 16 lanes x 16 GT/s x 128/130 / 8 = 31.5 GB/s raw; 24 B per 256 B packet on top.
  const double link_bytes_per_s = 16 * 16e9 * 128.0 / 130.0 / 8.0 * 256.0 / 280.0;
  const uint64_t floor_ps = transfer_ps(bytes, link_bytes_per_s);
  EXPECT_GT(few, floor_ps);
  // Four 256-byte bursts per ~1 us round trip (500 ns each way) is about 1 GB/s.
  EXPECT_GT(few, transfer_ps(bytes, 1.5e9));
  EXPECT_LT(few, transfer_ps(bytes, 0.7e9));
}

TEST(Pcie, ManyOutstandingBurstsApproachTheLinkBandwidth) {
  const uint64_t bytes = 4 << 20;
  std::vector<uint8_t> back;
  const uint64_t many = copy_ps(std::string(kDiscrete) + "dma: {outstanding: 256}\n", bytes, &back);
  const double link_bytes_per_s = 16 * 16e9 * 128.0 / 130.0 / 8.0 * 256.0 / 280.0;
  EXPECT_GT(many, transfer_ps(bytes, link_bytes_per_s));
  EXPECT_LT(many, transfer_ps(bytes, 0.6 * link_bytes_per_s))
      << bytes / (many * 1e-12) / 1e9 << " GB/s";
}

// Ring writes are posted: the driver does not wait for them to cross the link, but the
// doorbell lands after them, so every launch runs its own kernel (a stale descriptor
// would fail to decode or run the wrong kernel).
TEST(Pcie, PostedRingWritesLandBeforeTheirDoorbell) {
  Simulation sim(test::config_from_yaml(kDiscrete));
  std::vector<uint64_t> submit;
  const RunReport report = sim.run([&](Runtime& rt) {
    std::vector<Kernel> kernels;
    for (int i = 0; i < 4; ++i) {
      KernelDesc k;
      k.name = "k" + std::to_string(i);
      auto& shape = k.op.shape.emplace<CyclesOp>();
      shape.cycles = 100 * (i + 1);
      kernels.push_back(rt.load_kernel(k));
    }
    const Stream s = rt.stream_create("s");
    for (int round = 0; round < 8; ++round)
      rt.launch_async(kernels[static_cast<size_t>(round % 4)], {}, s);
    rt.stream_synchronize(s);
  });
  ASSERT_EQ(report.launches.size(), 8u);
  for (size_t i = 0; i < report.launches.size(); ++i) {
    const LaunchRecord& r = report.launches[i];
    EXPECT_EQ(r.kernel, "k" + std::to_string(i % 4));
    // The kernel's own cycles at 1 GHz, plus the unit's launch overhead.
    EXPECT_EQ(r.execute_ps(), (100 * (i % 4 + 1) + 100) * 1000u) << i;
    // The submit phase holds the driver call and the doorbell, which waited for the
    // posted descriptor write to land: it includes at least one crossing of the link.
    EXPECT_GT(r.submit_ps(), 500'000u);
  }
  EXPECT_EQ(test::stat(report.blocks, "pcie", "posted_writes"), 8); // descriptors (no arguments)
}

} // namespace
} // namespace npu
