// The cycle-approximate DRAM channel: closed-loop latencies, one test per JEDEC
// constraint (read from command timestamps), scheduling policy, write draining, refresh.
#include "tests/models/ddr/dram_test_util.h"

#include <random>

namespace npu::test {
namespace {

// DDR4-3200 (issue 3): CL 22, RCD 22, RP 22, BL8 = 4 clocks, plus one command cycle.
TEST(DramLatency, RowHitTakes27Cycles) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 5), false, 0); // opens row 5
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 5, 1), false, 200), 27u);
}

TEST(DramLatency, ClosedBankTakes49Cycles) {
  Bench b;
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 5), false, 0), 49u);
  // Another bank is closed too, later on.
  EXPECT_EQ(b.closed_loop(b.addr(2, 3, 9), false, 500), 49u);
}

TEST(DramLatency, RowConflictTakes71Cycles) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 5), false, 0);
  b.closed_loop(b.addr(0, 0, 5, 1), false, 200);
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 6), false, 400), 71u);
}

TEST(DramLatency, BackToBackClosedLoopSequenceMatchesTheBreakdown) {
  // Each request enters when the previous one's data burst ends.
  Bench b;
  uint64_t cycle = 0;
  const auto next = [&](uint64_t address) {
    const uint64_t l = b.closed_loop(address, false, cycle);
    cycle += l;
    return l;
  };
  EXPECT_EQ(next(b.addr(1, 2, 7)), 49u);    // closed bank
  EXPECT_EQ(next(b.addr(1, 2, 7, 3)), 27u); // hit
  EXPECT_EQ(next(b.addr(1, 2, 7, 4)), 27u); // hit
  // Conflict: the ACT was 76 cycles ago, so tRAS (52) no longer holds the PRE back.
  EXPECT_EQ(next(b.addr(1, 2, 8)), 71u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramLatency, ClosedLoopWriteEndsWithItsDataBurst) {
  Bench b;
  // CWL 16 + burst 4 + one command cycle after the ACT's tRCD.
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 1), true, 0), 1u + 22 + 16 + 4);
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 1, 1), true, 300), 1u + 16 + 4);
}

TEST(DramTiming, FifthActWaitsForTheFourActivateWindow) {
  Bench b;
  // Five closed banks in alternating bank groups: tRRD_S (4) alone would allow ACTs at
  // 1, 5, 9, 13, 17; tFAW (34) holds the fifth until 1 + 34.
  const uint32_t groups[] = {0, 1, 2, 3, 0};
  const uint32_t banks[] = {0, 0, 0, 0, 1};
  for (int i = 0; i < 5; ++i)
    b.send(b.addr(groups[i], banks[i], 10), false, 0);
  b.drain();
  const auto acts = b.commands(DramCommand::ACT);
  ASSERT_EQ(acts.size(), 5u);
  for (int i = 1; i < 4; ++i)
    EXPECT_EQ(acts[i].cycle, acts[i - 1].cycle + b.spec.t.RRD_S) << i;
  EXPECT_GE(acts[4].cycle, acts[0].cycle + b.spec.t.FAW);
  // The RD of the fourth request takes cycle 35; the fifth ACT goes right after it.
  EXPECT_LE(acts[4].cycle, acts[0].cycle + b.spec.t.FAW + 1);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramTiming, FourActivateWindowIsExactWhenNothingElseCompetes) {
  DramSpec s = ddr4();
  s.t.FAW = 40; // the fifth ACT at 41 collides with no RD (those are at 23, 27, 31, 35)
  Bench b(s);
  const uint32_t groups[] = {0, 1, 2, 3, 0};
  const uint32_t banks[] = {0, 0, 0, 0, 1};
  for (int i = 0; i < 5; ++i)
    b.send(b.addr(groups[i], banks[i], 10), false, 0);
  b.drain();
  const auto acts = b.commands(DramCommand::ACT);
  ASSERT_EQ(acts.size(), 5u);
  EXPECT_EQ(acts[4].cycle, acts[0].cycle + 40);
}

