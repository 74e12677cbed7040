// Address decoding by named scheme and by explicit field order.
#include "models/ddr/address_mapper.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

namespace npu {
namespace {

DramSpec ddr4(uint32_t channels = 1, uint32_t ranks = 1) {
  DramSpec s = dram_preset("DDR4-3200");
  s.channels = channels;
  s.ranks = ranks;
  return s;
}

DramAddress at(uint32_t ch, uint32_t ra, uint32_t bg, uint32_t ba, uint64_t ro, uint32_t co) {
  DramAddress a;
  a.channel = ch;
  a.rank = ra;
  a.bankgroup = bg;
  a.bank = ba;
  a.row = ro;
  a.column = co;
  return a;
}

TEST(AddressMapper, RoBaRaCoChPutsColumnsLowThenBankGroupThenBank) {
  // DDR4, one channel and rank: 6 offset bits, then Co 7, Bg 2, Ba 2, Ro 16.
  const AddressMapper m(ddr4(), *dram_mapping_scheme("RoBaRaCoCh"));
  EXPECT_EQ(m.decode(0), at(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(m.decode(63), at(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(m.decode(64), at(0, 0, 0, 0, 0, 1));
  EXPECT_EQ(m.decode(127ull << 6), at(0, 0, 0, 0, 0, 127));
  EXPECT_EQ(m.decode(1ull << 13), at(0, 0, 1, 0, 0, 0));
  EXPECT_EQ(m.decode(1ull << 15), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(m.decode(1ull << 17), at(0, 0, 0, 0, 1, 0));
  EXPECT_EQ(m.decode((5ull << 17) | (2ull << 15) | (3ull << 13) | (9ull << 6) | 17),
            at(0, 0, 3, 2, 5, 9));
}

TEST(AddressMapper, RoBaRaCoChWithChannelsAndRanks) {
  // Two channels, two ranks: Ch bit 6, Co 7..13, Ra 14, Bg 15..16, Ba 17..18, Ro 19..
  const AddressMapper m(ddr4(2, 2), *dram_mapping_scheme("RoBaRaCoCh"));
  EXPECT_EQ(m.decode(64), at(1, 0, 0, 0, 0, 0));
  EXPECT_EQ(m.channel_of(64), 1u);
  EXPECT_EQ(m.decode(128), at(0, 0, 0, 0, 0, 1));
  EXPECT_EQ(m.decode(1ull << 14), at(0, 1, 0, 0, 0, 0));
  EXPECT_EQ(m.decode(1ull << 15), at(0, 0, 1, 0, 0, 0));
  EXPECT_EQ(m.decode(1ull << 17), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(m.decode(1ull << 19), at(0, 0, 0, 0, 1, 0));
}

TEST(AddressMapper, RoBaCoBgAlternatesBankGroupsLineByLine) {
  // 6 offset bits, then Bg 2, Co 7, Ba 2, Ro 16.
  const AddressMapper m(ddr4(), *dram_mapping_scheme("RoBaCoBg"));
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(m.decode(i * 64ull), at(0, 0, i % 4, 0, 0, i / 4)) << i;
  EXPECT_EQ(m.decode(1ull << 15), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(m.decode(1ull << 17), at(0, 0, 0, 0, 1, 0));
  // With two channels the channel field sits below the bank group.
  const AddressMapper two(ddr4(2), *dram_mapping_scheme("RoBaCoBg"));
  EXPECT_EQ(two.decode(64), at(1, 0, 0, 0, 0, 0));
  EXPECT_EQ(two.decode(128), at(0, 0, 1, 0, 0, 0));
}

TEST(AddressMapper, ChannelHashSpreadsAStridedStreamAndStaysOneToOne) {
  // Four channels, RoBaCoBg: the channel is address bits 6..7. Rows 4 KiB apart (a
  // matrix tile's rows) all share those bits: without the hash they queue on one
  // channel, with it they spread evenly.
  const DramSpec spec = ddr4(4);
  const auto order = *dram_mapping_scheme("RoBaCoBg");
  const AddressMapper plain(spec, order), hashed(spec, order, true);
  uint32_t plain_count[4] = {0, 0, 0, 0}, hashed_count[4] = {0, 0, 0, 0};
  for (uint64_t row = 0; row < 256; ++row) {
    ++plain_count[plain.channel_of(row * 4096)];
    ++hashed_count[hashed.channel_of(row * 4096)];
  }
  EXPECT_EQ(plain_count[0], 256u);
  for (uint32_t c = 0; c < 4; ++c)
    EXPECT_EQ(hashed_count[c], 64u) << "channel " << c;
  // Consecutive lines still cover every channel, and decode and encode are inverses.
  for (uint64_t base : {uint64_t{0}, uint64_t{4096}, uint64_t{123} << 20}) {
    uint32_t seen = 0;
    for (uint64_t i = 0; i < 4; ++i)
      seen |= 1u << hashed.channel_of(base + i * 64);
    EXPECT_EQ(seen, 0xfu);
  }
  for (uint64_t addr = 0; addr < (uint64_t{1} << 26); addr += 4160) {
    const DramAddress a = hashed.decode(addr);
    EXPECT_EQ(hashed.channel_of(addr), a.channel);
    EXPECT_EQ(hashed.encode(a), addr / 64 * 64);
    // What a channel's controller decodes: every field but the (hashed) channel.
    DramAddress in_channel = a;
    in_channel.channel = 0;
    EXPECT_EQ(hashed.decode_in_channel(addr), in_channel);
  }
}

TEST(AddressMapper, ChannelHashIsTheXorOfTheChunksAboveTheChannel) {
  // Whatever the channel's width, its hash is every address bit above it taken in chunks of
  // that width and XORed together, the last chunk short when the width does not divide.
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint32_t channels : {1u, 2u, 4u, 8u, 16u, 32u}) {
    for (const char* scheme : {"RoBaCoBg", "RoBaRaCoCh", "RoCoBaRaCh"}) {
      const DramSpec spec = ddr4(channels);
      const AddressMapper m(spec, *dram_mapping_scheme(scheme), true);
      const uint32_t bits = m.bits(DramField::Channel), shift = m.shift(DramField::Channel);
      const uint64_t mask = (uint64_t{1} << bits) - 1;
      for (int i = 0; i < 2000; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; // xorshift
        const uint64_t addr = x >> (i % 3 == 0 ? 0 : 20);
        uint64_t fold = 0;
        for (uint32_t at = shift + bits; bits > 0 && at < 64; at += bits)
          fold ^= (addr >> at) & mask;
        ASSERT_EQ(m.channel_of(addr), ((addr >> shift) & mask) ^ fold)
            << scheme << " " << channels << " " << addr;
        ASSERT_EQ(m.decode(addr).channel, m.channel_of(addr));
        ASSERT_EQ(m.encode(m.decode(addr)), addr / 64 * 64);
      }
    }
  }
}

TEST(AddressMapper, OtherNamedSchemes) {
  const AddressMapper rarobaco(ddr4(1, 2), *dram_mapping_scheme("RoRaBaCoCh"));
  // Co 6..12, Bg 13..14, Ba 15..16, Ra 17, Ro 18..
  EXPECT_EQ(rarobaco.decode(1ull << 13), at(0, 0, 1, 0, 0, 0));
  EXPECT_EQ(rarobaco.decode(1ull << 15), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(rarobaco.decode(1ull << 17), at(0, 1, 0, 0, 0, 0));
  EXPECT_EQ(rarobaco.decode(1ull << 18), at(0, 0, 0, 0, 1, 0));
  const AddressMapper rocobara(ddr4(1, 2), *dram_mapping_scheme("RoCoBaRaCh"));
  // Ra 6, Bg 7..8, Ba 9..10, Co 11..17, Ro 18..
  EXPECT_EQ(rocobara.decode(64), at(0, 1, 0, 0, 0, 0));
  EXPECT_EQ(rocobara.decode(128), at(0, 0, 1, 0, 0, 0));
  EXPECT_EQ(rocobara.decode(1ull << 9), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(rocobara.decode(1ull << 11), at(0, 0, 0, 0, 0, 1));
  EXPECT_EQ(rocobara.decode(1ull << 18), at(0, 0, 0, 0, 1, 0));
  EXPECT_FALSE(dram_mapping_scheme("RoBaCo").has_value());
}

TEST(AddressMapper, CustomListMatchesTheNamedSchemeItSpells) {
  std::vector<DramField> order;
  for (const char* f : {"Ro", "Ba", "Bg", "Ra", "Co", "Ch"})
    order.push_back(*parse_dram_field(f));
  const AddressMapper custom(ddr4(2, 2), order);
  const AddressMapper named(ddr4(2, 2), *dram_mapping_scheme("RoBaRaCoCh"));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t a = rng() & ((1ull << 40) - 1);
    EXPECT_EQ(custom.decode(a), named.decode(a));
  }
  // A list of our own: channel on top, rows right above the columns.
  std::vector<DramField> odd = {DramField::Channel, DramField::Rank, DramField::BankGroup,
                                DramField::Bank,    DramField::Row,  DramField::Column};
  const AddressMapper m(ddr4(2, 1), odd);
  EXPECT_EQ(m.decode(1ull << 13), at(0, 0, 0, 0, 1, 0));
  EXPECT_EQ(m.decode(1ull << 29), at(0, 0, 0, 1, 0, 0));
  EXPECT_EQ(m.decode(1ull << 31), at(0, 0, 1, 0, 0, 0));
  EXPECT_EQ(m.decode(1ull << 33), at(1, 0, 0, 0, 0, 0));
  // Bits above every field extend the row, so no two addresses alias.
  EXPECT_EQ(m.decode(1ull << 34).row, 1ull << 16);
  EXPECT_FALSE(parse_dram_field("Rw").has_value());
}

TEST(AddressMapper, EncodeIsTheInverseOfDecode) {
  for (const std::string& name : dram_mapping_scheme_names()) {
    const AddressMapper m(ddr4(4, 2), *dram_mapping_scheme(name));
    std::mt19937_64 rng(5);
    for (int i = 0; i < 1000; ++i) {
      const uint64_t a = (rng() & ((1ull << 44) - 1)) & ~63ull;
      EXPECT_EQ(m.encode(m.decode(a)), a) << name;
    }
  }
}

TEST(AddressMapper, RejectsDuplicateOrMissingFieldsAndOddGeometry) {
  const DramSpec s = ddr4(2, 1);
  EXPECT_NE(check_dram_mapping(s, {DramField::Row, DramField::Row, DramField::Bank,
                                   DramField::BankGroup, DramField::Column, DramField::Channel}),
            "");
  // The channel field is missing while there are two channels.
  const std::string missing = check_dram_mapping(
      s, {DramField::Row, DramField::Bank, DramField::BankGroup, DramField::Column});
  EXPECT_NE(missing.find("Ch"), std::string::npos) << missing;
  // One channel and one rank: Ch and Ra may be left out.
  EXPECT_EQ(check_dram_mapping(
                ddr4(), {DramField::Row, DramField::Bank, DramField::BankGroup, DramField::Column}),
            "");
  DramSpec odd = ddr4(3, 1);
  EXPECT_THROW(AddressMapper(odd, *dram_mapping_scheme("RoBaCoBg")), std::invalid_argument);
  odd = ddr4();
  odd.banks_per_group = 3;
  EXPECT_NE(check_dram_spec(odd).find("power of two"), std::string::npos);
}

TEST(DramSpec, Ddr4PresetIsTheIssuesSpeedBin) {
  const DramSpec s = dram_preset("DDR4-3200");
  EXPECT_EQ(s.bank_groups, 4u);
  EXPECT_EQ(s.banks_per_group, 4u);
  EXPECT_EQ(s.row_bytes(), 8192u);
  EXPECT_EQ(s.bus_width_bits, 64u);
  EXPECT_EQ(s.burst_length, 8u);
  EXPECT_EQ(s.burst_cycles(), 4u);
  EXPECT_DOUBLE_EQ(s.tck_ps, 625);
  EXPECT_EQ(s.channel_bytes(), 8ull << 30); // 8 x 8 Gb devices
  const DramTiming& t = s.t;
  const uint32_t expected[] = {22, 22, 22, 52, 74, 24, 12, 16, 4, 8, 4, 8, 4, 12, 34, 576, 12480};
  const uint32_t actual[] = {t.CL,    t.RCD,   t.RP,    t.RAS,   t.RC,    t.WR,
                             t.RTP,   t.CWL,   t.CCD_S, t.CCD_L, t.RRD_S, t.RRD_L,
                             t.WTR_S, t.WTR_L, t.FAW,   t.RFC,   t.REFI};
  for (size_t i = 0; i < std::size(expected); ++i)
    EXPECT_EQ(actual[i], expected[i]) << i;
  EXPECT_DOUBLE_EQ(s.channel_bytes_per_s(), 25.6e9);
}

TEST(DramSpec, EveryPresetIsConsistentAndMovesSixtyFourBytesPerBurst) {
  for (const std::string& name : dram_preset_names()) {
    const DramSpec s = dram_preset(name);
    EXPECT_EQ(check_dram_spec(s), "") << name;
    EXPECT_EQ(s.burst_length * s.bus_width_bits, 512u) << name;
    EXPECT_GE(s.burst_cycles(), 1u) << name;
  }
  EXPECT_EQ(dram_preset("LPDDR5-6400").beats_per_clock(), 8u);
  EXPECT_EQ(dram_preset("LPDDR5-6400").burst_cycles(), 4u);
  EXPECT_EQ(dram_preset("LPDDR4-3200").burst_cycles(), 16u);
  EXPECT_EQ(dram_preset("HBM2E").burst_cycles(), 2u);
  EXPECT_THROW(dram_preset("DDR9"), std::out_of_range);
}

} // namespace
} // namespace npu
