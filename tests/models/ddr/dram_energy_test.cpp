// DRAM energy by DRAMPower's method: hand-computed figures, the background accounting of
// DramTimingState, and its behaviour under a real controller.
#include "dram_test_util.h"
#include "models/ddr/dram_energy.h"
#include "models/ddr/dram_timing_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace npu {
namespace {

using test::Bench;

// Offers a request at `cycle` or, while its queue is full, at the next event.
void offer(Bench& b, uint64_t address, bool is_write, uint64_t cycle) {
  cycle = std::max(cycle, b.channel.now());
  while (!b.channel.can_accept(is_write)) {
    cycle = std::max(cycle, b.channel.next_event());
    b.channel.advance_to(cycle);
  }
  b.send(address, is_write, cycle);
}

double part(const BlockEnergy& e, const std::string& name) {
  for (const EnergyPart& p : e.parts)
    if (p.name == name)
      return p.pj;
  ADD_FAILURE() << "no part " << name;
  return 0;
}

void expect_rel(double actual, double expected, double rel = 1e-9) {
  EXPECT_NEAR(actual, expected, std::abs(expected) * rel) << "expected " << expected;
}

// LPDDR4-3200, one x16 device: ACT at 10, four RDs, PRE at 120, REF at 200, end at 1000.
// Figures written out from the JEDEC_8Gb_LPDDR4-3200_16bit memspec currents (VDD1 1.8 V,
// VDD2 1.1 V), tCK 0.625 ns, tRAS 68, tRC - tRAS 29, burst 16, tRFC 448, tRP 29.
TEST(DramEnergy, MatchesHandComputedDramPowerFigures) {
  const DramSpec spec = dram_preset("LPDDR4-3200");
  DramTimingState s(spec);
  s.activate(0, 7, 10);
  for (uint64_t t : {39, 55, 71, 87})
    s.column(0, false, t);
  EXPECT_TRUE(s.precharge(0, 120));
  s.refresh(0, 200);
  const DramActivity a = s.activity(1000);
  // Precharged [0,10) [120,200) [619,1000); active [10,120) and the REF's 448 - 29.
  EXPECT_EQ(a.active_cycles, 110u + 419u);
  EXPECT_EQ(a.precharged_cycles, 10u + 80u + 381u);
  EXPECT_EQ(a.activates, 1u);
  EXPECT_EQ(a.precharges, 1u);
  EXPECT_EQ(a.reads, 4u);
  EXPECT_EQ(a.refreshes, 1u);

  const double ck = 0.625;
  const double act = 68 * ck * ((3.5 - 2.25) * 1.8 + (45 - 30) * 1.1);
  const double pre = 29 * ck * ((3.5 - 2.0) * 1.8 + (45 - 27) * 1.1);
  const double rd = 4 * 16 * ck * ((2.25 - 2.25) * 1.8 + (275 - 30) * 1.1);
  const double ref = 448 * ck * ((10 - 2.25) * 1.8 + (90 - 30) * 1.1);
  const double bg_act = 529 * ck * (2.25 * 1.8 + 30 * 1.1);
  const double bg_pre = 471 * ck * (2.0 * 1.8 + 27 * 1.1);
  const double io = 4 * 512 * (150 * 1.1 * 16 * ck / 512);
  const BlockEnergy e = dram_energy(spec, a);
  EXPECT_EQ(e.block, "ddr");
  expect_rel(part(e, "activate"), act);
  expect_rel(part(e, "precharge"), pre);
  expect_rel(part(e, "read"), rd);
  EXPECT_EQ(part(e, "write"), 0);
  expect_rel(part(e, "refresh"), ref);
  expect_rel(part(e, "background_active"), bg_act);
  expect_rel(part(e, "background_precharged"), bg_pre);
  expect_rel(part(e, "io"), io);
  expect_rel(e.total_pj(), act + pre + rd + ref + bg_act + bg_pre + io);
}

// DDR4-3200: eight x8 devices, and VPP carries only IPP0 (as DRAMSys hands it to DRAMPower).
TEST(DramEnergy, CountsEveryDeviceOfTheRankAndTheVppRail) {
  const DramSpec spec = dram_preset("DDR4-3200");
  EXPECT_EQ(dram_devices_per_rank(spec), 8u);
  DramActivity a;
  a.activates = 3;
  a.writes = 2;
  a.refreshes = 1;
  a.active_cycles = 100;
  const BlockEnergy e = dram_energy(spec, a);
  const double ck = 0.625;
  // Micron 8 Gb x8 DDR4-3200: VDD 1.2 V (IDD0 57, IDD3N 56, IDD4W 155, IDD5 66 mA), VPP
  // 2.5 V (IPP0 = IPP3N = IPP4W = 3, IPP5 5 mA).
  expect_rel(part(e, "activate"), 8 * 3 * 52 * ck * ((57 - 56) * 1.2 + (3 - 3) * 2.5));
  expect_rel(part(e, "write"), 8 * 2 * 4 * ck * (155 - 56) * 1.2);
  expect_rel(part(e, "refresh"), 8 * 1 * 576 * ck * ((66 - 56) * 1.2 + (5 - 3) * 2.5));
  expect_rel(part(e, "background_active"), 8 * 100 * ck * (56 * 1.2 + 3 * 2.5));
  expect_rel(part(e, "io"), 2 * 512 * 6.640625);
}

TEST(DramEnergy, PartsAddUpToTheTotalExactly) {
  Bench b(test::ddr4(), DramControllerConfig{});
  std::mt19937_64 rng(7);
  for (uint64_t i = 0; i < 400; ++i)
    offer(b, b.addr(rng() % 4, rng() % 4, rng() % 64, rng() % 128), rng() % 3 == 0, i * 40);
  b.drain();
  const BlockEnergy e = dram_energy(b.spec, b.channel.activity(b.channel.now()));
  ASSERT_EQ(e.parts.size(), 8u);
  double sum = 0;
  for (const EnergyPart& p : e.parts) {
    EXPECT_GT(p.pj, 0) << p.name;
    sum += p.pj;
  }
  EXPECT_EQ(e.total_pj(), sum);
}

// Every rank's active and precharged cycles cover the run exactly, under open and closed
// pages (auto-precharges close banks ahead of later commands) with refresh and two ranks.
TEST(DramEnergy, BackgroundCyclesCoverTheRunPerRank) {
  for (const auto policy :
       {DramControllerConfig::PagePolicy::Open, DramControllerConfig::PagePolicy::Closed}) {
    DramSpec spec = test::ddr4();
    spec.ranks = 2;
    DramControllerConfig config;
    config.page_policy = policy;
    Bench b(spec, config, *dram_mapping_scheme("RoRaBaCoCh"));
    std::mt19937_64 rng(11);
    for (uint64_t i = 0; i < 3000; ++i)
      offer(b, b.addr(rng() % 4, rng() % 4, rng() % 8, rng() % 128, rng() % 2), rng() % 2 == 0,
            i * 12);
    b.drain();
    const DramTimingState& s = b.channel.timing();
    for (uint64_t end : {b.channel.now(), b.channel.now() + 5000}) {
      for (uint32_t r = 0; r < 2; ++r) {
        const DramTimingState::Background bg = s.background(r, end);
        EXPECT_EQ(bg.active_cycles + bg.precharged_cycles, end) << "rank " << r;
        EXPECT_GT(bg.active_cycles, 0u);
      }
    }
    EXPECT_GT(b.channel.stats().refreshes, 0u);
    EXPECT_EQ(s.activity(b.channel.now()).precharges, b.channel.stats().precharges);
  }
}

// The open interval is closed at the end of the run: a row left open keeps the rank in
// active standby up to the end, and a refresh cut short counts only up to it.
TEST(DramEnergy, ClosesTheOpenIntervalAtTheEnd) {
  DramTimingState s(test::ddr4());
  s.activate(3, 1, 10);
  DramTimingState::Background bg = s.background(0, 1000);
  EXPECT_EQ(bg.active_cycles, 990u);
  EXPECT_EQ(bg.precharged_cycles, 10u);
  const DramSpec spec = test::ddr4();
  const double longer = dram_energy(spec, s.activity(2000)).total_pj();
  const double shorter = dram_energy(spec, s.activity(1000)).total_pj();
  expect_rel(longer - shorter, 8 * 1000 * 0.625 * (56 * 1.2 + 3 * 2.5));

  DramTimingState r(test::ddr4());
  r.refresh(0, 100); // active to 100 + 576 - 22 = 654
  bg = r.background(0, 300);
  EXPECT_EQ(bg.active_cycles, 200u);
  EXPECT_EQ(bg.precharged_cycles, 100u);
}

// An auto-precharge closes its bank when it starts, after later commands were issued.
TEST(DramEnergy, AutoPrechargeClosesWhenItStarts) {
  DramTimingState s(test::ddr4());
  s.activate(0, 1, 10);
  s.column(0, false, 32);
  s.auto_precharge(0); // starts at max(10 + tRAS 52, 32 + tRTP 12) = 62
  DramTimingState::Background bg = s.background(0, 50);
  EXPECT_EQ(bg.active_cycles, 40u);
  bg = s.background(0, 1000);
  EXPECT_EQ(bg.active_cycles, 52u);
  EXPECT_EQ(bg.precharged_cycles, 948u);
  s.activate(1, 1, 40); // before the auto-precharge: the rank stays active throughout
  bg = s.background(0, 1000);
  EXPECT_EQ(bg.active_cycles, 990u);
  EXPECT_TRUE(s.precharge(1, 500));
  bg = s.background(0, 1000);
  EXPECT_EQ(bg.active_cycles, 490u);
  EXPECT_EQ(bg.precharged_cycles, 510u);
}

// Row conflicts cost ACT/PRE pairs: the same reads to alternating rows of one bank spend
// more activate energy than to one row.
TEST(DramEnergy, RowConflictsCostMoreActivateEnergy) {
  const auto run = [](bool conflict) {
    Bench b;
    for (uint64_t i = 0; i < 64; ++i)
      b.closed_loop(b.addr(1, 2, conflict ? i % 2 : 0, static_cast<uint32_t>(i)), false,
                    b.channel.now() + 1);
    return dram_energy(b.spec, b.channel.activity(b.channel.now()));
  };
  const BlockEnergy hits = run(false);
  const BlockEnergy conflicts = run(true);
  EXPECT_GT(part(conflicts, "activate"), 30 * part(hits, "activate"));
  EXPECT_GT(part(conflicts, "precharge"), part(hits, "precharge"));
  EXPECT_EQ(part(conflicts, "read"), part(hits, "read"));
  EXPECT_GT(conflicts.total_pj(), hits.total_pj());
}

} // namespace
} // namespace npu
