// The instruction cache alone, built from its config, its socket bound to a stub memory that
// answers each fill a set time after it arrives and records it: cold and warm preloads, the
// scan and fill timing, fills in flight, LRU thrashing when the binary is larger than the
// cache, unaligned ranges, and a refused fill. The cache filling from the real DDR through
// a router is tested under tests/integration/icache.
#include "models/icache/icache.h"
#include "tests/models/model_test_util.h"
#include "tests/models/stubs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::StubTarget;
using test::TestThread;

constexpr uint64_t kMemPs = 100000; ///< the stub memory's latency, 100 ns
constexpr uint64_t kBinaryAddr = 0x100000;

// One instruction cache bound straight to a stub memory, and a thread that runs `body`.
struct ICacheBench {
  ICacheConfig config;
  StubTarget memory;
  ICache icache;
  TestThread thread;

  ICacheBench(const ICacheConfig& c, std::function<void(ICacheBench&)> body)
      : config(c), memory("memory", options()), icache("icache", c, 3),
        thread("thread", [this, body] { body(*this); }) {
    icache.socket.bind(memory.socket);
  }
  static StubTarget::Options options() {
    StubTarget::Options o;
    o.latency_ps = kMemPs;
    return o;
  }
  /// Picoseconds the cache takes to scan `lines` tags.
  uint64_t scan_ps(uint64_t lines) const {
    return (lines + config.tags_per_cycle - 1) / config.tags_per_cycle *
           static_cast<uint64_t>(1e12 / config.frequency_hz);
  }
};

struct Preload {
  uint64_t time_ps = 0;
  uint64_t hits = 0;   ///< after the preload, cumulative
  uint64_t misses = 0; ///< after the preload, cumulative
  uint64_t evictions = 0;
  uint64_t fills = 0; ///< reads the memory saw, cumulative
};

Preload preload(ICacheBench& b, uint64_t addr, uint64_t bytes, uint64_t launch_id) {
  const uint64_t start = now_ps();
  b.icache.preload(addr, bytes, launch_id);
  Preload p;
  p.time_ps = now_ps() - start;
  p.hits = b.icache.hits();
  p.misses = b.icache.misses();
  p.evictions = b.icache.evictions();
  p.fills = b.memory.seen.size();
  return p;
}

ICacheConfig geometry(uint64_t size, uint32_t ways, uint32_t fills_outstanding = 4) {
  ICacheConfig c;
  c.size_bytes = size;
  c.ways = ways;
  c.fills_outstanding = fills_outstanding;
  return c;
}

// A cold preload scans the tags, then fills every line, `fills_outstanding` at a time, each
// one memory latency; a warm one only scans.
TEST(ICache, ColdPreloadFillsEveryLineAndWarmPreloadOnlyScans) {
  test::use_ps_resolution();
  std::vector<Preload> runs;
  uint64_t resident = 0;
  ICacheBench bench(geometry(32 << 10, 4), [&](ICacheBench& b) {
    runs.push_back(preload(b, kBinaryAddr, 16 << 10, 1));
    runs.push_back(preload(b, kBinaryAddr, 16 << 10, 2));
    resident = b.icache.resident_lines(kBinaryAddr, 16 << 10);
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].misses, 256u);
  EXPECT_EQ(runs[0].hits, 0u);
  EXPECT_EQ(runs[0].fills, 256u);
  EXPECT_EQ(runs[0].evictions, 0u);
  EXPECT_EQ(runs[1].hits, 256u);
  EXPECT_EQ(runs[1].misses, 256u) << "the warm preload missed";
  EXPECT_EQ(runs[1].fills, 256u) << "the warm preload read memory";
  EXPECT_EQ(resident, 256u);
  EXPECT_EQ(runs[0].time_ps, bench.scan_ps(256) + 256 / 4 * kMemPs);
  EXPECT_EQ(runs[1].time_ps, bench.scan_ps(256));
  // Each fill is one line, at its line's address, from the cache of unit 3.
  for (size_t i = 0; i < bench.memory.seen.size(); ++i) {
    const StubTarget::Seen& s = bench.memory.seen[i];
    EXPECT_EQ(s.cmd, tlm::TLM_READ_COMMAND);
    EXPECT_EQ(s.len, 64u);
    EXPECT_EQ(s.addr, kBinaryAddr + 64 * i);
    EXPECT_EQ(s.who, Initiator::ICache);
  }
}

