// ps() turns picoseconds into an sc_time of exactly that many resolution steps (1 ps), the
// same as sc_time::from_value, across the range where it copies the value in and beyond.
#include "models/common/tlm_util.h"

#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>

namespace npu::test {
namespace {

TEST(Ps, IsTheValueAtOnePicosecondResolution) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  const uint64_t big = uint64_t{1} << 52;
  for (const uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{1234567}, uint64_t{999999999999},
                           big - 1, big, big + 2, uint64_t{1} << 53, (uint64_t{1} << 60) + 3}) {
    EXPECT_EQ(ps(v).value(), v) << v;
    EXPECT_EQ(ps(v), sc_core::sc_time::from_value(v)) << v;
  }
  EXPECT_EQ(ps(1500), sc_core::sc_time(1.5, sc_core::SC_NS));
  EXPECT_EQ(ps(7) + ps(5) - ps(2), ps(10));
}

} // namespace
} // namespace npu::test
