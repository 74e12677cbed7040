// Router: address decode to target ports (addresses relative to the region), per-hop
// latency both ways, each target port serialised at its bandwidth, decode errors.
#include "models/interconnect/router.h"
#include "tests/models/model_test_util.h"
#include "tests/models/stubs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::TestInitiator;

// The regions' targets answer at once and note what they saw: the address and when the
// request reached them (current time plus the annotated delay).
using Probe = test::StubTarget;

constexpr uint64_t kHopPs = 2000;
constexpr double kBytesPerS = 64e9; // 64 B per ns

// A router with two regions: [0x1000, 0x2000) -> a, [0x10000, 0x20000) -> b.
struct Bench {
  InterconnectConfig config;
  Router router;
  Probe a{"a", {}}, b{"b", {}};
  Bench() : config(make_config()), router("router", config) {
    router.map(0x1000, 0x1000, "a");
    router.initiator.bind(a.socket);
    router.map(0x10000, 0x10000, "b");
    router.initiator.bind(b.socket);
  }
  static InterconnectConfig make_config() {
    InterconnectConfig c;
    c.hop_latency_ps = kHopPs;
    c.port_bytes_per_s = kBytesPerS;
    return c;
  }
};

TEST(Router, DecodesToTheRegionsPortWithTheAddressRelativeToItsBase) {
  test::use_ps_resolution();
  Bench bench;
  std::vector<tlm::tlm_response_status> status;
  TestInitiator init("init", [&](TestInitiator& self) {
    uint8_t data[64] = {};
    for (const uint64_t addr : {0x1000ull, 0x1fc0ull, 0x10040ull, 0x1fffcull})
      status.push_back(self.access_now(tlm::TLM_READ_COMMAND, addr, data, 4).first);
    // Unmapped, between the regions and past the last; and one straddling a's end.
    status.push_back(self.access_now(tlm::TLM_READ_COMMAND, 0x2000, data, 4).first);
    status.push_back(self.access_now(tlm::TLM_READ_COMMAND, 0x20000, data, 4).first);
    status.push_back(self.access_now(tlm::TLM_READ_COMMAND, 0x1ffe, data, 4).first);
  });
  init.socket.bind(bench.router.target);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(status.size(), 7u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(status[i], tlm::TLM_OK_RESPONSE) << i;
  for (size_t i = 4; i < 7; ++i)
    EXPECT_EQ(status[i], tlm::TLM_ADDRESS_ERROR_RESPONSE) << i;
  ASSERT_EQ(bench.a.seen.size(), 2u);
  EXPECT_EQ(bench.a.seen[0].addr, 0x0u);
  EXPECT_EQ(bench.a.seen[1].addr, 0xfc0u);
  ASSERT_EQ(bench.b.seen.size(), 2u);
  EXPECT_EQ(bench.b.seen[0].addr, 0x40u);
  EXPECT_EQ(bench.b.seen[1].addr, 0xfffcu);
  const StatGroup stats = bench.router.stats(now_ps());
  EXPECT_EQ(test::stat(stats, "decode_errors"), 3);
  EXPECT_EQ(test::stat(stats, "a_transactions"), 2);
  EXPECT_EQ(test::stat(stats, "b_bytes"), 8);
}

// Where regions overlap, an address goes to the region mapped first, also right after an
// access that only the later region holds (the decoder tries the last region found first).
TEST(Router, AnOverlapGoesToTheRegionMappedFirst) {
  test::use_ps_resolution();
  const InterconnectConfig config = Bench::make_config();
  Router router("router", config);
  Probe a("a", {}), b("b", {});
  router.map(0x1000, 0x2000, "a"); // [0x1000, 0x3000)
  router.initiator.bind(a.socket);
  router.map(0x2000, 0x2000, "b"); // [0x2000, 0x4000)
  router.initiator.bind(b.socket);
  TestInitiator init("init", [&](TestInitiator& self) {
    uint8_t data[4] = {};
    for (const uint64_t addr : {0x3800ull, 0x2800ull, 0x3800ull, 0x1800ull})
      self.access_now(tlm::TLM_READ_COMMAND, addr, data, 4);
  });
  init.socket.bind(router.target);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(a.seen.size(), 2u);
  EXPECT_EQ(a.seen[0].addr, 0x1800u); // 0x2800, in both: a's
  EXPECT_EQ(a.seen[1].addr, 0x800u);
  ASSERT_EQ(b.seen.size(), 2u);
  EXPECT_EQ(b.seen[0].addr, 0x1800u);
  EXPECT_EQ(b.seen[1].addr, 0x1800u);
}

// The request reaches the target one hop after it leaves; the answer comes back one hop
// after the target's, and no earlier than the data has streamed through the port.
TEST(Router, AddsOneHopEachWayAndTheDataTimeOfThePort) {
  test::use_ps_resolution();
  Bench bench;
  uint64_t small = 0, large = 0, start = 0;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(1024);
    start = now_ps();
    small = self.access_now(tlm::TLM_READ_COMMAND, 0x1000, data.data(), 4).second;
    sc_core::wait(ps(small));
    large = self.access_now(tlm::TLM_WRITE_COMMAND, 0x10000, data.data(), 1024).second;
  });
  init.socket.bind(bench.router.target);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  const uint64_t data4 = transfer_ps(4, kBytesPerS), data1k = transfer_ps(1024, kBytesPerS);
  ASSERT_EQ(bench.a.seen.size(), 1u);
  EXPECT_EQ(bench.a.seen[0].at_ps, start + kHopPs);
  // The target answers at once: the data still streams for len/bw, then one hop back.
  EXPECT_EQ(small, kHopPs + data4 + kHopPs);
  EXPECT_EQ(large, kHopPs + data1k + kHopPs); // 16 ns of data at 64 B/ns
  ASSERT_EQ(bench.b.seen.size(), 1u);
  EXPECT_EQ(bench.b.seen[0].at_ps, start + small + kHopPs);
}

// Requests issued together to one port cross it one after the other at its bandwidth;
// a request to another port does not wait for them.
TEST(Router, SerialisesEachPortAtItsBandwidthAndKeepsPortsApart) {
  test::use_ps_resolution();
  Bench bench;
  constexpr int kCount = 8;
  constexpr uint32_t kLen = 256; // 4 ns each at 64 B/ns
  std::vector<uint64_t> to_a;
  uint64_t to_b = 0;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(kLen);
    for (int i = 0; i < kCount; ++i)
      to_a.push_back(
          self.access_now(tlm::TLM_READ_COMMAND, 0x1000 + i * kLen, data.data(), kLen).second);
    to_b = self.access_now(tlm::TLM_READ_COMMAND, 0x10000, data.data(), kLen).second;
  });
  init.socket.bind(bench.router.target);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  const uint64_t each = transfer_ps(kLen, kBytesPerS);
  ASSERT_EQ(to_a.size(), size_t{kCount});
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(bench.a.seen[i].at_ps, kHopPs + i * each) << i; // queued behind the others
    EXPECT_EQ(to_a[i], kHopPs + (i + 1) * each + kHopPs) << i;
  }
  EXPECT_EQ(to_b, kHopPs + each + kHopPs); // port b was free
  const StatGroup stats = bench.router.stats(kHopPs + kCount * each);
  EXPECT_DOUBLE_EQ(test::stat(stats, "a_utilization"),
                   double(kCount * each) / (kHopPs + kCount * each));
}

} // namespace
} // namespace npu
