// The instruction cache with the real blocks it fills from in a platform, without the
// platform: the DDR behind a router. A cold preload reads every line from the DDR and is
// bound by its channel, a warm one reads nothing, and a fill the router does not map fails. The
// cache alone, with a stub memory, is tested under tests/models/icache.
#include "models/ddr/ddr.h"
#include "models/icache/icache.h"
#include "models/interconnect/router.h"
#include "tests/models/block_config.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::TestThread;

constexpr uint64_t kDdrBase = 0;                  ///< where the router maps the DDR
constexpr uint64_t kUnmapped = 0x40'0000'0000ull; ///< an address nothing answers

/// The configs of the blocks on the bench, each read from its section of a config text by
/// the block's own reader (clocked blocks at 1 GHz).
struct BenchConfig {
  InterconnectConfig interconnect;
  DdrConfig ddr;
  ICacheConfig icache;

  explicit BenchConfig(const std::string& yaml)
      : interconnect(test::block_config(yaml, "interconnect", read_interconnect_config)),
        ddr(test::block_config(yaml, "ddr", read_ddr_config)),
        icache(test::block_config(yaml, "icache",
                                  [](cfg::Section& s) { return read_icache_config(s, 1e9); })) {}
};

// ICache -> router -> DDR, plus a thread that runs `body`.
struct ICacheBench {
  BenchConfig config;
  Router router;
  Ddr ddr;
  ICache icache;
  TestThread thread;

  ICacheBench(const std::string& yaml, std::function<void(ICacheBench&)> body)
      : config(yaml), router("router", config.interconnect), ddr("ddr", config.ddr),
        icache("icache", config.icache, 0), thread("thread", [this, body] { body(*this); }) {
    router.map(kDdrBase, config.ddr.size_bytes, "ddr");
    router.initiator.bind(ddr.socket);
    icache.socket.bind(router.target);
  }
};

struct Preload {
  uint64_t time_ps = 0;
  uint64_t hits = 0;   ///< after the preload, cumulative
  uint64_t misses = 0; ///< after the preload, cumulative
  uint64_t evictions = 0;
  uint64_t ddr_reads = 0; ///< cumulative
};

Preload preload(ICacheBench& b, uint64_t addr, uint64_t bytes, uint64_t launch_id) {
  const uint64_t start = now_ps();
  b.icache.preload(addr, bytes, launch_id);
  Preload p;
  p.time_ps = now_ps() - start;
  p.hits = b.icache.hits();
  p.misses = b.icache.misses();
  p.evictions = b.icache.evictions();
  p.ddr_reads = static_cast<uint64_t>(test::stat(b.ddr.stats(now_ps()), "reads"));
  return p;
}

constexpr uint64_t kBinaryAddr = 0x100000;

TEST(ICacheWithDdr, ColdPreloadMissesEveryLineAndWarmPreloadHitsQuickly) {
  test::use_ps_resolution();
  std::vector<Preload> runs;
  uint64_t resident = 0;
  ICacheBench bench("name: t\nicache: {size: 32KiB, line: 64B}\n", [&](ICacheBench& b) {
    runs.push_back(preload(b, kBinaryAddr, 16 << 10, 1));
    runs.push_back(preload(b, kBinaryAddr, 16 << 10, 2));
    resident = b.icache.resident_lines(kBinaryAddr, 16 << 10);
  });
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].misses, 256u);
  EXPECT_EQ(runs[0].hits, 0u);
  EXPECT_EQ(runs[0].ddr_reads, 256u);
  EXPECT_EQ(runs[0].evictions, 0u);
  EXPECT_EQ(runs[1].hits, 256u);
  EXPECT_EQ(runs[1].misses, 256u) << "the warm preload missed";
  EXPECT_EQ(runs[1].ddr_reads, 256u) << "the warm preload read DDR";
  EXPECT_EQ(resident, 256u);
  EXPECT_GT(runs[0].time_ps, 0u);
  EXPECT_LT(runs[1].time_ps * 10, runs[0].time_ps)
      << "cold " << runs[0].time_ps << " ps, warm " << runs[1].time_ps << " ps";
  // 256 fills of 64 B cannot beat one DDR channel.
  EXPECT_GE(runs[0].time_ps, transfer_ps(16 << 10, bench.config.ddr.channel_bytes_per_s() *
                                                       bench.config.ddr.channels));
}

TEST(ICacheWithDdr, FillFromAnUnmappedAddressFailsTheSimulation) {
  test::use_ps_resolution();
  ICacheBench bench("name: t\n", [&](ICacheBench& b) { b.icache.preload(kUnmapped, 256, 42); });
  sc_core::sc_start();
  EXPECT_FALSE(bench.thread.finished());
  const auto msg = test::failure_message();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("launch 42"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("address not mapped"), std::string::npos) << *msg;
}

} // namespace
} // namespace npu
