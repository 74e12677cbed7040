// The DMA engine alone, built from its config, its socket bound to a stub memory that
// answers each access a set time after it arrives and records what it saw: a copy moves
// exactly its bytes in bursts of the configured size, each burst read before it is written;
// a channel keeps as many bursts in flight as its read buffer holds; a copy is bound by the
// memory's port; channels run transfers side by side; a refused address fails the copy
// naming it. Each parameterised test runs on both data paths (blocking 64B accesses and
// non-blocking bursts). The DMA with the real DDR, SRAM and router is tested under
// tests/integration/dma.
#include "common/error.h"
#include "models/dma/dma.h"
#include "tests/models/block_config.h"
#include "tests/models/model_test_util.h"
#include "tests/models/stubs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::StubTarget;
using test::TestThread;

constexpr uint64_t kNs = 1000;
constexpr uint64_t kMemPs = 100 * kNs; ///< the stub memory's latency

// One DMA engine bound straight to a stub memory, and a thread that runs `body`.
struct DmaBench {
  DmaConfig config;
  StubTarget memory;
  DmaEngine dma;
  TestThread thread;

  DmaBench(const DmaConfig& c, Granularity path, const StubTarget::Options& mem,
           std::function<void(DmaBench&)> body, const std::string& prefix = "")
      : config(c), memory((prefix + "memory").c_str(), mem), dma((prefix + "dma").c_str(), c, path),
        thread((prefix + "thread").c_str(), [this, body] { body(*this); }) {
    dma.socket.bind(memory.socket);
  }
  /// Copies and returns how long the copy took.
  uint64_t timed_copy(uint64_t dst, uint64_t src, uint64_t bytes, const std::string& what) {
    const uint64_t start = now_ps();
    dma.copy(dst, src, bytes, what, NpuExtension{});
    return now_ps() - start;
  }
};

StubTarget::Options latency_only(uint64_t latency_ps) {
  StubTarget::Options o;
  o.latency_ps = latency_ps;
  return o;
}

class DmaPath : public ::testing::TestWithParam<Granularity> {};

TEST_P(DmaPath, CopyMovesExactlyItsBytesInBurstsEachReadBeforeItIsWritten) {
  test::use_ps_resolution();
  const uint64_t src = 0x10000 + 3, dst = 0x200000 + 5, bytes = 10000; // not a burst multiple
  const std::vector<uint8_t> data = test::pattern(bytes, 7);
  uint64_t elapsed_ps = 0;
  DmaBench bench(DmaConfig{}, GetParam(), latency_only(kMemPs),
                 [&](DmaBench& b) { elapsed_ps = b.timed_copy(dst, src, bytes, "ddr to ddr"); });
  bench.memory.memory.write(src, data.data(), data.size());
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");

  std::vector<uint8_t> copied(bytes + 2, 0xee);
  bench.memory.memory.read(dst - 1, copied.data(), copied.size());
  EXPECT_EQ(copied.front(), 0);
  EXPECT_EQ(copied.back(), 0);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), copied.begin() + 1));
  // Every byte read once and written once, in bursts of at most burst_bytes; each burst's
  // write leaves after its read's answer and writes where the read's offset says.
  const uint64_t burst = bench.config.burst_bytes;
  EXPECT_EQ(bench.memory.bytes(tlm::TLM_READ_COMMAND), bytes);
  EXPECT_EQ(bench.memory.bytes(tlm::TLM_WRITE_COMMAND), bytes);
  ASSERT_EQ(bench.memory.seen.size(), 2 * ((bytes + burst - 1) / burst));
  std::map<uint64_t, uint64_t> read_done; // offset -> answer time
  for (const StubTarget::Seen& s : bench.memory.seen) {
    EXPECT_LE(s.len, burst);
    EXPECT_EQ(s.who, Initiator::Dma);
    if (s.cmd == tlm::TLM_READ_COMMAND) {
      EXPECT_EQ((s.addr - src) % burst, 0u) << s.addr;
      read_done[s.addr - src] = s.done_ps;
      continue;
    }
    const auto read = read_done.find(s.addr - dst);
    ASSERT_NE(read, read_done.end()) << "a write before its read, at " << s.addr;
    EXPECT_GE(s.at_ps, read->second);
  }
  // The setup, then at least one read and one write.
  EXPECT_GE(elapsed_ps, bench.config.setup_latency_ps + 2 * kMemPs);
  const StatGroup st = bench.dma.stats(now_ps());
  EXPECT_EQ(test::stat(st, "bytes"), bytes);
  EXPECT_EQ(test::stat(st, "transfers"), 1);
}