TEST(DramTiming, ActToActUsesRrdLongInOneBankGroupAndShortAcross) {
  Bench same;
  same.send(same.addr(2, 0, 1), false, 0);
  same.send(same.addr(2, 1, 1), false, 0);
  same.drain();
  auto acts = same.commands(DramCommand::ACT);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[1].cycle - acts[0].cycle, same.spec.t.RRD_L); // 8

  Bench other;
  other.send(other.addr(2, 0, 1), false, 0);
  other.send(other.addr(3, 0, 1), false, 0);
  other.drain();
  acts = other.commands(DramCommand::ACT);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[1].cycle - acts[0].cycle, other.spec.t.RRD_S); // 4
}

// Opens the rows, then reads twice more at `cycle`; returns the gap between the RDs.
uint64_t read_gap(uint32_t bg_a, uint32_t bank_a, uint32_t bg_b, uint32_t bank_b) {
  Bench b;
  b.closed_loop(b.addr(bg_a, bank_a, 3), false, 0);
  if (bg_a != bg_b || bank_a != bank_b)
    b.closed_loop(b.addr(bg_b, bank_b, 3), false, 100);
  b.send(b.addr(bg_a, bank_a, 3, 1), false, 300);
  b.send(b.addr(bg_b, bank_b, 3, 2), false, 300);
  b.drain();
  const auto rds = b.commands(DramCommand::RD);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
  return rds.back().cycle - rds[rds.size() - 2].cycle;
}

TEST(DramTiming, ColumnToColumnUsesCcdLongInOneBankGroupAndShortAcross) {
  const DramSpec s = ddr4();
  EXPECT_EQ(read_gap(1, 0, 1, 0), s.t.CCD_L); // same bank: 8
  EXPECT_EQ(read_gap(1, 0, 1, 2), s.t.CCD_L); // same bank group, other bank: 8
  EXPECT_EQ(read_gap(1, 0, 2, 0), s.t.CCD_S); // other bank group: 4
}

TEST(DramTiming, WritesToOneBankGroupAlsoUseCcdLong) {
  Bench b;
  b.closed_loop(b.addr(1, 0, 3), true, 0);
  b.send(b.addr(1, 0, 3, 1), true, 300);
  b.send(b.addr(1, 0, 3, 2), true, 300);
  b.drain();
  const auto wrs = b.commands(DramCommand::WR);
  ASSERT_EQ(wrs.size(), 3u);
  EXPECT_EQ(wrs[2].cycle - wrs[1].cycle, b.spec.t.CCD_L);
}

// A write, then a read one cycle later; returns WR -> RD in cycles.
uint64_t write_to_read(uint32_t read_group) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 4), false, 0);
  b.closed_loop(b.addr(read_group, 1, 4), false, 100);
  b.send(b.addr(0, 0, 4, 1), true, 300);
  b.channel.advance_to(301); // the WR issues at 301
  b.send(b.addr(read_group, 1, 4, 1), false, 301);
  b.drain();
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
  return b.first(DramCommand::RD, 302).cycle - b.first(DramCommand::WR).cycle;
}

TEST(DramTiming, ReadAfterWriteWaitsForWriteToReadTurnaround) {
  const DramSpec s = ddr4();
  // CWL + BL/2 + tWTR: 16 + 4 + 12 in one bank group, 16 + 4 + 4 across.
  EXPECT_EQ(write_to_read(0), s.t.CWL + s.burst_cycles() + s.t.WTR_L);
  EXPECT_EQ(write_to_read(1), s.t.CWL + s.burst_cycles() + s.t.WTR_S);
}

TEST(DramTiming, WriteAfterReadWaitsForReadToWriteTurnaround) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 4), false, 0);
  b.send(b.addr(0, 0, 4, 1), false, 300);
  b.channel.advance_to(301);
  b.send(b.addr(0, 0, 4, 2), true, 301);
  b.drain();
  const uint64_t rd = b.first(DramCommand::RD, 300).cycle;
  const uint64_t wr = b.first(DramCommand::WR).cycle;
  EXPECT_EQ(wr - rd, b.spec.t.CL + b.spec.burst_cycles() + 2 - b.spec.t.CWL); // 12
}

