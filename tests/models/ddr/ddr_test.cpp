// DDR model: data integrity, address errors, channel bandwidth, open-row timing.
#include "models/ddr/ddr.h"
#include "tests/models/block_config.h"
#include "tests/models/model_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace npu {
namespace {

using test::now_ps;
using test::TestInitiator;

// The `ddr` section of `text`, read by the DDR's own reader.
DdrConfig ddr_section(const std::string& text) {
  return test::block_config(text, "ddr", read_ddr_config);
}

constexpr const char* kOneChannelLpddr4 =
    "name: t\nddr: {preset: LPDDR4-3200, channels: 1, bus_width: 16}\n";

TEST(Ddr, WrittenBytesReadBackThroughBTransportAndDebugPath) {
  test::use_ps_resolution();
  const DdrConfig config = ddr_section(kOneChannelLpddr4);
  Ddr ddr("ddr", config);
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
  // The controller works in 64-byte requests: bytes 1751..2750 touch 16 of them.
  EXPECT_EQ(test::stat(s, "reads"), 16);
  EXPECT_EQ(test::stat(s, "writes"), 16);
  EXPECT_EQ(test::stat(s, "read_bytes"), 1000);
  EXPECT_EQ(test::stat(s, "write_bytes"), 1000);

  // Energy: the 16 reads and 16 writes, and the open rows in active standby up to the end.
  const BlockEnergy e = ddr.energy(now_ps());
  EXPECT_EQ(e.block, "ddr");
  double sum = 0;
  for (const EnergyPart& p : e.parts)
    sum += p.pj;
  EXPECT_EQ(e.total_pj(), sum);
  const auto part = [](const BlockEnergy& b, const char* name) {
    for (const EnergyPart& p : b.parts)
      if (p.name == name)
        return p.pj;
    return -1.0;
  };
  // LPDDR4-3200: VDDQ read / write energy 3.22 / 1.18 pJ per bit.
  EXPECT_NEAR(part(e, "io"), 16 * 512 * (3.22265625 + 1.181640625), 1e-6);
  EXPECT_GT(part(e, "activate"), 0);
  // One microsecond (1600 clocks) later, the open rows add active standby only.
  const BlockEnergy later = ddr.energy(now_ps() + 1000000);
  EXPECT_NEAR(part(later, "background_active") - part(e, "background_active"),
              1600 * 0.625 * (2.25 * 1.8 + 30 * 1.1), 1e-6);
  EXPECT_EQ(part(later, "background_precharged"), part(e, "background_precharged"));
}

TEST(Ddr, AccessOutsideTheDeviceIsAnAddressErrorAndChangesNothing) {
  test::use_ps_resolution();
  const DdrConfig config = ddr_section("name: t\nddr: {size: 1MiB}\n");
  ASSERT_EQ(config.size_bytes, 1u << 20);
  Ddr ddr("ddr", config);
  const uint64_t size = config.size_bytes;
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

// `threads` initiator threads each read their share of a sequential stream with one
// request outstanding per thread: together they keep the controller's queue busy.
StreamResult stream_reads(uint32_t count, uint32_t threads) {
  test::use_ps_resolution();
  const DdrConfig config = ddr_section(kOneChannelLpddr4);
  Ddr ddr("ddr", config);
  StreamResult result;
  result.peak_bytes_per_s = config.channel_bytes_per_s();
  TestInitiator init("init", [&](TestInitiator& self) {
    sc_core::sc_event done;
    uint32_t finished = 0;
    for (uint32_t t = 0; t < threads; ++t)
      sc_core::sc_spawn([&, t] {
        std::vector<uint8_t> data(kBurstBytes);
        for (uint32_t i = t; i < count; i += threads) {
          sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
          EXPECT_EQ(self.access(tlm::TLM_READ_COMMAND, uint64_t{i} * kBurstBytes, data.data(),
                                kBurstBytes, delay),
                    tlm::TLM_OK_RESPONSE);
          // The DRAM burst ended when b_transport returned; the delay is the front end.
          result.done_ps.push_back(now_ps() - config.controller_latency_ps);
          sc_core::wait(delay);
        }
        if (++finished == threads)
          done.notify();
      });
    sc_core::wait(done);
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
  const DdrConfig config = ddr_section(kOneChannelLpddr4);
  EXPECT_DOUBLE_EQ(config.channel_bytes_per_s(), 6.4e9);
  EXPECT_EQ(config.channels, 1u);
}

TEST(Ddr, ManyOutstandingReadsStayWithinAndNearChannelPeak) {
  constexpr uint32_t kReads = 4096; // 256 KiB: latency is a small part of the total
  expect_bandwidth_within_peak(stream_reads(kReads, 16), kReads);
}

TEST(Ddr, OneOutstandingReadIsLatencyBound) {
  constexpr uint32_t kReads = 256;
  const StreamResult r = stream_reads(kReads, 1);
  ASSERT_EQ(r.done_ps.size(), kReads);
  const double achieved = kReads * 64.0 / (static_cast<double>(r.done_ps.back()) * 1e-12);
  EXPECT_LT(achieved, 0.5 * r.peak_bytes_per_s) << achieved / 1e9 << " GB/s";
}

// Closed loop, one request at a time: a closed bank costs 1 + RCD + CL + burst
// memory cycles, a row hit 1 + CL + burst, a row conflict 1 + RP + RCD + CL + burst
// (the 1 is the command cycle after acceptance); the front end adds its latency.
TEST(Ddr, RowHitMissAndConflictLatenciesFollowTheJedecTimings) {
  test::use_ps_resolution();
  const DdrConfig config =
      ddr_section("name: t\nddr: {preset: LPDDR4-3200, channels: 1, refresh: false}\n");
  const DdrConfig& c = config;
  Ddr ddr("ddr", c);
  const AddressMapper mapper(c.spec, c.mapping_fields, c.hash);
  DramAddress other_row = mapper.decode(0);
  other_row.row += 1;
  const uint64_t same_bank_other_row = mapper.encode(other_row);
  std::vector<uint64_t> latency;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(kBurstBytes);
    auto read = [&](uint64_t addr) {
      // Start on a memory-clock edge, long after the previous access.
      const uint64_t tck = static_cast<uint64_t>(c.spec.tck_ps);
      sc_core::wait(ps((now_ps() / tck + 2000) * tck) - sc_core::sc_time_stamp());
      const uint64_t start = now_ps();
      auto [status, delay] = self.access_now(tlm::TLM_READ_COMMAND, addr, data.data(), 64);
      EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
      latency.push_back(now_ps() + delay - start);
    };
    read(0);                   // closed bank
    read(64);                  // same row: hit
    read(same_bank_other_row); // same bank, other row: conflict
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(latency.size(), 3u);
  const auto& t = c.spec.t;
  const uint64_t burst = c.spec.burst_cycles();
  auto cycles_ps = [&](uint64_t cycles) {
    return static_cast<uint64_t>(std::llround(cycles * c.spec.tck_ps)) + c.controller_latency_ps;
  };
  EXPECT_EQ(latency[0], cycles_ps(1 + t.RCD + t.CL + burst));
  EXPECT_EQ(latency[1], cycles_ps(1 + t.CL + burst));
  EXPECT_EQ(latency[2], cycles_ps(1 + t.RP + t.RCD + t.CL + burst));
  EXPECT_LT(latency[1], latency[0]);
  EXPECT_LT(latency[0], latency[2]);
}

TEST(Ddr, TwoChannelsServeOneAccessInParallel) {
  test::use_ps_resolution();
  // RoBaCoBg puts the channel in the lowest bits above the 64-byte offset, so one
  // 1 KiB access spreads over both channels of the second DRAM.
  const DdrConfig one = ddr_section("name: t\nddr: {preset: LPDDR4-3200, channels: 1}\n");
  const DdrConfig two = ddr_section("name: t\nddr: {preset: LPDDR4-3200, channels: 2}\n");
  Ddr ddr1("ddr1", one);
  Ddr ddr2("ddr2", two);
  uint64_t elapsed[2] = {0, 0};
  auto body = [&](int which) {
    return [&, which](TestInitiator& self) {
      std::vector<uint8_t> data(1024);
      const uint64_t start = now_ps();
      EXPECT_EQ(self.access_now(tlm::TLM_READ_COMMAND, 0, data.data(), 1024).first,
                tlm::TLM_OK_RESPONSE);
      elapsed[which] = now_ps() - start;
    };
  };
  TestInitiator init1("init1", body(0));
  TestInitiator init2("init2", body(1));
  init1.socket.bind(ddr1.socket);
  init2.socket.bind(ddr2.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init1.finished() && init2.finished()) << test::failure_message().value_or("");
  // 16 bursts of 16 clocks on one channel, 8 on each of two: the data phase halves.
  const uint64_t burst_ps = static_cast<uint64_t>(16 * one.spec.tck_ps);
  EXPECT_GE(elapsed[0] - elapsed[1], 7 * burst_ps) << elapsed[0] << " vs " << elapsed[1];
  EXPECT_DOUBLE_EQ(test::stat(ddr2.stats(now_ps()), "peak_gbps"), 12.8);
}

// Blocking accesses that find their queue full wait in line and enter it in order of
// arrival: two single requests that arrive while a long access waits for entries are
// queued after all of it, the earlier one first.
TEST(Ddr, BlockedAccessesEnterTheQueueInOrderOfArrival) {
  test::use_ps_resolution();
  const DdrConfig config = ddr_section(
      "name: t\nddr: {preset: LPDDR4-3200, channels: 1, read_queue: 2, refresh: false}\n");
  Ddr ddr("ddr", config);
  std::vector<uint64_t> done(3, 0);
  TestInitiator init("init", [&](TestInitiator& self) {
    sc_core::sc_event all_done;
    uint32_t finished = 0;
    // Access 0: 32 requests at time 0, two enter the queue, 30 wait for entries. Accesses 1
    // and 2: one request each, to rows of two other banks, at 1 and 2 ns.
    const uint64_t addr[] = {0, 1u << 20, 2u << 20};
    const uint32_t len[] = {2048, 64, 64};
    for (uint32_t i = 0; i < 3; ++i)
      sc_core::sc_spawn([&, i] {
        sc_core::wait(ps(1000 * i));
        std::vector<uint8_t> data(len[i]);
        EXPECT_EQ(self.access_now(tlm::TLM_READ_COMMAND, addr[i], data.data(), len[i]).first,
                  tlm::TLM_OK_RESPONSE);
        done[i] = now_ps();
        if (++finished == 3)
          all_done.notify();
      });
    sc_core::wait(all_done);
  });
  init.socket.bind(ddr.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  EXPECT_LT(done[0], done[1]);
  EXPECT_LT(done[1], done[2]);
  // The late requests follow the 32 data bursts of the first access.
  const auto burst_ps = static_cast<uint64_t>(config.spec.burst_cycles() * config.spec.tck_ps);
  EXPECT_GE(done[1], 33 * burst_ps);
}

// Issues non-blocking accesses, each at its time, and records when each is answered.
class NbInitiator : public sc_core::sc_module {
public:
  struct Access {
    uint64_t at_ps = 0;
    tlm::tlm_command cmd = tlm::TLM_READ_COMMAND;
    uint64_t addr = 0;
    uint32_t len = 0;
    uint64_t done_ps = 0;
    uint64_t delay_ps = 0; ///< annotated: it arrives at at_ps + delay_ps
    bool blocking = false; ///< sent by b_transport, from a thread of its own
  };
  tlm_utils::simple_initiator_socket<NbInitiator> socket;
  std::vector<Access> accesses;

  NbInitiator(sc_core::sc_module_name name, std::vector<Access> list)
      : sc_module(name), socket("socket"), accesses(std::move(list)), m_payloads(accesses.size()),
        m_data(accesses.size()) {
    SC_HAS_PROCESS(NbInitiator);
    socket.register_nb_transport_bw(this, &NbInitiator::nb_transport_bw);
    SC_THREAD(run);
  }

private:
  void run() {
    for (size_t i = 0; i < accesses.size(); ++i) {
      Access& a = accesses[i];
      sc_core::wait(ps(a.at_ps - now_ps()));
      m_data[i].assign(a.len, 0);
      tlm::tlm_generic_payload& p = m_payloads[i];
      p.set_command(a.cmd);
      p.set_address(a.addr);
      p.set_data_ptr(m_data[i].data());
      p.set_data_length(a.len);
      p.set_streaming_width(a.len);
      p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      if (a.blocking) {
        sc_core::sc_spawn([this, &a, &p] {
          sc_core::sc_time delay = ps(a.delay_ps);
          socket->b_transport(p, delay);
          a.done_ps = now_ps() + to_ps(delay);
        });
        continue;
      }
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = ps(a.delay_ps);
      if (socket->nb_transport_fw(p, phase, delay) == tlm::TLM_COMPLETED)
        a.done_ps = now_ps() + to_ps(delay);
    }
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase&,
                                     sc_core::sc_time& delay) {
    accesses[static_cast<size_t>(&p - m_payloads.data())].done_ps = now_ps() + to_ps(delay);
    return tlm::TLM_COMPLETED;
  }

  std::vector<tlm::tlm_generic_payload> m_payloads;
  std::vector<std::vector<uint8_t>> m_data;
};

// The controller drains writes when its read queue is empty (or its write queue fills): a
// read that arrives after a write, while older reads still wait, is served before it. At
// both levels: the transaction level holds the write until the reads booked before it
// have issued.
// Runs `accesses` on one LPDDR4 channel at both levels and returns each level's accesses,
// answered (cycle first).
std::vector<std::vector<NbInitiator::Access>>
on_both_levels(const std::vector<NbInitiator::Access>& accesses) {
  test::use_ps_resolution();
  const auto config = [](const std::string& model) {
    return ddr_section(
        "name: t\nddr: {preset: LPDDR4-3200, channels: 1, refresh: false, model: " + model + "}\n");
  };
  Ddr cycle("cycle", config("cycle"), Granularity::Burst);
  Ddr transaction("transaction", config("transaction"), Granularity::Burst);
  NbInitiator at_cycle("at_cycle", accesses);
  NbInitiator at_transaction("at_transaction", accesses);
  at_cycle.socket.bind(cycle.socket);
  at_transaction.socket.bind(transaction.socket);
  sc_core::sc_start();
  std::vector<std::vector<NbInitiator::Access>> out;
  for (const NbInitiator* init : {&at_cycle, &at_transaction}) {
    for (const NbInitiator::Access& a : init->accesses)
      EXPECT_GT(a.done_ps, 0u) << init->name();
    out.push_back(init->accesses);
  }
  return out;
}

// The controller drains writes when its read queue is empty (or its write queue fills): a
// read that arrives after a write, while older reads still wait, is served before it. At
// both levels: the transaction level holds the write until the reads booked before it
// have issued. A blocking write (the host's ring writes, the scheduler's completion
// records) waits in the write queue as a non-blocking one does.
void expect_a_later_read_goes_first(bool blocking_write) {
  // A 2 KiB read at 0 (32 bursts, about 320 ns of data), a write to another bank at 10 ns,
  // a read of a third bank at 20 ns.
  std::vector<NbInitiator::Access> accesses = {{0, tlm::TLM_READ_COMMAND, 0, 2048},
                                               {10'000, tlm::TLM_WRITE_COMMAND, 1u << 20, 64},
                                               {20'000, tlm::TLM_READ_COMMAND, 2u << 20, 64}};
  accesses[1].blocking = blocking_write;
  for (const auto& a : on_both_levels(accesses)) {
    EXPECT_LT(a[2].done_ps, a[1].done_ps);
    // The write waits for the first read's columns too, not only for its own bank.
    EXPECT_GT(a[1].done_ps + 100'000, a[0].done_ps);
  }
}

TEST(Ddr, AReadArrivingWhileReadsWaitGoesBeforeAnEarlierWrite) {
  expect_a_later_read_goes_first(false);
}

TEST(Ddr, AReadArrivingWhileReadsWaitGoesBeforeAnEarlierBlockingWrite) {
  expect_a_later_read_goes_first(true);
}

// The write queue drains as soon as the read queue empties, even when more reads come
// later: at the transaction level, a read booked ahead of its arrival leaves the read
// queue empty until then, and the write goes in that stretch, not after the late read.
TEST(Ddr, AWriteDrainsWhenTheReadQueueEmptiesBeforeALaterRead) {
  // A 2 KiB read at 0 (about 320 ns of data); a read of a third bank sent at 0 that arrives
  // at 2 us; a write to another bank at 10 ns.
  std::vector<NbInitiator::Access> accesses = {{0, tlm::TLM_READ_COMMAND, 0, 2048},
                                               {0, tlm::TLM_READ_COMMAND, 2u << 20, 64},
                                               {10'000, tlm::TLM_WRITE_COMMAND, 1u << 20, 64}};
  accesses[1].delay_ps = 2'000'000;
  for (const auto& a : on_both_levels(accesses)) {
    EXPECT_GT(a[2].done_ps + 100'000, a[0].done_ps);
    EXPECT_LT(a[2].done_ps, a[0].done_ps + 200'000);
    EXPECT_GT(a[1].done_ps, 2'000'000u);
  }
}

} // namespace
} // namespace npu
