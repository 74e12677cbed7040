// Helpers for the DRAM controller tests: a channel driven request by request, and a
// checker that replays a command log against every JEDEC constraint.
#pragma once

#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_channel.h"
#include "models/ddr/dram_spec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace npu::test {

inline DramSpec ddr4() {
  return dram_preset("DDR4-3200");
}

/// One DDR4-3200 channel (by default: one rank, RoBaCoBg, no refresh) with a command log.
struct Bench {
  DramSpec spec;
  DramControllerConfig config;
  AddressMapper mapper;
  DramChannel channel;
  std::map<uint64_t, uint64_t> done; ///< id -> cycle its data burst ended
  uint64_t next_id = 0;

  explicit Bench(DramSpec s = ddr4(), DramControllerConfig c = no_refresh(),
                 const std::vector<DramField>& order = *dram_mapping_scheme("RoBaCoBg"))
      : spec(std::move(s)), config(c), mapper(spec, order), channel(spec, config, mapper) {
    channel.set_command_log(true);
    channel.on_done = [this](uint64_t id, uint64_t cycle) { done[id] = cycle; };
  }
  static DramControllerConfig no_refresh() {
    DramControllerConfig c;
    c.refresh = false;
    return c;
  }

  uint64_t addr(uint32_t bankgroup, uint32_t bank, uint64_t row, uint32_t column = 0,
                uint32_t rank = 0) const {
    DramAddress a;
    a.rank = rank;
    a.bankgroup = bankgroup;
    a.bank = bank;
    a.row = row;
    a.column = column;
    return mapper.encode(a);
  }
  /// Enqueues at `cycle`; returns the request id.
  uint64_t send(uint64_t address, bool is_write, uint64_t cycle) {
    const uint64_t id = next_id++;
    channel.enqueue({id, address, is_write}, cycle);
    return id;
  }
  /// Runs until nothing is queued or in flight.
  void drain() {
    for (uint64_t t = channel.next_event(); t != std::numeric_limits<uint64_t>::max();
         t = channel.next_event())
      channel.advance_to(t);
  }
  /// Closed loop: one request at `cycle`, run to its end; returns its latency in cycles.
  uint64_t closed_loop(uint64_t address, bool is_write, uint64_t cycle) {
    const uint64_t id = send(address, is_write, cycle);
    drain();
    return done.at(id) - cycle;
  }
  /// Commands of one kind, in issue order.
  std::vector<DramCommandRecord> commands(DramCommand c) const {
    std::vector<DramCommandRecord> out;
    for (const auto& r : channel.command_log())
      if (r.command == c)
        out.push_back(r);
    return out;
  }
  /// The first command of kind `c` at or after `from`.
  DramCommandRecord first(DramCommand c, uint64_t from = 0) const {
    for (const auto& r : channel.command_log())
      if (r.command == c && r.cycle >= from)
        return r;
    ADD_FAILURE() << "no " << dram_command_name(c) << " at or after " << from;
    return {};
  }
};

