// The DMA engine with the real blocks it meets in a platform, without the platform: a
// router with the DDR (and SRAM) mapped. Copies are bound by the DDR channel, both data
// paths time a copy alike, another initiator meets a copy at the SRAM port, and an address
// the router does not map fails the copy. Each parameterised test runs on both data paths
// (interconnect.granularity: 64B and burst). The DMA alone, with stub memories, is tested
// under tests/models/dma.
#include "common/error.h"
#include "models/ddr/ddr.h"
#include "models/dma/dma.h"
#include "models/interconnect/router.h"
#include "models/sram/sram.h"
#include "tests/models/block_config.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::TestThread;

constexpr uint64_t kDdrBase = 0;                  ///< where the router maps the DDR
constexpr uint64_t kSramBase = 0x40'0000'0000ull; ///< where the router maps the SRAM

/// The configs of the blocks on the bench, each read from its section of a config text by
/// the block's own reader (clocked blocks at 1 GHz).
struct BenchConfig {
  InterconnectConfig interconnect;
  DdrConfig ddr;
  SramConfig sram;
  DmaConfig dma;

  explicit BenchConfig(const std::string& yaml)
      : interconnect(test::block_config(yaml, "interconnect", read_interconnect_config)),
        ddr(test::block_config(yaml, "ddr", read_ddr_config)),
        sram(test::block_config(yaml, "sram",
                                [](cfg::Section& s) { return read_sram_config(s, 1e9); })),
        dma(test::block_config(yaml, "dma",
                               [](cfg::Section& s) { return read_dma_config(s, 1e9); })) {}
};

// DMA -> router -> DDR (the only region), plus a thread that runs `body`.
struct DmaBench {
  BenchConfig config;
  Router router;
  Ddr ddr;
  DmaEngine dma;
  TestThread thread;

  DmaBench(const std::string& yaml, std::function<void(DmaBench&)> body)
      : config(yaml), router("router", config.interconnect),
        ddr("ddr", config.ddr, config.interconnect.granularity),
        dma("dma", config.dma, config.interconnect.granularity),
        thread("thread", [this, body] { body(*this); }) {
    router.map(kDdrBase, config.ddr.size_bytes, "ddr",
               config.interconnect.granularity == Granularity::Burst);
    router.initiator.bind(ddr.socket);
    dma.socket.bind(router.target);
  }
  NpuExtension tag() const {
    NpuExtension t;
    t.who = Initiator::Dma;
    return t;
  }
};

// The tests' config on the data path under test.
class DmaPath : public ::testing::TestWithParam<std::string> {
protected:
  std::string yaml(const std::string& rest = "") const {
    return "name: t\ninterconnect: {granularity: " + GetParam() + "}\n" + rest;
  }
};

TEST_P(DmaPath, CopyInsideDdrMovesExactlyTheBytes) {
  test::use_ps_resolution();
  const uint64_t src = 0x10000 + 3, dst = 0x200000 + 5, bytes = 10000; // not a burst multiple
  const std::vector<uint8_t> data = test::pattern(bytes, 7);
  uint64_t elapsed_ps = 0;
  DmaBench bench(yaml(), [&](DmaBench& b) {
    const uint64_t start = now_ps();
    b.dma.copy(dst, src, bytes, "ddr to ddr", b.tag());
    elapsed_ps = now_ps() - start;
  });
  bench.ddr.storage().write(src, data.data(), data.size());
  sc_core::sc_start();
  ASSERT_TRUE(bench.thread.finished()) << test::failure_message().value_or("");
  std::vector<uint8_t> copied(bytes + 2, 0xee);
  bench.ddr.storage().read(dst - 1, copied.data(), copied.size());
  EXPECT_EQ(copied.front(), 0);
  EXPECT_EQ(copied.back(), 0);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), copied.begin() + 1));
  EXPECT_GE(elapsed_ps, bench.config.dma.setup_latency_ps);
  // Every byte is read once and written once over the one DDR channel.
  const double peak = bench.config.ddr.channel_bytes_per_s() * bench.config.ddr.channels;
  EXPECT_GE(elapsed_ps, transfer_ps(2 * bytes, peak));
  const StatGroup s = bench.dma.stats(now_ps());
  EXPECT_EQ(test::stat(s, "bytes"), bytes);
  EXPECT_EQ(test::stat(s, "transfers"), 1);
  EXPECT_EQ(test::stat(bench.ddr.stats(now_ps()), "read_bytes"), bytes);
  EXPECT_EQ(test::stat(bench.ddr.stats(now_ps()), "write_bytes"), bytes);
}

