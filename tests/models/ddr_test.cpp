// DDR model: data integrity, address errors, channel bandwidth, open-row timing.
#include "models/ddr/ddr.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace npu {
namespace {

using test::config_from_yaml;
using test::now_ps;
using test::TestInitiator;

constexpr const char* kOneChannelLpddr4 =
    "name: t\nddr: {preset: LPDDR4-3200, channels: 1, bus_width: 16}\n";

TEST(Ddr, WrittenBytesReadBackThroughBTransportAndDebugPath) {
  test::use_ps_resolution();
  const PlatformConfig config = config_from_yaml(kOneChannelLpddr4);
  Ddr ddr("ddr", config.ddr);
  // Unaligned, crossing several interleave chunks and a row boundary.
  const uint64_t addr = 2048 - 300 + 3;
  const std::vector<uint8_t> written = test::pattern(1000, 1);
  std::vector<uint8_t> read_back(written.size(), 0);
  tlm::tlm_response_status write_status = tlm::TLM_INCOMPLETE_RESPONSE;
  tlm::tlm_response_status read_status = tlm::TLM_INCOMPLETE_RESPONSE;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data = written;
    auto [ws, wdelay] = self.access_now(tlm::TLM_WRITE_COMMAND, addr, data.data(),
                                        static_cast<uint32_t>(data.size()));
    write_status = ws;
    sc_core::wait(ps(wdelay));
    auto [rs, rdelay] = self.access_now(tlm::TLM_READ_COMMAND, addr, read_back.data(),
                                        static_cast<uint32_t>(read_back.size()));
    read_status = rs;
    sc_core::wait(ps(rdelay));
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();

  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  EXPECT_EQ(write_status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(read_status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(read_back, written);
  // The debug path sees the same bytes, and the neighbours were not touched.
  std::vector<uint8_t> around(written.size() + 2, 0xee);
  ASSERT_EQ(debug_transact(init.socket, tlm::TLM_READ_COMMAND, addr - 1, around.data(),
                           static_cast<uint32_t>(around.size())),
            around.size());
  EXPECT_EQ(around.front(), 0);
  EXPECT_EQ(around.back(), 0);
  EXPECT_TRUE(std::equal(written.begin(), written.end(), around.begin() + 1));
  const StatGroup s = ddr.stats(now_ps());
  EXPECT_EQ(test::stat(s, "reads"), 1);
  EXPECT_EQ(test::stat(s, "writes"), 1);
  EXPECT_EQ(test::stat(s, "read_bytes"), 1000);
  EXPECT_EQ(test::stat(s, "write_bytes"), 1000);
}

TEST(Ddr, AccessOutsideTheDeviceIsAnAddressErrorAndChangesNothing) {
  test::use_ps_resolution();
  const PlatformConfig config = config_from_yaml("name: t\nddr: {size: 1MiB}\n");
  ASSERT_EQ(config.ddr.size_bytes, 1u << 20);
  Ddr ddr("ddr", config.ddr);
  const uint64_t size = config.ddr.size_bytes;
  std::vector<tlm::tlm_response_status> statuses;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(64, 0xab);
    statuses.push_back(self.access_now(tlm::TLM_READ_COMMAND, size, data.data(), 1).first);
    // Straddles the end: must fail as a whole, writing nothing.
    statuses.push_back(self.access_now(tlm::TLM_WRITE_COMMAND, size - 32, data.data(), 64).first);
    statuses.push_back(
        self.access_now(tlm::TLM_READ_COMMAND, ~uint64_t{0} - 15, data.data(), 64).first);
    // The last 64 bytes are inside.
    statuses.push_back(self.access_now(tlm::TLM_READ_COMMAND, size - 64, data.data(), 64).first);
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();

  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(statuses.size(), 4u);
  EXPECT_EQ(statuses[0], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(statuses[1], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(statuses[2], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(statuses[3], tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> tail(32, 0xff);
  ddr.storage().read(size - 32, tail.data(), tail.size());
  EXPECT_EQ(tail, std::vector<uint8_t>(32, 0));
  EXPECT_EQ(test::stat(ddr.stats(now_ps()), "writes"), 0);
}

// Completion times (ps) of `count` sequential 64-byte reads from address 0; read i is
// issued at local time offset i * issue_gap_ps (0: all at once), delays annotated.
struct StreamResult {
  std::vector<uint64_t> done_ps;
  double peak_bytes_per_s = 0;
};

constexpr uint32_t kBurstBytes = 64;

StreamResult stream_reads(uint32_t count, uint64_t issue_gap_ps) {
  test::use_ps_resolution();
  const PlatformConfig config = config_from_yaml(kOneChannelLpddr4);
  Ddr ddr("ddr", config.ddr);
  StreamResult result;
  result.peak_bytes_per_s = config.ddr.channel_bytes_per_s();
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(kBurstBytes);
    for (uint32_t i = 0; i < count; ++i) {
      sc_core::sc_time delay = ps(i * issue_gap_ps) - sc_core::sc_time_stamp();
      ASSERT_EQ(self.access(tlm::TLM_READ_COMMAND, uint64_t{i} * kBurstBytes, data.data(),
                            kBurstBytes, delay),
                tlm::TLM_OK_RESPONSE);
      result.done_ps.push_back(now_ps() + to_ps(delay));
    }
    sc_core::wait(ps(*std::max_element(result.done_ps.begin(), result.done_ps.end())) -
                  sc_core::sc_time_stamp());
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();
  EXPECT_TRUE(init.finished()) << test::failure_message().value_or("");
  return result;
}

// No prefix of the stream moves data faster than the channel; the whole stream
// reaches at least 80% of it.
void expect_bandwidth_within_peak(const StreamResult& r, uint32_t count) {
  ASSERT_EQ(r.done_ps.size(), count);
  std::vector<uint64_t> done = r.done_ps;
  std::sort(done.begin(), done.end());
  const uint64_t burst_ps = transfer_ps(kBurstBytes, r.peak_bytes_per_s);
  ASSERT_EQ(burst_ps, 10000u); // 64 B at 6.4 GB/s
  for (size_t i = 0; i < done.size(); ++i)
    ASSERT_GE(done[i], (i + 1) * burst_ps)
        << "the first " << i + 1 << " reads finished faster than the channel's peak";
  const double bytes = static_cast<double>(count) * kBurstBytes;
  const double achieved = bytes / (static_cast<double>(done.back()) * 1e-12);
  EXPECT_LE(achieved, r.peak_bytes_per_s);
  EXPECT_GE(achieved, 0.8 * r.peak_bytes_per_s)
      << "achieved " << achieved / 1e9 << " GB/s of " << r.peak_bytes_per_s / 1e9;
}

TEST(Ddr, OneLpddr4ChannelPeakIs6400MBps) {
  const PlatformConfig config = config_from_yaml(kOneChannelLpddr4);
  EXPECT_DOUBLE_EQ(config.ddr.channel_bytes_per_s(), 6.4e9);
  EXPECT_EQ(config.ddr.channels, 1u);
}

TEST(Ddr, BackToBackReadsIssuedTogetherStayWithinAndNearChannelPeak) {
  constexpr uint32_t kReads = 4096; // 256 KiB: latency is a small part of the total
  expect_bandwidth_within_peak(stream_reads(kReads, 0), kReads);
}

TEST(Ddr, ReadsIssuedFasterThanTheBusStayWithinAndNearChannelPeak) {
  constexpr uint32_t kReads = 4096;
  // One request every 5 ns while a 64-byte burst takes 10 ns on the bus.
  expect_bandwidth_within_peak(stream_reads(kReads, 5000), kReads);
}

TEST(Ddr, RowHitIsFasterThanRowMissInTheSameBank) {
  test::use_ps_resolution();
  const PlatformConfig config = config_from_yaml(kOneChannelLpddr4);
  const DdrConfig& c = config.ddr;
  ASSERT_LT(c.row_hit_latency_ps, c.row_miss_latency_ps);
  Ddr ddr("ddr", c);
  // Same bank, next row: one row of every bank lies in between.
  const uint64_t same_bank_other_row = c.row_bytes * c.banks * c.ranks;
  const uint64_t other_bank = c.row_bytes;
  std::vector<uint64_t> latency;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(kBurstBytes);
    auto read = [&](uint64_t addr) {
      auto [status, delay] = self.access_now(tlm::TLM_READ_COMMAND, addr, data.data(), 64);
      EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
      latency.push_back(delay);
      sc_core::wait(ps(delay) + ps(1000000)); // the bus is idle again
    };
    read(0);                        // 0: closed bank, opens row 0
    read(64);                       // 1: same row: hit
    read(same_bank_other_row);      // 2: same bank, other row: miss
    read(128);                      // 3: row 0 was closed by 2: miss
    read(other_bank);               // 4: another bank
    read(192);                      // 5: row 0 of bank 0 still open: hit
    read(same_bank_other_row);      // 6: miss again
    read(same_bank_other_row + 64); // 7: hit
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(latency.size(), 8u);

  const uint64_t burst = transfer_ps(kBurstBytes, c.channel_bytes_per_s());
  const uint64_t hit = c.row_hit_latency_ps + burst + c.controller_latency_ps;
  const uint64_t miss = c.row_miss_latency_ps + burst + c.controller_latency_ps;
  EXPECT_EQ(latency[0], miss);
  EXPECT_EQ(latency[1], hit);
  EXPECT_EQ(latency[2], miss);
  EXPECT_EQ(latency[3], miss);
  EXPECT_EQ(latency[5], hit);
  EXPECT_EQ(latency[6], miss);
  EXPECT_EQ(latency[7], hit);
  EXPECT_LT(latency[1], latency[2]);
  EXPECT_EQ(latency[2] - latency[1], c.row_miss_latency_ps - c.row_hit_latency_ps);
  // LPDDR4-3200: RL 28 + BL16 8 clocks = 22.5 ns; + tRCD 29 + tRP 29 clocks = 58.75 ns.
  EXPECT_EQ(c.row_hit_latency_ps, 22500u);
  EXPECT_EQ(c.row_miss_latency_ps, 58750u);
  EXPECT_NEAR(test::stat(ddr.stats(now_ps()), "row_hit_rate"), 3.0 / 8.0, 1e-9);
}

TEST(Ddr, TwoChannelsServeInterleavedChunksInParallel) {
  test::use_ps_resolution();
  const PlatformConfig config =
      config_from_yaml("name: t\nddr: {preset: LPDDR4-3200, channels: 2, interleave: 256}\n");
  Ddr ddr("ddr", config.ddr);
  uint64_t one_channel_ps = 0;
  uint64_t two_channels_ps = 0;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(512);
    // 256 B in channel 0 only, then 512 B split over both channels (fresh rows each).
    one_channel_ps = self.access_now(tlm::TLM_READ_COMMAND, 0, data.data(), 256).second;
    sc_core::wait(ps(one_channel_ps));
    two_channels_ps = self.access_now(tlm::TLM_READ_COMMAND, 1 << 20, data.data(), 512).second;
    sc_core::wait(ps(two_channels_ps));
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  // Twice the bytes in the same time: each channel moved 256 B.
  EXPECT_EQ(two_channels_ps, one_channel_ps);
  EXPECT_DOUBLE_EQ(test::stat(ddr.stats(now_ps()), "peak_gbps"), 12.8);
}

} // namespace
} // namespace npu