/// Replays `log` and reports the first broken constraint, or "" when all hold.
inline std::string check_jedec(const DramSpec& s, const std::vector<DramCommandRecord>& log) {
  const DramTiming& t = s.t;
  const int64_t bl = s.burst_cycles();
  constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;
  struct BankState {
    bool open = false;
    uint64_t row = 0;
    int64_t act = kNone, pre = kNone, rd = kNone, wr = kNone;
    int64_t auto_pre = kNone; ///< when an RDA/WRA's internal precharge may start
  };
  struct RankState {
    std::vector<int64_t> acts;
    int64_t ref = kNone;
    int64_t last_rd = kNone, last_wr = kNone;
    std::vector<int64_t> rd_by_group, wr_by_group;
  };
  const uint32_t ranks = s.ranks;
  std::vector<BankState> banks(size_t{ranks} * s.banks());
  std::vector<RankState> rank(ranks);
  for (auto& r : rank) {
    r.rd_by_group.assign(s.bank_groups, kNone);
    r.wr_by_group.assign(s.bank_groups, kNone);
  }
  int64_t last_cmd = kNone;
  int64_t bus_free = kNone; // end of the last data burst
  uint32_t bus_rank = 0;
  const auto fail = [](const DramCommandRecord& c, const std::string& what) {
    return std::string(dram_command_name(c.command)) + " at " + std::to_string(c.cycle) +
           " (rank " + std::to_string(c.rank) + " bg " + std::to_string(c.bankgroup) + " bank " +
           std::to_string(c.bank) + "): " + what;
  };
  for (const auto& c : log) {
    const auto now = static_cast<int64_t>(c.cycle);
    if (now <= last_cmd)
      return fail(c, "two commands in one cycle or out of order");
    last_cmd = now;
    RankState& rk = rank[c.rank];
    const size_t bi = (size_t{c.rank} * s.bank_groups + c.bankgroup) * s.banks_per_group + c.bank;
    BankState& b = banks[bi];
    switch (c.command) {
    case DramCommand::ACT: {
      if (b.open)
        return fail(c, "bank already open");
      if (now < b.act + t.RC)
        return fail(c, "tRC");
      if (now < b.pre + t.RP)
        return fail(c, "tRP");
      if (now < b.auto_pre + t.RP)
        return fail(c, "tRP after auto-precharge");
      if (now < rk.ref + t.RFC)
        return fail(c, "tRFC");
      for (uint32_t g = 0; g < s.bank_groups; ++g)
        for (uint32_t k = 0; k < s.banks_per_group; ++k) {
          const BankState& o = banks[(size_t{c.rank} * s.bank_groups + g) * s.banks_per_group + k];
          if (&o == &b)
            continue;
          if (now < o.act + (g == c.bankgroup ? t.RRD_L : t.RRD_S))
            return fail(c, g == c.bankgroup ? "tRRD_L" : "tRRD_S");
        }
      if (rk.acts.size() >= 4 && now < rk.acts[rk.acts.size() - 4] + t.FAW)
        return fail(c, "tFAW");
      rk.acts.push_back(now);
      b.open = true;
      b.row = c.row;
      b.act = now;
      break;
    }
    case DramCommand::PRE:
      if (!b.open)
        return fail(c, "PRE to a closed bank");
      if (now < b.act + t.RAS)
        return fail(c, "tRAS");
      if (now < b.rd + t.RTP)
        return fail(c, "tRTP");
      if (now < b.wr + t.CWL + bl + t.WR)
        return fail(c, "tWR");
      b.open = false;
      b.pre = now;
      break;
    case DramCommand::PREA:
      for (size_t i = size_t{c.rank} * s.banks(); i < size_t{c.rank + 1} * s.banks(); ++i) {
        BankState& o = banks[i];
        if (!o.open)
          continue;
        if (now < o.act + t.RAS)
          return fail(c, "tRAS (PREA)");
        if (now < o.rd + t.RTP)
          return fail(c, "tRTP (PREA)");
        if (now < o.wr + t.CWL + bl + t.WR)
          return fail(c, "tWR (PREA)");
        o.open = false;
        o.pre = now;
      }
      break;
    case DramCommand::REF:
      for (size_t i = size_t{c.rank} * s.banks(); i < size_t{c.rank + 1} * s.banks(); ++i) {
        const BankState& o = banks[i];
        if (o.open)
          return fail(c, "REF with an open bank");
        if (now < o.pre + t.RP || now < o.auto_pre + t.RP)
          return fail(c, "tRP before REF");
        if (now < o.act + t.RC)
          return fail(c, "tRC before REF");
      }
      if (now < rk.ref + t.RFC)
        return fail(c, "tRFC between REFs");
      rk.ref = now;
      break;
    case DramCommand::RD:
    case DramCommand::RDA:
    case DramCommand::WR:
    case DramCommand::WRA: {
      const bool rd = c.command == DramCommand::RD || c.command == DramCommand::RDA;
      if (!b.open || b.row != c.row)
        return fail(c, "column command to a row that is not open");
      if (now < b.act + t.RCD)
        return fail(c, "tRCD");
      for (uint32_t g = 0; g < s.bank_groups; ++g) {
        const bool same = g == c.bankgroup;
        const int64_t last_same_dir = rd ? rk.rd_by_group[g] : rk.wr_by_group[g];
        if (now < last_same_dir + (same ? t.CCD_L : t.CCD_S))
          return fail(c, same ? "tCCD_L" : "tCCD_S");
        if (rd && now < rk.wr_by_group[g] + t.CWL + bl + (same ? t.WTR_L : t.WTR_S))
          return fail(c, same ? "tWTR_L" : "tWTR_S");
      }
      if (!rd && now < rk.last_rd + t.CL + bl + 2 - t.CWL)
        return fail(c, "read-to-write turnaround");
      const int64_t start = now + (rd ? t.CL : t.CWL);
      const int64_t gap = c.rank == bus_rank ? 0 : t.RTRS;
      if (start < bus_free + gap)
        return fail(c, "data bursts overlap on the bus");
      bus_free = start + bl;
      bus_rank = c.rank;
      (rd ? rk.rd_by_group : rk.wr_by_group)[c.bankgroup] = now;
      (rd ? rk.last_rd : rk.last_wr) = now;
      (rd ? b.rd : b.wr) = now;
      if (c.command == DramCommand::RDA || c.command == DramCommand::WRA) {
        b.open = false;
        b.auto_pre = std::max(b.act + t.RAS, rd ? now + t.RTP : now + t.CWL + bl + t.WR);
      }
      break;
    }
    }
  }
  return "";
}

} // namespace npu::test