// Time (ps) of one DMA copy of `bytes` from DDR 0x100000 to `dst` (DDR or SRAM).
uint64_t copy_time_ps(const std::string& yaml, uint64_t dst, uint64_t bytes) {
  test::use_ps_resolution();
  const BenchConfig config(yaml);
  const Granularity path = config.interconnect.granularity;
  Router router("router", config.interconnect);
  Ddr ddr("ddr", config.ddr, path);
  Sram sram("sram", config.sram);
  DmaEngine dma("dma", config.dma, path);
  router.map(kDdrBase, config.ddr.size_bytes, "ddr", path == Granularity::Burst);
  router.initiator.bind(ddr.socket);
  router.map(kSramBase, config.sram.size_bytes, "sram");
  router.initiator.bind(sram.socket);
  dma.socket.bind(router.target);
  uint64_t elapsed_ps = 0;
  TestThread thread("thread", [&] {
    NpuExtension tag;
    const uint64_t start = now_ps();
    dma.copy(dst, 0x100000, bytes, "bandwidth", tag);
    elapsed_ps = now_ps() - start;
  });
  sc_core::sc_start();
  EXPECT_TRUE(thread.finished()) << test::failure_message().value_or("");
  return elapsed_ps;
}

// DDR -> SRAM: the DDR channel carries `bytes` once; with 8 bursts in flight the
// copy is bound by the channel (LPDDR4-3200 x16: 6.4 GB/s).
TEST_P(DmaPath, DdrToSramCopyIsBoundByTheDdrChannel) {
  const uint64_t bytes = 256 << 10;
  const uint64_t t = copy_time_ps(yaml(), kSramBase, bytes);
  const uint64_t bus_ps = transfer_ps(bytes, 6.4e9);
  EXPECT_GE(t, bus_ps);
  EXPECT_LE(t, bus_ps * 5 / 4) << "copy reached " << bytes / (t * 1e-12) / 1e9 << " GB/s";
}

// DDR -> DDR: the one channel carries every byte twice (read, then write), so the
// copy cannot beat 2 x bytes / 6.4 GB/s, and with 8 bursts in flight the bursts'
// latency should hide behind the data transfers of the others.
TEST_P(DmaPath, DdrToDdrCopyIsBoundByTheDdrChannel) {
  const uint64_t bytes = 1 << 20;
  const uint64_t t = copy_time_ps(yaml(), 0x10000000, bytes);
  const uint64_t bus_ps = transfer_ps(2 * bytes, 6.4e9);
  EXPECT_GE(t, bus_ps);
  EXPECT_LE(t, bus_ps * 5 / 4) << "copy reached " << bytes / (t * 1e-12) / 1e9 << " GB/s";
}

// DMA -> router -> DDR and SRAM on one data path; `run` times one copy into SRAM.
struct CopyBench {
  BenchConfig config;
  Router router;
  Ddr ddr;
  Sram sram;
  DmaEngine dma;
  CopyBench(const std::string& name, const std::string& yaml)
      : config(yaml), router((name + "_router").c_str(), config.interconnect),
        ddr((name + "_ddr").c_str(), config.ddr, config.interconnect.granularity),
        sram((name + "_sram").c_str(), config.sram),
        dma((name + "_dma").c_str(), config.dma, config.interconnect.granularity) {
    const bool burst = config.interconnect.granularity == Granularity::Burst;
    router.map(kDdrBase, config.ddr.size_bytes, "ddr", burst);
    router.initiator.bind(ddr.socket);
    router.map(kSramBase, config.sram.size_bytes, "sram");
    router.initiator.bind(sram.socket);
    dma.socket.bind(router.target);
  }
  void run(uint64_t bytes, uint64_t& elapsed_ps) {
    const uint64_t start = now_ps();
    dma.copy(kSramBase, 0x100000, bytes, "copy", NpuExtension{});
    elapsed_ps = now_ps() - start;
  }
};

// One transfer alone meets no other traffic, so both paths time it to the picosecond (two
// platforms side by side in one simulation). A place in the window frees when its burst's
// write is done, also on the burst path, where the write to SRAM is answered (with its end
// ahead) as soon as the read data is in.
TEST(Dma, OneTransferTakesTheSameTimeOnBothPaths) {
  test::use_ps_resolution();
  const std::string rest = ", hop_latency: 40ns, bandwidth: 1TB/s}\n"
                           "ddr: {preset: HBM2E, channels: 64, controller_latency: 200ns}\n"
                           "dma: {outstanding: 16, burst: 256B}\nsram: {latency: 30}\n";
  CopyBench fine("fine", "name: t\ninterconnect: {granularity: 64B" + rest);
  CopyBench coarse("coarse", "name: t\ninterconnect: {granularity: burst" + rest);
  uint64_t t64 = 0, tb = 0;
  const uint64_t bytes = 64 << 10; // 256 bursts, 16 at a time
  TestThread a("a", [&] { fine.run(bytes, t64); });
  TestThread b("b", [&] { coarse.run(bytes, tb); });
  sc_core::sc_start();
  ASSERT_TRUE(a.finished() && b.finished()) << test::failure_message().value_or("");
  EXPECT_GT(t64, 0u);
  EXPECT_EQ(tb, t64) << "64B path " << t64 << " ps, burst path " << tb << " ps";
}

