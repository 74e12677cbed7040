// SRAM model: bank timing of unit-stride vs one-bank patterns, allocation failures, data.
#include "common/error.h"
#include "models/sram/sram.h"
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

TEST(Sram, UnitStrideAccessOverAllBanksTakesOneCycleOfBankTime) {
  test::use_ps_resolution();
  const SramConfig c; // 16 banks of 16 bytes at 1 GHz, two ports
  const uint64_t period = static_cast<uint64_t>(1e12 / c.frequency_hz + 0.5);
  const uint64_t sweep = uint64_t{c.banks} * c.bank_width_bytes;
  Sram sram("sram", c);
  std::vector<uint64_t> delays;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data(4 * sweep);
    auto read = [&](uint64_t addr, uint64_t len) {
      auto [status, delay] =
          self.access_now(tlm::TLM_READ_COMMAND, addr, data.data(), static_cast<uint32_t>(len));
      EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
      delays.push_back(delay);
      sc_core::wait(ps(delay));
    };
    read(0, sweep);                      // every bank once
    read(sweep, 2 * sweep);              // every bank twice
    read(c.bank_width_bytes / 2, sweep); // misaligned: the first bank is hit twice
    read(0, c.bank_width_bytes);         // one word
  });
  init.socket.bind(sram.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(delays.size(), 4u);
  const uint64_t latency = uint64_t{c.latency_cycles} * period;
  EXPECT_EQ(delays[0] - latency, 1 * period);
  EXPECT_EQ(delays[1] - latency, 2 * period);
  EXPECT_EQ(delays[2] - latency, 2 * period);
  EXPECT_EQ(delays[3] - latency, 1 * period);
}

// Issues `count` accesses of bank_width bytes at addr_i = i * stride, all at the same
// time with zero delay, and returns (last completion - start) minus `minus_latency`
// times the pipeline latency.
uint64_t pattern_time_ps(TestInitiator& self, const SramConfig& c, uint64_t base, uint64_t count,
                         uint64_t stride, bool minus_latency) {
  const uint64_t period = static_cast<uint64_t>(1e12 / c.frequency_hz + 0.5);
  std::vector<uint8_t> data(c.bank_width_bytes);
  const uint64_t start = now_ps();
  uint64_t last = start;
  for (uint64_t i = 0; i < count; ++i) {
    auto [status, delay] =
        self.access_now(tlm::TLM_WRITE_COMMAND, base + i * stride, data.data(), c.bank_width_bytes);
    EXPECT_EQ(status, tlm::TLM_OK_RESPONSE);
    last = std::max(last, start + delay);
  }
  sc_core::wait(ps(last - start) + ps(10 * period)); // drain before the next pattern
  return last - start - (minus_latency ? uint64_t{c.latency_cycles} * period : 0);
}

struct PatternTimes {
  uint64_t unit_stride_ps = 0;
  uint64_t one_bank_ps = 0;
  SramConfig config;
};

// The default SRAM (1 GHz) with `banks` banks of `width` bytes and `ports` ports.
SramConfig geometry(uint32_t banks, uint32_t ports, uint32_t width = 16) {
  SramConfig c;
  c.banks = banks;
  c.ports = ports;
  c.bank_width_bytes = width;
  return c;
}

// `repeats` sweeps of the banks: unit stride (word after word) vs stride banks x width
// (every access in bank 0). Same bytes, same access size, all issued at once.
PatternTimes compare_patterns(const SramConfig& c, uint64_t repeats, bool minus_latency) {
  test::use_ps_resolution();
  PatternTimes t;
  t.config = c;
  Sram sram("sram", c);
  const uint64_t sweep = uint64_t{c.banks} * c.bank_width_bytes;
  const uint64_t count = c.banks * repeats;
  TestInitiator init("init", [&](TestInitiator& self) {
    t.unit_stride_ps = pattern_time_ps(self, c, 0, count, c.bank_width_bytes, minus_latency);
    t.one_bank_ps = pattern_time_ps(self, c, 0, count, sweep, minus_latency);
  });
  init.socket.bind(sram.socket);
  sc_core::sc_start();
  EXPECT_TRUE(init.finished()) << test::failure_message().value_or("");
  return t;
}

void expect_ratio(const PatternTimes& t, double expected) {
  ASSERT_GT(t.unit_stride_ps, 0u);
  const double ratio = static_cast<double>(t.one_bank_ps) / static_cast<double>(t.unit_stride_ps);
  EXPECT_GE(ratio, 0.75 * expected)
      << "one bank " << t.one_bank_ps << " ps, unit stride " << t.unit_stride_ps << " ps";
  EXPECT_LE(ratio, 1.25 * expected)
      << "one bank " << t.one_bank_ps << " ps, unit stride " << t.unit_stride_ps << " ps";
}

// With a port per bank, one sweep of word accesses: 1 cycle of bank time when every
// access finds its own bank, `banks` cycles when all of them queue on one bank.
TEST(Sram, OneBankPatternTakesBanksTimesTheBankTimeOfUnitStride) {
  const PatternTimes t = compare_patterns(geometry(16, 16), 1, true);
  const uint64_t period = static_cast<uint64_t>(1e12 / t.config.frequency_hz + 0.5);
  EXPECT_EQ(t.unit_stride_ps, period);
  EXPECT_EQ(t.one_bank_ps, 16 * period);
  expect_ratio(t, t.config.banks);
}

