// The transaction-level DRAM (ddr.model: transaction): closed-form latencies of one access
// on DDR4-3200 (the cycle controller's figures), runs at the data-bus rate, tFAW, refresh,
// turnarounds and background cycles.
#include "models/ddr/dram_transaction.h"
#include "tests/models/ddr/dram_test_util.h"

#include <cmath>
#include <random>

namespace npu::test {
namespace {

/// One DDR4-3200 channel (one rank, RoBaCoBg), served at the transaction level.
struct TxBench {
  DramSpec spec;
  DramControllerConfig config;
  AddressMapper mapper;
  TransactionDram dram;

  explicit TxBench(DramSpec s = ddr4(), DramControllerConfig c = Bench::no_refresh())
      : spec(std::move(s)), config(c), mapper(spec, *dram_mapping_scheme("RoBaCoBg")),
        dram(spec, config, mapper) {}
  uint64_t addr(uint32_t bankgroup, uint32_t bank, uint64_t row, uint32_t column = 0) const {
    DramAddress a;
    a.bankgroup = bankgroup;
    a.bank = bank;
    a.row = row;
    a.column = column;
    return mapper.encode(a);
  }
  /// One access of `bytes` at `cycle`; returns when its last data burst ends.
  uint64_t access(uint64_t address, bool is_write, uint64_t cycle, uint64_t bytes = 64) {
    DramTransaction t;
    t.addr = address;
    t.row_bytes = bytes;
    t.is_write = is_write;
    t.arrival = cycle;
    return dram.serve(t).last;
  }
};

TEST(TransactionDram, ClosedLoopLatenciesAreTheControllers) {
  // DDR4-3200: one command cycle, CL 22 + burst 4; + tRCD 22 on a closed bank; + tRP 22 on
  // another open row (the cycle controller's 27, 49 and 71 clocks).
  TxBench b;
  EXPECT_EQ(b.access(b.addr(0, 0, 5), false, 0), 49u);
  EXPECT_EQ(b.access(b.addr(0, 0, 5, 1), false, 200) - 200, 27u);
  EXPECT_EQ(b.access(b.addr(0, 0, 6), false, 400) - 400, 71u);
  EXPECT_EQ(b.access(b.addr(1, 2, 7), true, 600) - 600, 1u + 22 + 16 + 4);
  const DramChannelStats s = b.dram.stats();
  EXPECT_EQ(s.row_hits, 1u);
  EXPECT_EQ(s.row_misses, 2u);
  EXPECT_EQ(s.row_conflicts, 1u);
  EXPECT_EQ(s.activates, 3u);
}

TEST(TransactionDram, ARunOfOneRowMovesAtTheDataBusRate) {
  // 8 KiB of one row over the four bank groups (RoBaCoBg): 128 lines, 4 clocks each at
  // tCCD_S, after one ACT per bank group (tRRD_S apart) and tRCD + CL.
  TxBench b;
  const uint64_t lines = 8192 / 64;
  const uint64_t done = b.access(b.addr(0, 0, 3), false, 0, 8192);
  EXPECT_GE(done, 1 + 22 + 22 + lines * 4);
  EXPECT_LE(done, 1 + 3 * 4 + 22 + 22 + lines * 4);
  EXPECT_EQ(b.dram.stats().activates, 4u);
  EXPECT_EQ(b.dram.stats().reads, lines);
  EXPECT_EQ(b.dram.stats().data_bus_busy_cycles, lines * 4);
}

TEST(TransactionDram, TheFifthActivateWaitsForTheFourActivateWindow) {
  // Five accesses to closed banks at once: tRRD_S (4) alone would allow ACTs at 1, 5, 9,
  // 13, 17; tFAW (34) holds the fifth until 1 + 34, so its data ends 34 + 22 + 22 + 4 + 1.
  TxBench b;
  const uint32_t groups[] = {0, 1, 2, 3, 0};
  const uint32_t banks[] = {0, 0, 0, 0, 1};
  uint64_t last = 0;
  for (int i = 0; i < 5; ++i)
    last = b.access(b.addr(groups[i], banks[i], 1), false, 0);
  EXPECT_EQ(last, 1u + 34 + 22 + 22 + 4);
}

TEST(TransactionDram, AWriteAfterReadsWaitsOutTheTurnaround) {
  // A read run, then a write run of a whole drain batch (the full write-to-read turnaround
  // applies): the read that follows the writes starts tWTR_S + CL after their data ends.
  TxBench b;
  const uint64_t reads_done = b.access(b.addr(0, 0, 1), false, 0, 4096);
  const uint64_t writes_done = b.access(b.addr(0, 1, 1), true, 0, 4096);
  EXPECT_GE(writes_done, reads_done + 2 + 64 * 4);
  const uint64_t read_again = b.access(b.addr(0, 0, 1, 64), false, 0, 64);
  EXPECT_GE(read_again, writes_done + 4 + 22 + 4);
}

TEST(TransactionDram, RefreshIsPeriodicAndClosesTheRows) {
  DramControllerConfig c;
  c.refresh = true;
  TxBench b(ddr4(), c);
  // tREFI 12480 clocks: refreshes fall at 12480, 24960, ...
  b.access(b.addr(0, 0, 5), false, 0);
  // A hit on the open row after the first refresh is a miss: the row was closed.
  const uint64_t t = 14000;
  EXPECT_EQ(b.access(b.addr(0, 0, 5, 1), false, t) - t, 49u);
  EXPECT_EQ(b.dram.stats().refreshes, 1u);
  // Refreshes count up to the end whether or not anything accessed the DRAM.
  EXPECT_EQ(b.dram.activity(12480 * 10).refreshes, 10u);
  // An access arriving at the refresh waits out PREA, tRP and tRFC.
  const uint64_t at = 2 * 12480;
  EXPECT_GE(b.access(b.addr(1, 0, 9), false, at), at + 22 + 576 + 22 + 22 + 4);
}

TEST(TransactionDram, AnOlderAccessServedAfterARefreshDoesNotOpenItsRowInside) {
  DramControllerConfig c;
  c.refresh = true;
  TxBench b(ddr4(), c);
  // Row 5 open before the refresh due at 12480 (PREA then, REF tRP later, banks free after
  // tRFC: 12480 + 22 + 576); row 7 of the bank arrives after it and opens once it is over.
  b.access(b.addr(0, 0, 5), false, 12000);
  const uint64_t ready = 12480 + 22 + 576;
  EXPECT_EQ(b.access(b.addr(0, 0, 7), false, 12500), ready + 22 + 22 + 4);
  // Row 6 arrived just before the refresh fell due but is served after row 7: its ACT and
  // column cannot go between the two rows inside the refresh, only after it.
  EXPECT_GE(b.access(b.addr(0, 0, 6), false, 12470), ready + 22 + 22 + 4);
  EXPECT_EQ(b.dram.stats().refreshes, 1u);
}

TEST(TransactionDram, NoReadEndsInsideARefreshWhateverOrderItsAccessesAreServedIn) {
  // One-line reads to random rows of the four bank groups' first two banks around each
  // refresh: those arriving after it falls due are served first (bringing it about), then
  // the older ones. The rank issues nothing from the refresh's due time until tRFC after its
  // REF: a read's column goes before it (data done by due + CL + burst) or after it with an
  // ACT (done tRCD + CL + burst after the REF's tRFC at the earliest).
  DramControllerConfig c;
  c.refresh = true;
  TxBench b(ddr4(), c);
  std::mt19937_64 rng(7);
  const uint64_t refi = 12480, rfc = 576, cl_burst = 22 + 4;
  const auto reads = [&](uint64_t from, uint64_t to) {
    std::vector<DramTransaction> batch;
    for (uint64_t at = from; at < to; at += 4 + rng() % 12) {
      DramTransaction t;
      t.addr = b.addr(static_cast<uint32_t>(rng() % 4), static_cast<uint32_t>(rng() % 2), rng() % 4,
                      static_cast<uint32_t>(rng() % 64));
      t.row_bytes = 64;
      t.arrival = at;
      batch.push_back(t);
    }
    return batch;
  };
  for (uint64_t due = refi; due <= 8 * refi; due += refi) {
    for (const auto& batch : {reads(due, due + 200), reads(due - 400, due)}) {
      std::vector<DramTransactionDone> done;
      b.dram.serve_batch(batch, done);
      for (const DramTransactionDone& d : done)
        EXPECT_FALSE(d.last > due + cl_burst && d.last < due + rfc + 22 + cl_burst)
            << "a read done at " << d.last << " inside the refresh due at " << due;
    }
  }
  EXPECT_EQ(b.dram.stats().refreshes, 8u);
}

TEST(TransactionDram, BackgroundCountsOpenAndClosedCyclesToTheEnd) {
  TxBench b;
  b.access(b.addr(0, 0, 5), false, 100); // ACT at 101: open from then on
  const DramActivity a = b.dram.activity(1000);
  EXPECT_EQ(a.active_cycles, 1000u - 101);
  EXPECT_EQ(a.precharged_cycles, 101u);
  EXPECT_EQ(a.activates, 1u);
  EXPECT_EQ(a.reads, 1u);
}

TEST(TransactionDram, ABatchIsServedInOrderOfArrivalWhateverOrderItIsGivenIn) {
  // Three accesses of one channel, of a line in each of the four bank groups, two of them
  // to other rows of one bank: the one that arrives first opens its rows first, however the
  // batch lists them.
  const auto make = [](const TxBench& b, uint32_t bank, uint64_t row, uint64_t arrival) {
    DramTransaction t;
    t.addr = b.addr(0, bank, row);
    t.row_bytes = 256;
    t.arrival = arrival;
    t.spread = 8;
    return t;
  };
  TxBench in_order, reversed;
  const std::vector<DramTransaction> batch = {make(in_order, 0, 1, 0), make(in_order, 1, 3, 20),
                                              make(in_order, 0, 2, 50)};
  std::vector<DramTransactionDone> first, second;
  in_order.dram.serve_batch(batch, first);
  reversed.dram.serve_batch({batch[2], batch[1], batch[0]}, second);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(first[i].first, second[2 - i].first);
    EXPECT_EQ(first[i].last, second[2 - i].last);
  }
  EXPECT_LT(first[0].last, first[2].last);            // row 1 of bank 0 before its row 2
  EXPECT_EQ(in_order.dram.stats().row_conflicts, 4u); // row 2 closes row 1 in each group
  EXPECT_EQ(reversed.dram.stats().row_conflicts, 4u);
  EXPECT_EQ(in_order.dram.stats().activates, reversed.dram.stats().activates);
}

TEST(TransactionDram, ItsChannelHashIsTheMappers) {
  // Every line goes to the channel AddressMapper::channel_of names, for each mapping (and a
  // field list with the channel above the column), several channel counts, with and without
  // the hash, over random addresses: single lines, and multi-line accesses whose lines cross
  // the blocks of address bits whose hash the transaction level keeps.
  std::vector<std::vector<DramField>> orders;
  for (const std::string& name : dram_mapping_scheme_names())
    orders.push_back(*dram_mapping_scheme(name));
  orders.push_back({DramField::Row, DramField::Channel, DramField::Bank, DramField::BankGroup,
                    DramField::Rank, DramField::Column});
  std::mt19937_64 rng(45);
  for (const auto& order : orders) {
    for (const uint32_t channels : {1u, 2u, 4u, 8u, 16u}) {
      for (const bool hash : {false, true}) {
        DramSpec spec = ddr4();
        spec.channels = channels;
        spec.ranks = 2;
        const AddressMapper mapper(spec, order, hash);
        const TransactionDram dram(spec, Bench::no_refresh(), mapper);
        for (int i = 0; i < 2000; ++i) {
          const uint64_t bits = i % 3 == 0 ? 63 : i % 3 == 1 ? 40 : 30;
          DramTransaction t;
          t.addr = (rng() & ((uint64_t{1} << bits) - 1)) & ~uint64_t{63};
          t.row_bytes = i % 2 == 0 ? 64 : 64 * (1 + rng() % 256);
          std::vector<uint32_t> got(channels, 0), want(channels, 0);
          dram.count_lines(t, got.data());
          for (uint64_t a = t.addr; a < t.addr + t.row_bytes; a += 64)
            ++want[mapper.channel_of(a)];
          ASSERT_EQ(got, want) << "address " << t.addr << ", " << t.row_bytes << " bytes, "
                               << channels << " channels, hash " << hash;
        }
      }
    }
  }
}

TEST(TransactionDram, ARunOfOneBankGroupTakesTheDataBusSlotsAnotherOneLeft) {
  // A strided read whose 16 lines stay in one bank group goes at tCCD_L (8 clocks), the data
  // bus busy half of that (a burst is 4): a second such read in another bank group takes the
  // slots between, as FR-FCFS interleaves them, and ends a few slots after the first. Two in
  // one bank group (other banks) go one after the other, tCCD_L apart.
  const auto strided = [](const TxBench& b, uint32_t group, uint32_t bank) {
    DramTransaction t;
    t.addr = b.addr(group, bank, 1);
    t.row_bytes = 64;
    t.rows = 16;
    t.stride = b.addr(group, bank, 1, 1) - t.addr; // the next column of the bank group
    return t;
  };
  TxBench one;
  const uint64_t alone = one.dram.serve(strided(one, 0, 0)).last;
  EXPECT_GE(alone, 15u * 8 + 4);
  TxBench two_groups;
  std::vector<DramTransactionDone> done;
  two_groups.dram.serve_batch({strided(two_groups, 0, 0), strided(two_groups, 1, 0)}, done);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].last, alone);
  EXPECT_GT(done[1].last, alone);
  EXPECT_LE(done[1].last, alone + 2 * 8);
  EXPECT_EQ(two_groups.dram.stats().data_bus_busy_cycles, 32u * 4);
  EXPECT_EQ(two_groups.dram.stats().reads, 32u);
  EXPECT_EQ(two_groups.dram.stats().activates, 2u);
  TxBench one_group;
  one_group.dram.serve_batch({strided(one_group, 0, 0), strided(one_group, 0, 1)}, done);
  EXPECT_EQ(done[0].last, alone);
  EXPECT_GE(done[1].last, alone + 15 * 8);
}

} // namespace
} // namespace npu::test