// The burst loop issues ahead of time only while nothing else in the simulation is due: an
// initiator that writes the SRAM in the middle of a copy gets the SRAM port at its time,
// before the copy's later bursts, on both paths alike.
TEST(Dma, AnotherInitiatorMidCopyGetsTheSramPortAtItsTime) {
  test::use_ps_resolution();
  const std::string rest =
      "}\nddr: {preset: HBM2E, channels: 8}\n"
      "dma: {outstanding: 16, burst: 256B}\nsram: {size: 2MiB, ports: 1, latency: 4}\n";
  CopyBench fine("fine", "name: t\ninterconnect: {granularity: 64B" + rest);
  CopyBench coarse("coarse", "name: t\ninterconnect: {granularity: burst" + rest);
  const uint64_t bytes = 256 << 10;
  uint64_t t64 = 0, tb = 0, other64 = 0, otherb = 0;
  TestThread a("a", [&] { fine.run(bytes, t64); });
  TestThread b("b", [&] { coarse.run(bytes, tb); });
  auto writer = [](uint64_t& delay_ps) {
    return [&delay_ps](test::TestInitiator& self) {
      sc_core::wait(sc_core::sc_time(3, sc_core::SC_US)); // mid-copy
      std::vector<uint8_t> data(4096, 0x5a);
      const auto [status, delay] =
          self.access_now(tlm::TLM_WRITE_COMMAND, kSramBase + (1 << 20), data.data(), 4096);
      EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
      delay_ps = delay;
    };
  };
  test::TestInitiator fine_other("fine_other", writer(other64));
  test::TestInitiator coarse_other("coarse_other", writer(otherb));
  fine_other.socket.bind(fine.router.target);
  coarse_other.socket.bind(coarse.router.target);
  sc_core::sc_start();
  ASSERT_TRUE(a.finished() && b.finished() && fine_other.finished() && coarse_other.finished())
      << test::failure_message().value_or("");
  ASSERT_GT(t64, 3000000u) << "the copy must still run at 3 us";
  EXPECT_EQ(otherb, other64) << "the mid-copy write's time, burst path vs 64B path";
  EXPECT_EQ(tb, t64);
}

TEST_P(DmaPath, CopyToAnUnmappedAddressFailsNamingTheTransfer) {
  test::use_ps_resolution();
  bool returned = false;
  const uint64_t unmapped = kSramBase + 0x100; // no SRAM behind this router
  DmaBench bench(yaml(), [&](DmaBench& b) {
    b.dma.copy(unmapped, 0x1000, 4096, "weights to sram", b.tag());
    returned = true;
  });
  sc_core::sc_start();
  EXPECT_FALSE(returned);
  EXPECT_FALSE(bench.thread.finished());
  const std::exception_ptr failure = simulation_failure();
  ASSERT_TRUE(failure) << "the failed copy did not stop the simulation";
  try {
    std::rethrow_exception(failure);
  } catch (const SimulationError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("weights to sram"), std::string::npos) << msg;
    EXPECT_NE(msg.find("address not mapped"), std::string::npos) << msg;
  } catch (...) {
    FAIL() << "not a SimulationError";
  }
  // Bursts already in flight fail too; nothing past the window is issued.
  const double errors = test::stat(bench.router.stats(now_ps()), "decode_errors");
  EXPECT_GE(errors, 1);
  EXPECT_LE(errors, bench.config.dma.outstanding);
}

TEST_P(DmaPath, CopyFromAnUnmappedAddressFailsAndWritesNothing) {
  test::use_ps_resolution();
  const uint64_t dst = 0x4000;
  DmaBench bench(yaml("ddr: {size: 1GiB}\n"), [&](DmaBench& b) {
    // Starts inside DDR and runs past its end: the second burst fails.
    b.dma.copy(dst, b.config.ddr.size_bytes - 256, 1024, "tail read", b.tag());
  });
  sc_core::sc_start();
  const auto msg = test::failure_message();
  ASSERT_TRUE(msg.has_value());
  EXPECT_NE(msg->find("tail read"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("address not mapped"), std::string::npos) << *msg;
  EXPECT_NE(msg->find("offset 256"), std::string::npos) << *msg;
}

INSTANTIATE_TEST_SUITE_P(Granularity, DmaPath, ::testing::Values("64B", "burst"),
                         [](const auto& info) {
                           return info.param == "64B" ? std::string("Access64")
                                                      : std::string("Burst");
                         });

} // namespace
} // namespace npu