// A sustained stream (banks sweeps), end to end including the pipeline latency.
TEST(Sram, OneBankStreamTakesAboutBanksTimesLongerInTotal) {
  const PatternTimes t = compare_patterns(geometry(16, 16), 16, false);
  expect_ratio(t, t.config.banks);
}

TEST(Sram, OneBankStreamWithEightBanksTakesAboutEightTimesLonger) {
  const PatternTimes t = compare_patterns(geometry(8, 8, 32), 8, false);
  expect_ratio(t, t.config.banks);
}

// With fewer ports than banks a stream of word accesses is port-bound: unit stride
// moves `ports` words per cycle, so the one-bank pattern is only `ports` times slower.
TEST(Sram, UnitStrideWordStreamIsBoundByPorts) {
  const PatternTimes t = compare_patterns(geometry(16, 2), 1, true);
  const uint64_t period = static_cast<uint64_t>(1e12 / t.config.frequency_hz + 0.5);
  EXPECT_EQ(t.unit_stride_ps, 8 * period);
  EXPECT_EQ(t.one_bank_ps, 16 * period);
  expect_ratio(t, t.config.ports);
}

TEST(Sram, DataWrittenReadsBack) {
  test::use_ps_resolution();
  Sram sram("sram", SramConfig{});
  const std::vector<uint8_t> written = test::pattern(777, 5);
  std::vector<uint8_t> read_back(written.size());
  std::vector<tlm::tlm_response_status> statuses;
  TestInitiator init("init", [&](TestInitiator& self) {
    std::vector<uint8_t> data = written;
    auto w = self.access_now(tlm::TLM_WRITE_COMMAND, 1001, data.data(), 777);
    statuses.push_back(w.first);
    sc_core::wait(ps(w.second));
    auto r = self.access_now(tlm::TLM_READ_COMMAND, 1001, read_back.data(), 777);
    statuses.push_back(r.first);
    sc_core::wait(ps(r.second));
    // Past the end, and empty accesses, are address errors.
    statuses.push_back(
        self.access_now(tlm::TLM_READ_COMMAND, SramConfig{}.size_bytes - 8, data.data(), 16).first);
    statuses.push_back(self.access_now(tlm::TLM_READ_COMMAND, 0, data.data(), 0).first);
  });
  init.socket.bind(sram.socket);
  sc_core::sc_start();
  ASSERT_TRUE(init.finished()) << test::failure_message().value_or("");
  ASSERT_EQ(statuses.size(), 4u);
  EXPECT_EQ(statuses[0], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(statuses[1], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(statuses[2], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(statuses[3], tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(read_back, written);
}

std::string allocation_error(Sram& sram, uint64_t bytes, uint64_t align) {
  try {
    sram.allocate(bytes, align, "test buffer");
  } catch (const SimulationError& e) {
    return e.what();
  }
  return "";
}

// A 64 KiB SRAM with 1 KiB of buffer space.
SramConfig small_sram() {
  SramConfig c;
  c.size_bytes = 64u << 10;
  c.buffer_bytes = 1u << 10;
  return c;
}

TEST(Sram, AllocateThrowsWhenABufferDoesNotFit) {
  test::use_ps_resolution();
  Sram sram("sram", small_sram());
  const uint64_t size = small_sram().size_bytes;
  ASSERT_EQ(size, 64u << 10);

  const std::string too_big = allocation_error(sram, size + 1, 64);
  EXPECT_NE(too_big.find("does not fit"), std::string::npos) << too_big;
  EXPECT_NE(too_big.find("test buffer"), std::string::npos) << too_big;

  // Offsets are aligned and do not overlap.
  EXPECT_EQ(sram.allocate(100, 64, "a"), 0u);
  EXPECT_EQ(sram.allocate(100, 64, "b"), 128u);
  EXPECT_EQ(sram.allocate(1, 1024, "c"), 1024u);
  // 1025 bytes used: the rest (63 KiB - 1 B) fits exactly, one byte more does not.
  const std::string over = allocation_error(sram, size - 1025 + 1, 1);
  EXPECT_NE(over.find("does not fit"), std::string::npos) << over;
  EXPECT_EQ(sram.allocate(size - 1025, 1, "rest"), 1025u);
  const std::string full = allocation_error(sram, 1, 1);
  EXPECT_NE(full.find("does not fit"), std::string::npos) << full;
}

TEST(Sram, AlignmentPaddingThatRunsPastTheEndDoesNotFit) {
  test::use_ps_resolution();
  Sram sram("sram", small_sram());
  const uint64_t size = small_sram().size_bytes;
  EXPECT_EQ(sram.allocate(size - 100, 1, "most"), 0u);
  // 100 bytes are free, but a 64-byte block aligned to 4 KiB would start at the end.
  const std::string msg = allocation_error(sram, 64, 4096);
  EXPECT_NE(msg.find("does not fit"), std::string::npos) << msg;
  EXPECT_EQ(sram.allocate(64, 4, "small"), size - 100);
}

} // namespace
} // namespace npu
