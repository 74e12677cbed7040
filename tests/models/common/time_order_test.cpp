// TimeOrder resumes the threads due at one time in the order of their keys, whatever the
// order they called in and the order SystemC would resume them in; a thread that asks again
// for the time it was resumed at goes after every thread that was due at it already.
#include "models/common/time_order.h"
#include "models/common/tlm_util.h"

#include <gtest/gtest.h>
#include <systemc>

#include <vector>

namespace npu::test {
namespace {

struct Sleepers : sc_core::sc_module {
  TimeOrder order{"order"};
  std::vector<int> resumed; ///< thread ids in the order they resumed
  std::vector<uint64_t> at; ///< and when

  explicit Sleepers(sc_core::sc_module_name name) : sc_module(name) {
    // Thread i asks at (i % 3) ns for 10 ns with key 5 - i: the calls come in an order that
    // is neither the keys' nor the reverse.
    for (int i = 0; i < 6; ++i)
      sc_core::sc_spawn([this, i] { sleeper(i); });
    sc_core::sc_spawn([this] { again(); });
  }

  void record(int id) {
    resumed.push_back(id);
    at.push_back(to_ps(sc_core::sc_time_stamp()));
  }

  void sleeper(int i) {
    sc_core::wait(static_cast<double>(i % 3), sc_core::SC_NS);
    order.wait_until(10000, {TimeOrder::kDma, static_cast<uint64_t>(5 - i), 0});
    record(i);
  }

  /// Due at 10 ns with the largest key, it asks again for 10 ns with the smallest.
  void again() {
    order.wait_until(10000, {TimeOrder::kInstructionCache, 0, 0});
    record(100);
    order.wait_until(10000, {TimeOrder::kDma, 0, 0});
    record(101);
  }
};

TEST(TimeOrder, ResumesThreadsDueAtOneTimeByKeyThenThoseThatAskAtIt) {
  Sleepers s("sleepers");
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
  EXPECT_EQ(s.resumed, (std::vector<int>{5, 4, 3, 2, 1, 0, 100, 101}));
  EXPECT_EQ(s.at, std::vector<uint64_t>(8, 10000));
}

} // namespace
} // namespace npu::test
