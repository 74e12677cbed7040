// Helpers shared by the block tests: a thread-only module, a TLM initiator whose thread
// runs a test body, and statistic lookup.
#pragma once

#include "common/error.h"
#include "models/common/stats.h"
#include "models/common/tlm_util.h"

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npu::test {

/// Every test calls this first: the models count in integer picoseconds.
inline void use_ps_resolution() {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
}

/// Current simulated time in picoseconds.
inline uint64_t now_ps() {
  return to_ps(sc_core::sc_time_stamp());
}

/// A module whose one SC_THREAD runs `body` (wrapped in guarded()) at time zero.
class TestThread : public sc_core::sc_module {
public:
  TestThread(sc_core::sc_module_name name, std::function<void()> body)
      : sc_module(name), m_body(std::move(body)) {
    SC_HAS_PROCESS(TestThread);
    SC_THREAD(run);
  }
  /// True once the body returned normally.
  bool finished() const { return m_finished; }

private:
  void run() {
    guarded([this] {
      m_body();
      m_finished = true;
    });
  }

  std::function<void()> m_body;
  bool m_finished = false;
};

/// A TLM initiator whose one SC_THREAD runs `body(*this)` (wrapped in guarded()).
class TestInitiator : public sc_core::sc_module {
public:
  tlm_utils::simple_initiator_socket<TestInitiator> socket;

  TestInitiator(sc_core::sc_module_name name, std::function<void(TestInitiator&)> body)
      : sc_module(name), socket("socket"), m_body(std::move(body)) {
    SC_HAS_PROCESS(TestInitiator);
    SC_THREAD(run);
  }

  /// Blocking transport of `len` bytes at `addr`; `delay` is the annotated time in and out.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len,
                                  sc_core::sc_time& delay) {
    NpuExtension tag;
    tag.who = Initiator::Unknown;
    return transact(socket, cmd, addr, data, len, tag, delay);
  }
  /// Issues at the current time with no annotation; returns (status, delay in ps).
  std::pair<tlm::tlm_response_status, uint64_t> access_now(tlm::tlm_command cmd, uint64_t addr,
                                                           uint8_t* data, uint32_t len) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const auto status = access(cmd, addr, data, len, delay);
    return {status, to_ps(delay)};
  }
  bool finished() const { return m_finished; }

private:
  void run() {
    guarded([this] {
      m_body(*this);
      m_finished = true;
    });
  }

  std::function<void(TestInitiator&)> m_body;
  bool m_finished = false;
};

/// The message of the exception a guarded process threw, or nullopt if none did.
inline std::optional<std::string> failure_message() {
  const std::exception_ptr failure = simulation_failure();
  if (!failure)
    return std::nullopt;
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("(not a std::exception)");
  }
}

/// Value of statistic `name` in group `block`; fails the test when absent.
inline double stat(const std::vector<StatGroup>& groups, const std::string& block,
                   const std::string& name) {
  for (const auto& g : groups) {
    if (g.block != block)
      continue;
    for (const auto& s : g.stats)
      if (s.name == name)
        return s.value;
  }
  ADD_FAILURE() << "no statistic " << block << "." << name;
  return -1;
}
inline double stat(const StatGroup& group, const std::string& name) {
  return stat(std::vector<StatGroup>{group}, group.block, name);
}

/// Deterministic pseudo-random bytes (xorshift64*), different per seed.
inline std::vector<uint8_t> pattern(size_t bytes, uint64_t seed) {
  std::vector<uint8_t> out(bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& b : out) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    b = static_cast<uint8_t>((x * 0x2545F4914F6CDD1Dull) >> 56);
  }
  return out;
}

} // namespace npu::test