TEST(DramTiming, PrechargeWaitsForRasAfterActivate) {
  Bench b;
  b.send(b.addr(0, 0, 1), false, 0); // ACT at 1, RD at 23
  b.send(b.addr(0, 0, 2), false, 2); // conflict: PRE waits for tRAS, not just tRTP
  b.drain();
  const auto act = b.first(DramCommand::ACT);
  const auto pre = b.first(DramCommand::PRE);
  EXPECT_EQ(pre.cycle - act.cycle, b.spec.t.RAS);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramTiming, PrechargeWaitsForReadToPrecharge) {
  DramSpec s = ddr4();
  s.t.RAS = 23; // let tRTP bind: RD at 23, PRE not before 23 + 12
  s.t.RC = 45;
  Bench b(s);
  b.send(b.addr(0, 0, 1), false, 0);
  b.send(b.addr(0, 0, 2), false, 2);
  b.drain();
  EXPECT_EQ(b.first(DramCommand::PRE).cycle - b.first(DramCommand::RD).cycle, s.t.RTP);
}

TEST(DramTiming, PrechargeWaitsForWriteRecovery) {
  Bench b;
  b.send(b.addr(0, 0, 1), true, 0); // ACT at 1, WR at 23
  b.send(b.addr(0, 0, 2), true, 2); // conflict
  b.drain();
  const auto wr = b.first(DramCommand::WR);
  const auto pre = b.first(DramCommand::PRE);
  // CWL + BL/2 + tWR = 16 + 4 + 24 after the WR (later than tRAS).
  EXPECT_EQ(pre.cycle - wr.cycle, b.spec.t.CWL + b.spec.burst_cycles() + b.spec.t.WR);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramTiming, ActivateWaitsForRpAfterPrecharge) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 1), false, 0);
  b.closed_loop(b.addr(0, 0, 2), false, 200); // tRC and tRAS long satisfied
  const auto pre = b.first(DramCommand::PRE);
  const auto act = b.first(DramCommand::ACT, pre.cycle);
  EXPECT_EQ(act.cycle - pre.cycle, b.spec.t.RP);
  EXPECT_EQ(b.first(DramCommand::RD, act.cycle).cycle - act.cycle, b.spec.t.RCD);
}

TEST(DramTiming, ActivateToActivateInOneBankWaitsForRc) {
  DramSpec s = ddr4();
  s.t.RC = 90; // longer than tRAS + tRP (74) so that tRC binds
  Bench b(s);
  b.send(b.addr(0, 0, 1), false, 0);
  b.send(b.addr(0, 0, 2), false, 2);
  b.drain();
  const auto acts = b.commands(DramCommand::ACT);
  ASSERT_EQ(acts.size(), 2u);
  EXPECT_EQ(acts[1].cycle - acts[0].cycle, 90u);
}