class FillsOutstanding : public ::testing::TestWithParam<uint32_t> {};

TEST_P(FillsOutstanding, BoundTheFillsInFlight) {
  test::use_ps_resolution();
  const uint32_t outstanding = GetParam();
  Preload run;
  ICacheBench bench(geometry(32 << 10, 4, outstanding),
                    [&](ICacheBench& b) { run = preload(b, kBinaryAddr, 24 * 64, 1); });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  EXPECT_EQ(bench.memory.max_in_flight(), outstanding);
  EXPECT_EQ(run.time_ps, bench.scan_ps(24) + (24 + outstanding - 1) / outstanding * kMemPs);
}

INSTANTIATE_TEST_SUITE_P(ICache, FillsOutstanding, ::testing::Values(1u, 3u, 8u));

TEST(ICache, BinaryLargerThanTheCacheMissesEveryLineTwice) {
  test::use_ps_resolution();
  std::vector<Preload> runs;
  ICacheBench bench(geometry(4 << 10, 4), [&](ICacheBench& b) {
    runs.push_back(preload(b, kBinaryAddr, 8 << 10, 1));
    runs.push_back(preload(b, kBinaryAddr, 8 << 10, 2));
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].misses, 128u);
  EXPECT_EQ(runs[0].hits, 0u);
  EXPECT_EQ(runs[1].misses, 256u);
  EXPECT_EQ(runs[1].hits, 0u);
  EXPECT_EQ(runs[1].fills, 256u);
  // The first 64 lines fill the cache, every later fill evicts.
  EXPECT_EQ(runs[0].evictions, 64u);
  EXPECT_EQ(runs[1].evictions, 192u);
  // A thrashing preload is no faster the second time.
  EXPECT_EQ(runs[1].time_ps, runs[0].time_ps);
}

TEST(ICache, UnalignedRangeFillsEveryLineItTouches) {
  test::use_ps_resolution();
  std::vector<Preload> runs;
  ICacheBench bench(ICacheConfig{}, [&](ICacheBench& b) {
    // [0x...20, 0x...a0) touches lines 0x00, 0x40 and 0x80.
    runs.push_back(preload(b, kBinaryAddr + 0x20, 128, 1));
    // [0x...40, 0x...c1) touches 0x40, 0x80 (resident) and 0xc0 (new).
    runs.push_back(preload(b, kBinaryAddr + 0x40, 129, 2));
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].misses, 3u);
  EXPECT_EQ(runs[0].hits, 0u);
  EXPECT_EQ(runs[1].misses, 4u);
  EXPECT_EQ(runs[1].hits, 2u);
  std::vector<uint64_t> lines;
  for (const StubTarget::Seen& s : bench.memory.seen)
    lines.push_back(s.addr - kBinaryAddr);
  EXPECT_EQ(lines, (std::vector<uint64_t>{0x00, 0x40, 0x80, 0xc0}));
}

TEST(ICache, ARefusedFillFailsTheSimulationNamingTheLaunch) {
  test::use_ps_resolution();
  ICacheBench bench(ICacheConfig{},
                    [&](ICacheBench& b) { b.icache.preload(kBinaryAddr, 256, 42); });
  bench.memory.refuse(kBinaryAddr + 128, 64);
  sc_core::sc_start();
  EXPECT_FALSE(bench.thread.finished());
  const auto msg = test::failure_message();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("launch 42"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("unit 3"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("address not mapped"), std::string::npos) << *msg;
}

} // namespace
} // namespace npu