// `bursts` bursts with `window` in flight, each a read and a write of kMemPs: the copy takes
// the setup and bursts / window rounds of two latencies, plus at most the issue of one window.
void expect_window(const DmaConfig& c, Granularity path, uint64_t bursts, uint64_t window) {
  test::use_ps_resolution();
  uint64_t elapsed_ps = 0;
  DmaBench bench(c, path, latency_only(kMemPs), [&](DmaBench& b) {
    elapsed_ps = b.timed_copy(0x800000, 0x100000, bursts * c.burst_bytes, "window");
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  EXPECT_EQ(bench.memory.max_in_flight(), window);
  const uint64_t rounds = c.setup_latency_ps + (bursts + window - 1) / window * 2 * kMemPs;
  const uint64_t issue_ps = static_cast<uint64_t>(1e12 / c.frequency_hz);
  EXPECT_GE(elapsed_ps, rounds);
  EXPECT_LE(elapsed_ps, rounds + window * issue_ps);
}

TEST_P(DmaPath, AChannelKeepsOutstandingBurstsInFlight) {
  DmaConfig c;
  c.outstanding = 8;
  c.burst_bytes = 256;
  expect_window(c, GetParam(), 64, 8);
}

TEST_P(DmaPath, ASmallReadBufferKeepsFewerBurstsInFlight) {
  DmaConfig c;
  c.outstanding = 8;
  c.burst_bytes = 256;
  c.buffer_bytes = 768; // three bursts' data
  expect_window(c, GetParam(), 30, 3);
}

// Every byte crosses the memory's one port twice (read, then write): with 8 bursts in flight
// the latency hides behind the data of the others and the copy runs near the port's rate.
TEST_P(DmaPath, ACopyIsBoundByTheMemorysPort) {
  test::use_ps_resolution();
  const uint64_t bytes = 256 << 10;
  StubTarget::Options mem = latency_only(40 * kNs);
  mem.bytes_per_s = 6.4e9;
  uint64_t t = 0;
  DmaBench bench(DmaConfig{}, GetParam(), mem,
                 [&](DmaBench& b) { t = b.timed_copy(0x10000000, 0x100000, bytes, "copy"); });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  const uint64_t port_ps = transfer_ps(2 * bytes, mem.bytes_per_s);
  EXPECT_GE(t, port_ps);
  EXPECT_LE(t, port_ps * 21 / 20) << "copy reached " << bytes / (t * 1e-12) / 1e9 << " GB/s";
}

// Two transfers issued together on a DMA with `channels` channels (the bench's thread issues
// the first, `second` the other); `ends` receives when each ended.
struct TwoCopies {
  std::vector<uint64_t> ends;
  DmaBench bench;
  TestThread second;

  TwoCopies(uint32_t channels, Granularity path, const std::string& prefix)
      : bench(
            with_channels(channels), path, latency_only(kMemPs),
            [this](DmaBench& b) { copy(b, 0x800000, 0x100000, "first"); }, prefix),
        second((prefix + "second").c_str(), [this] { copy(bench, 0x900000, 0x200000, "second"); }) {
  }
  static DmaConfig with_channels(uint32_t channels) {
    DmaConfig c;
    c.channels = channels;
    return c;
  }
  void copy(DmaBench& b, uint64_t dst, uint64_t src, const std::string& what) {
    b.dma.copy(dst, src, 4096, what, NpuExtension{});
    ends.push_back(now_ps());
  }
};

// With four channels the transfers run side by side and end together; with one, the second
// waits for the channel and ends one transfer later.
TEST_P(DmaPath, ChannelsRunTransfersSideBySide) {
  test::use_ps_resolution();
  TwoCopies two(4, GetParam(), "four_");
  TwoCopies one(1, GetParam(), "one_");
  sc_core::sc_start();
  ASSERT_TRUE(two.second.finished() && one.second.finished())
      << test::failure_message().value_or("");
  ASSERT_EQ(two.ends.size(), 2u);
  ASSERT_EQ(one.ends.size(), 2u);
  std::sort(two.ends.begin(), two.ends.end());
  std::sort(one.ends.begin(), one.ends.end());
  EXPECT_EQ(two.ends[0], one.ends[0]); // the first transfer alone either way
  EXPECT_LE(two.ends[1] - two.ends[0], 2 * kNs) << "four channels: the second ran after the first";
  EXPECT_GE(one.ends[1] - one.ends[0], one.ends[0] - DmaConfig{}.setup_latency_ps)
      << "one channel: the second did not wait for the first";
}

// Five transfers asked for at once on four free channels: four start at once and end
// together, and only the fifth waits for a channel, so it ends one transfer later. Every free
// channel is handed out, whichever the round-robin starts from.
TEST_P(DmaPath, AsManyTransfersStartAtOnceAsThereAreFreeChannels) {
  test::use_ps_resolution();
  std::vector<uint64_t> ends;
  auto copy = [&](DmaBench& b, uint64_t i) {
    b.dma.copy(0x800000 + i * 0x10000, 0x100000 + i * 0x10000, 4096, "copy" + std::to_string(i),
               NpuExtension{});
    ends.push_back(now_ps());
  };
  DmaConfig c;
  c.channels = 4;
  DmaBench bench(c, GetParam(), latency_only(kMemPs), [&](DmaBench& b) { copy(b, 0); });
  std::vector<std::unique_ptr<TestThread>> others;
  for (uint64_t i = 1; i < 5; ++i)
    others.push_back(std::make_unique<TestThread>(("other" + std::to_string(i)).c_str(),
                                                  [&, i] { copy(bench, i); }));
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(ends.size(), 5u);
  std::sort(ends.begin(), ends.end());
  EXPECT_LE(ends[3] - ends[0], 2 * kNs) << "four channels were free, but not four transfers ran";
  EXPECT_GE(ends[4] - ends[3], ends[0] - c.setup_latency_ps)
      << "the fifth transfer did not wait for a channel";
}

// One transfer alone meets no other traffic, so both paths time it to the picosecond.
TEST(Dma, OneTransferTakesTheSameTimeOnBothPaths) {
  test::use_ps_resolution();
  DmaConfig c;
  c.outstanding = 16;
  StubTarget::Options mem = latency_only(200 * kNs);
  mem.bytes_per_s = 1e12;
  uint64_t t64 = 0, tb = 0;
  const uint64_t bytes = 64 << 10; // 256 bursts, 16 at a time
  DmaBench fine(
      c, Granularity::Access64, mem,
      [&](DmaBench& b) { t64 = b.timed_copy(0x400000, 0x100000, bytes, "copy"); }, "fine_");
  DmaBench coarse(
      c, Granularity::Burst, mem,
      [&](DmaBench& b) { tb = b.timed_copy(0x400000, 0x100000, bytes, "copy"); }, "coarse_");
  sc_core::sc_start();
  ASSERT_TRUE(fine.thread.finished() && coarse.thread.finished())
      << test::failure_message().value_or("");
  EXPECT_GT(t64, c.setup_latency_ps);
  EXPECT_EQ(tb, t64) << "64B path " << t64 << " ps, burst path " << tb << " ps";
}

TEST_P(DmaPath, ARefusedDestinationFailsTheCopyNamingIt) {
  test::use_ps_resolution();
  bool returned = false;
  const uint64_t refused = 0x40'0000'0000ull;
  DmaBench bench(DmaConfig{}, GetParam(), latency_only(kMemPs), [&](DmaBench& b) {
    b.dma.copy(refused, 0x1000, 4096, "weights to sram", NpuExtension{});
    returned = true;
  });
  bench.memory.refuse(refused, 1 << 20);
  sc_core::sc_start();
  EXPECT_FALSE(returned);
  EXPECT_FALSE(bench.thread.finished());
  const auto msg = test::failure_message();
  ASSERT_TRUE(msg.has_value()) << "the failed copy did not stop the simulation";
  EXPECT_NE(msg->find("weights to sram"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("address not mapped"), std::string::npos) << *msg;
  // Bursts already in flight fail too; nothing past the window is issued.
  const auto writes =
      std::count_if(bench.memory.seen.begin(), bench.memory.seen.end(),
                    [](const StubTarget::Seen& s) { return s.cmd == tlm::TLM_WRITE_COMMAND; });
  EXPECT_GE(writes, 1);
  EXPECT_LE(writes, DmaConfig{}.outstanding);
}

TEST_P(DmaPath, ARefusedSourceFailsAtItsOffsetAndThatBurstIsNotWritten) {
  test::use_ps_resolution();
  const uint64_t src = 0x100000, dst = 0x4000;
  DmaBench bench(DmaConfig{}, GetParam(), latency_only(kMemPs),
                 [&](DmaBench& b) { b.dma.copy(dst, src, 1024, "tail read", NpuExtension{}); });
  bench.memory.refuse(src + 256, 256); // the second burst
  sc_core::sc_start();
  const auto msg = test::failure_message();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("tail read"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("address not mapped"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("offset 256"), std::string::npos) << *msg;
  for (const StubTarget::Seen& s : bench.memory.seen) {
    if (s.cmd == tlm::TLM_WRITE_COMMAND) {
      EXPECT_NE(s.addr, dst + 256) << "the failed burst was written";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Granularity, DmaPath,
                         ::testing::Values(Granularity::Access64, Granularity::Burst),
                         [](const auto& info) {
                           return info.param == Granularity::Access64 ? std::string("Access64")
                                                                      : std::string("Burst");
                         });

// A channel keeps `outstanding` bursts in flight, as many as its read buffer holds:
// short rows make short bursts, and more of those fit.
TEST(Dma, ShortBurstsFillTheReadBufferWithMoreInFlight) {
  DmaConfig c;
  c.outstanding = 32;
  c.burst_bytes = 256;
  c.buffer_bytes = 2048;
  EXPECT_EQ(bursts_in_flight(c, 256), 8u);
  EXPECT_EQ(bursts_in_flight(c, 128), 16u);
  EXPECT_EQ(bursts_in_flight(c, 64), 32u);
  EXPECT_EQ(bursts_in_flight(c, 16), 32u); // no more than the slots
  c.buffer_bytes = 100;
  EXPECT_EQ(bursts_in_flight(c, 256), 1u); // at least one
  c.buffer_bytes = 0;                      // not set: outstanding full bursts
  EXPECT_EQ(bursts_in_flight(c, 256), 32u);
  // The config default is outstanding x burst.
  const DmaConfig p = test::block_config("name: t\ndma: {outstanding: 4, burst: 128B}\n", "dma",
                                         [](cfg::Section& s) { return read_dma_config(s, 1e9); });
  EXPECT_EQ(p.buffer_bytes, 512u);
}

// A window's free places come out earliest first, as a min-heap gives them, whether they
// came back one by one or as evenly spaced runs (a span's bursts), and after many turns.
TEST(Dma, FreePlacesComeOutEarliestFirst) {
  FreedPlaces places;
  std::vector<uint64_t> heap; // the reference: a sorted multiset
  auto take = [&](size_t n) {
    std::sort(heap.begin(), heap.end());
    ASSERT_EQ(places.size(), heap.size());
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(places.nth(i), heap[i]) << "place " << i;
    places.pop(n);
    heap.erase(heap.begin(), heap.begin() + static_cast<std::ptrdiff_t>(n));
  };
  for (int i = 0; i < 8; ++i) {
    places.push(0);
    heap.push_back(0);
  }
  uint64_t now = 0;
  for (uint64_t turn = 1; turn <= 200; ++turn) {
    const uint32_t k = 1 + turn % 5;
    take(k);
    now += 7 * turn % 13;
    const uint64_t last = now + 3 * k + turn % 4;
    places.push_run(now, last, k);
    for (uint64_t m = 0; m < k; ++m)
      heap.push_back(k > 1 ? now + (last - now) * m / (k - 1) : last);
    if (turn % 3 == 0) {
      take(1);
      places.push(now + 2);
      heap.push_back(now + 2);
    }
  }
  take(places.size());
  EXPECT_TRUE(places.empty());
}

} // namespace
} // namespace npu