TEST(DramRefresh, RefreshesEveryRefiAndBlocksTheRankForRfc) {
  DramControllerConfig c;
  c.refresh = true;
  Bench b(ddr4(), c);
  const DramTiming& t = b.spec.t;
  // Idle: refreshes come exactly every tREFI.
  b.channel.advance_to(3 * t.REFI + 10);
  auto refs = b.commands(DramCommand::REF);
  ASSERT_EQ(refs.size(), 3u);
  for (size_t i = 0; i < refs.size(); ++i)
    EXPECT_EQ(refs[i].cycle, (i + 1) * t.REFI);
  EXPECT_EQ(b.channel.stats().refreshes, 3u);
  // A read that arrives at the fourth REF waits tRFC for its ACT.
  b.channel.advance_to(4 * t.REFI - 1);
  b.send(b.addr(0, 0, 1), false, 4 * t.REFI - 1);
  b.drain();
  refs = b.commands(DramCommand::REF);
  ASSERT_EQ(refs.size(), 4u);
  EXPECT_EQ(refs[3].cycle, 4u * t.REFI);
  const auto act = b.first(DramCommand::ACT);
  EXPECT_EQ(act.cycle, refs[3].cycle + t.RFC);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

// Bursts of requests between idle gaps of up to five refresh intervals, on a channel
// that logs its commands (each refresh issued on its own, in decide()'s order) and one
// that does not (an idle rank's due refreshes issued as one run): the same completions,
// counters and energy activity.
void idle_refresh_runs_match_one_by_one(const DramSpec& spec, DramControllerConfig c) {
  c.refresh = true;
  Bench logged(spec, c, *dram_mapping_scheme("RoRaBaCoCh"));
  Bench quiet(spec, c, *dram_mapping_scheme("RoRaBaCoCh"));
  quiet.channel.set_command_log(false);
  std::mt19937_64 rng(7);
  const uint64_t lines = (1ull << 26) / 64;
  uint64_t cycle = 0;
  for (int burst = 0; burst < 60; ++burst) {
    cycle += rng() % (5 * uint64_t{spec.t.REFI});
    const uint64_t n = 1 + rng() % 6;
    for (uint64_t i = 0; i < n && logged.channel.can_accept(i % 3 == 2); ++i) {
      const uint64_t address = (rng() % lines) * 64;
      logged.send(address, i % 3 == 2, cycle);
      quiet.send(address, i % 3 == 2, cycle);
    }
    if (rng() % 2) { // sometimes drained, sometimes left behind with work in flight
      logged.drain();
      quiet.drain();
      cycle = std::max({cycle, logged.channel.now(), quiet.channel.now()});
    }
  }
  cycle += 7 * uint64_t{spec.t.REFI} + 3;
  logged.channel.advance_to(cycle);
  quiet.channel.advance_to(cycle);
  logged.drain();
  quiet.drain();
  EXPECT_EQ(logged.done, quiet.done);
  const DramChannelStats &a = logged.channel.stats(), &b = quiet.channel.stats();
  EXPECT_GT(a.refreshes, 100u);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.precharges, b.precharges);
  EXPECT_EQ(a.activates, b.activates);
  EXPECT_EQ(a.read_latency_sum_cycles, b.read_latency_sum_cycles);
  const uint64_t end = std::max(logged.channel.now(), quiet.channel.now());
  const DramActivity x = logged.channel.activity(end), y = quiet.channel.activity(end);
  EXPECT_EQ(x.refreshes, y.refreshes);
  EXPECT_EQ(x.precharges, y.precharges);
  EXPECT_EQ(x.active_cycles, y.active_cycles);
  EXPECT_EQ(x.precharged_cycles, y.precharged_cycles);
  EXPECT_EQ(check_jedec(logged.spec, logged.channel.command_log()), "");
}

TEST(DramRefresh, AnIdleRanksRunOfRefreshesMatchesTheOneByOneOrder) {
  for (const std::string& name : dram_preset_names()) {
    for (const uint32_t ranks : {1u, 2u, 4u}) {
      for (const auto page :
           {DramControllerConfig::PagePolicy::Open, DramControllerConfig::PagePolicy::Closed}) {
        SCOPED_TRACE(name + " ranks " + std::to_string(ranks) +
                     (page == DramControllerConfig::PagePolicy::Open ? " open" : " closed"));
        DramSpec s = dram_preset(name);
        s.ranks = ranks;
        DramControllerConfig c;
        c.page_policy = page;
        idle_refresh_runs_match_one_by_one(s, c);
      }
    }
  }
}

TEST(DramRefresh, OpenBanksArePrechargedBeforeRefreshAndRefreshKeepsPaceUnderLoad) {
  DramControllerConfig c;
  c.refresh = true;
  Bench b(ddr4(), c);
  const DramTiming& t = b.spec.t;
  // Keep the read queue full with row hits for 8 refresh intervals.
  uint64_t cycle = 0;
  uint32_t column = 0;
  while (cycle < 8ull * t.REFI) {
    b.channel.advance_to(cycle);
    if (b.channel.can_accept(false)) {
      b.send(b.addr(column % 4, 0, 1, (column / 4) % 128), false, cycle);
      ++column;
    }
    ++cycle;
  }
  b.drain();
  const auto refs = b.commands(DramCommand::REF);
  ASSERT_GE(refs.size(), 8u);
  for (size_t i = 0; i < refs.size(); ++i) {
    // Each refresh waits at most for the precharge (tRTP) and tRP.
    EXPECT_GE(refs[i].cycle, (i + 1) * t.REFI);
    EXPECT_LE(refs[i].cycle, (i + 1) * t.REFI + t.RTP + t.RP + 2) << i;
    const auto prea = b.first(DramCommand::PREA, (i + 1) * t.REFI);
    EXPECT_EQ(refs[i].cycle, prea.cycle + t.RP) << i;
    // Nothing touches the rank while it refreshes.
    for (const auto& r : b.channel.command_log()) {
      if (r.cycle > refs[i].cycle && r.cycle < refs[i].cycle + t.RFC) {
        ADD_FAILURE() << dram_command_name(r.command) << " at " << r.cycle << " during tRFC";
      }
    }
  }
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramScheduler, FrFcfsServesAYoungerRowHitBeforeAnOlderMiss) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 1), false, 0); // row 1 open in bank (0,0)
  // Both arrive in one cycle; the miss is older.
  const uint64_t older_miss = b.send(b.addr(0, 0, 2), false, 300);
  const uint64_t younger_hit = b.send(b.addr(0, 0, 1, 5), false, 300);
  b.drain();
  EXPECT_LT(b.done.at(younger_hit), b.done.at(older_miss));
  // The hit's RD comes before the PRE that closes its row.
  EXPECT_LT(b.first(DramCommand::RD, 300).cycle, b.first(DramCommand::PRE).cycle);
  EXPECT_EQ(b.first(DramCommand::RD, 300).row, 1u);
}

TEST(DramScheduler, OldestFirstAmongEquals) {
  Bench b;
  b.closed_loop(b.addr(0, 0, 1), false, 0);
  b.closed_loop(b.addr(1, 0, 1), false, 100);
  const uint64_t first = b.send(b.addr(1, 0, 1, 9), false, 300);
  const uint64_t second = b.send(b.addr(0, 0, 1, 9), false, 300);
  b.drain();
  EXPECT_LT(b.done.at(first), b.done.at(second));
}

TEST(DramScheduler, ClosedPagePolicyPrechargesWithTheLastAccess) {
  DramControllerConfig c = Bench::no_refresh();
  c.page_policy = DramControllerConfig::PagePolicy::Closed;
  Bench b(ddr4(), c);
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 1), false, 0), 49u);
  // The row was closed with the RDA: the same row again is a closed-bank access.
  EXPECT_EQ(b.closed_loop(b.addr(0, 0, 1, 1), false, 300), 49u);
  EXPECT_EQ(b.commands(DramCommand::RDA).size(), 2u);
  EXPECT_TRUE(b.commands(DramCommand::PRE).empty());
  // Two queued requests to one row: the first keeps it open, the second closes it.
  b.send(b.addr(0, 0, 7, 1), false, 600);
  b.send(b.addr(0, 0, 7, 2), false, 600);
  b.drain();
  EXPECT_EQ(b.commands(DramCommand::RD).size(), 1u);
  EXPECT_EQ(b.commands(DramCommand::RDA).size(), 3u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramScheduler, WritesDrainBetweenTheHighAndLowWatermarks) {
  // 32-entry write queue, watermarks 0.8 / 0.2: drain from 26 down to 6 writes.
  Bench b;
  std::mt19937_64 rng(7);
  uint64_t cycle = 0;
  uint32_t read_line = 0;
  bool mode = b.channel.write_mode();
  int to_write = 0, to_read = 0;
  while (cycle < 60000) {
    b.channel.advance_to(cycle);
    if (b.channel.write_mode() != mode) {
      mode = b.channel.write_mode();
      // Reads are always waiting, so only the watermarks switch modes.
      ASSERT_GT(b.channel.queued(false), 0u);
      if (mode) {
        EXPECT_EQ(b.channel.queued(true), 26u) << "at " << cycle;
        ++to_write;
      } else {
        EXPECT_EQ(b.channel.queued(true), 6u) << "at " << cycle;
        ++to_read;
      }
    }
    if (b.channel.can_accept(false)) {
      b.send(b.addr(read_line % 4, 0, 1, (read_line / 4) % 128), false, cycle);
      ++read_line;
    }
    if (cycle % 32 == 0 && b.channel.can_accept(true)) {
      b.send(b.addr(static_cast<uint32_t>(rng() % 4), static_cast<uint32_t>(1 + rng() % 3),
                    rng() % 1000, static_cast<uint32_t>(rng() % 128)),
             true, cycle);
      if (b.channel.write_mode() && !mode) {
        mode = true;
        EXPECT_EQ(b.channel.queued(true), 26u) << "at " << cycle;
        ++to_write;
      }
    }
    ++cycle;
  }
  EXPECT_GE(to_write, 3);
  EXPECT_GE(to_read, 3);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramScheduler, ARowOpenedForAReadServesItAcrossASwitchToWrites) {
  // The read's ACT issues at 1; 26 writes at 2 start a drain before its RD may issue (tRCD).
  // The row stays the read's: its RD issues at 1 + tRCD, and the write to another row of
  // that bank precharges only after it, so the read needs one ACT, not two.
  Bench b;
  const uint64_t r = b.send(b.addr(0, 0, 1), false, 0);
  b.send(b.addr(0, 0, 2), true, 2);
  for (uint32_t i = 1; i < 26; ++i)
    b.send(b.addr(1 + i % 3, i % 4, 100 + i), true, 2);
  EXPECT_TRUE(b.channel.write_mode());
  b.drain();
  EXPECT_EQ(b.done.at(r), 1 + b.spec.t.RCD + b.spec.t.CL + b.spec.burst_cycles());
  size_t row1_acts = 0;
  for (const auto& c : b.commands(DramCommand::ACT))
    row1_acts += c.bankgroup == 0 && c.bank == 0 && c.row == 1;
  EXPECT_EQ(row1_acts, 1u);
  EXPECT_EQ(b.channel.stats().activates, 27u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
}

TEST(DramScheduler, WritesDrainWhenNoReadIsWaiting) {
  Bench b;
  const uint64_t w = b.send(b.addr(0, 0, 1), true, 0);
  b.drain();
  EXPECT_EQ(b.done.count(w), 1u);
  EXPECT_EQ(b.channel.stats().writes, 1u);
}

// Every command of a long random mix, checked against every constraint.
void random_mix_obeys_jedec(DramSpec spec, DramControllerConfig config,
                            const std::vector<DramField>& order, double write_share) {
  Bench b(spec, config, order);
  std::mt19937_64 rng(11);
  std::bernoulli_distribution is_write(write_share);
  const uint64_t lines = (1ull << 28) / 64;
  uint64_t cycle = 0;
  uint64_t sent = 0;
  while (sent < 20000) {
    b.channel.advance_to(cycle);
    const bool w = is_write(rng);
    if (b.channel.can_accept(w)) {
      // Half the requests revisit a small set of rows so that hits happen too.
      const uint64_t line = rng() % 2 ? rng() % lines : rng() % 4096;
      b.send(line * 64, w, cycle);
      ++sent;
    }
    ++cycle;
  }
  b.drain();
  EXPECT_EQ(b.done.size(), 20000u);
  EXPECT_EQ(b.channel.pending(), 0u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
  const auto& st = b.channel.stats();
  EXPECT_EQ(st.reads + st.writes, 20000u);
  EXPECT_EQ(st.row_hits + st.row_misses + st.row_conflicts, 20000u);
  EXPECT_GT(st.row_hits, 0u);
  if (config.refresh) {
    EXPECT_GT(st.refreshes, 0u);
  }
}

TEST(DramProperty, RandomMixOpenPageObeysEveryConstraint) {
  DramControllerConfig c;
  random_mix_obeys_jedec(ddr4(), c, *dram_mapping_scheme("RoBaCoBg"), 0.3);
}

TEST(DramProperty, RandomMixClosedPageObeysEveryConstraint) {
  DramControllerConfig c;
  c.page_policy = DramControllerConfig::PagePolicy::Closed;
  random_mix_obeys_jedec(ddr4(), c, *dram_mapping_scheme("RoBaRaCoCh"), 0.5);
}

TEST(DramProperty, TwoRanksObeyEveryConstraintIncludingRankSwitches) {
  DramSpec s = ddr4();
  s.ranks = 2;
  DramControllerConfig c;
  random_mix_obeys_jedec(s, c, *dram_mapping_scheme("RoRaBaCoCh"), 0.4);
  random_mix_obeys_jedec(s, c, *dram_mapping_scheme("RoCoBaRaCh"), 0.4);
}

TEST(DramProperty, EveryPresetObeysItsConstraints) {
  for (const std::string& name : dram_preset_names()) {
    SCOPED_TRACE(name);
    DramControllerConfig c;
    random_mix_obeys_jedec(dram_preset(name), c, *dram_mapping_scheme("RoBaRaCoCh"), 0.3);
  }
}

TEST(DramProperty, FcfsObeysEveryConstraint) {
  DramControllerConfig c;
  c.scheduler = DramControllerConfig::Scheduler::Fcfs;
  random_mix_obeys_jedec(ddr4(), c, *dram_mapping_scheme("RoBaCoBg"), 0.3);
  DramSpec s = ddr4();
  s.ranks = 2;
  c.page_policy = DramControllerConfig::PagePolicy::Closed;
  random_mix_obeys_jedec(s, c, *dram_mapping_scheme("RoRaBaCoCh"), 0.5);
}

// Requests alternate between two rows of each of four banks (one write in five), offered
// one per clock while the queues have room.
DramChannelStats ping_pong_rows(DramControllerConfig::Scheduler scheduler) {
  DramControllerConfig c = Bench::no_refresh();
  c.scheduler = scheduler;
  Bench b(ddr4(), c);
  uint64_t cycle = 0;
  for (uint32_t i = 0; i < 4000; ++cycle) {
    b.channel.advance_to(cycle);
    const bool w = i % 5 == 4;
    if (!b.channel.can_accept(w))
      continue;
    b.send(b.addr((i / 2) % 4, 0, i % 2, (i / 8) % 128), w, cycle);
    ++i;
  }
  b.drain();
  EXPECT_EQ(b.done.size(), 4000u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
  return b.channel.stats();
}

double row_hit_rate(const DramChannelStats& s) {
  return static_cast<double>(s.row_hits) /
         static_cast<double>(s.row_hits + s.row_misses + s.row_conflicts);
}

TEST(DramScheduler, FrFcfsGroupsRowHitsThatFcfsServesInArrivalOrder) {
  const DramChannelStats fr = ping_pong_rows(DramControllerConfig::Scheduler::FrFcfs);
  const DramChannelStats fcfs = ping_pong_rows(DramControllerConfig::Scheduler::Fcfs);
  // FCFS reopens a row for nearly every request; FR-FCFS serves each open row's queued
  // requests together, with fewer ACTs.
  EXPECT_LT(row_hit_rate(fcfs), 0.3) << row_hit_rate(fr);
  EXPECT_GT(row_hit_rate(fr), 0.6) << row_hit_rate(fcfs);
  EXPECT_LT(fr.activates * 2, fcfs.activates);
}

TEST(DramScheduler, FcfsServesAnOlderMissBeforeAYoungerRowHit) {
  DramControllerConfig c = Bench::no_refresh();
  c.scheduler = DramControllerConfig::Scheduler::Fcfs;
  Bench b(ddr4(), c);
  b.closed_loop(b.addr(0, 0, 1), false, 0); // row 1 open in bank (0,0)
  const uint64_t older_miss = b.send(b.addr(0, 0, 2), false, 300);
  const uint64_t younger_hit = b.send(b.addr(0, 0, 1, 5), false, 300);
  b.drain();
  EXPECT_LT(b.done.at(older_miss), b.done.at(younger_hit));
  EXPECT_EQ(b.channel.stats().row_conflicts, 2u);
}

TEST(DramChannelApi, NextEventIsIdleWithoutRequestsAndTimeOnlyMovesForward) {
  DramControllerConfig c;
  Bench b(ddr4(), c);
  EXPECT_EQ(b.channel.next_event(), std::numeric_limits<uint64_t>::max());
  b.send(b.addr(0, 0, 1), false, 10);
  EXPECT_EQ(b.channel.now(), 10u);
  EXPECT_EQ(b.channel.next_event(), 11u); // the ACT
  b.channel.advance_to(11);
  EXPECT_EQ(b.channel.next_event(), 11u + 22); // the RD
  b.drain();
  EXPECT_EQ(b.channel.next_event(), std::numeric_limits<uint64_t>::max());
  EXPECT_THROW(b.send(b.addr(0, 0, 1), false, 5), std::logic_error);
  // Statistics and latency percentiles.
  EXPECT_EQ(b.channel.stats().reads, 1u);
  EXPECT_EQ(b.channel.stats().row_misses, 1u);
  EXPECT_EQ(b.channel.read_latency_percentile_cycles(0.5), 49u);
  EXPECT_DOUBLE_EQ(b.channel.read_latency_mean_cycles(), 49.0);
  EXPECT_EQ(b.channel.stats().data_bus_busy_cycles, 4u);
}

TEST(DramChannelApi, QueueFullRefusesAndOnDoneMayEnqueue) {
  Bench b;
  for (int i = 0; i < 32; ++i)
    b.send(b.addr(0, 0, static_cast<uint64_t>(i)), false, 0);
  EXPECT_FALSE(b.channel.can_accept(false));
  EXPECT_TRUE(b.channel.can_accept(true));
  EXPECT_THROW(b.send(b.addr(0, 0, 99), false, 0), std::logic_error);
  // on_dequeue lets the next request in at the cycle a slot frees.
  std::vector<uint64_t> freed;
  b.channel.on_dequeue = [&](bool is_write, uint64_t cycle) {
    EXPECT_FALSE(is_write);
    freed.push_back(cycle);
    if (freed.size() <= 8)
      b.send(b.addr(1, 0, freed.size()), false, cycle);
  };
  b.drain();
  EXPECT_EQ(freed.size(), 40u);
  EXPECT_EQ(b.commands(DramCommand::RD).front().cycle, freed.front());
  EXPECT_EQ(b.done.size(), 40u);
  EXPECT_EQ(check_jedec(b.spec, b.channel.command_log()), "");
  // A closed loop driven from the callback itself.
  Bench c;
  int left = 10;
  c.channel.on_done = [&](uint64_t, uint64_t cycle) {
    if (--left > 0)
      c.channel.enqueue({0, c.addr(0, 0, 1, static_cast<uint32_t>(left)), false}, cycle);
  };
  c.channel.enqueue({0, c.addr(0, 0, 1), false}, 0);
  c.drain();
  EXPECT_EQ(left, 0);
  EXPECT_EQ(c.channel.stats().reads, 10u);
  EXPECT_EQ(c.channel.stats().read_latency_sum_cycles, 49u + 9 * 27);
}

} // namespace
} // namespace npu::test
