#pragma once

#include "models/common/index_bits.h"
#include "models/ddr/address_mapper.h"
#include "models/ddr/dram_channel.h"
#include "models/ddr/dram_energy.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace npu {

/// The memory clock: simulated picoseconds to memory cycles and back.
class DramClock {
public:
  explicit DramClock(double tck_ps);

  double tck_ps() const { return m_tck_ps; }
  /// The memory clock cycle containing `at_ps`.
  uint64_t cycle_of(uint64_t at_ps) const;
  /// The start of memory clock cycle `cycle`, in ps.
  uint64_t cycle_ps(uint64_t cycle) const;

private:
  double m_tck_ps;         ///< memory clock period
  uint64_t m_tck_whole_ps; ///< the period when it is a whole number of picoseconds, else 0
};

/// The channel controllers of one DDR and their clock (as DRAMSys splits the controller
/// from the arbiter in front of it): one DramChannel per channel, which channels may have
/// work, and what the controllers' loop needs of each, kept side by side. Plain C++: the
/// DDR's TLM front end runs the loop (tick, next_wake) from its SystemC method.
class DramControllers {
public:
  /// What the loop and the admission of requests need of a channel, brought up to date
  /// after each call that may change it.
  struct View {
    uint64_t next_event = 0;          ///< DramChannel::next_event, or 0 while a rescan is pending
    uint64_t next_bound = 0;          ///< DramChannel::next_completion_bound
    bool issued = false;              ///< requests whose RD/WR has issued are not yet delivered
    bool idle = true;                 ///< nothing queued, in flight or to replay
    std::array<uint32_t, 2> queued{}; ///< requests in the read [0] and write [1] queues
  };
  /// Called for every request whose data burst ended, with its id and that cycle.
  using DoneFn = std::function<void(uint64_t id, uint64_t done_cycle)>;

  DramControllers(const DramSpec& spec, const DramControllerConfig& controller,
                  const AddressMapper& mapper, DoneFn on_done);

  const DramClock& clock() const { return m_clock; }
  size_t size() const { return m_channels.size(); }
  uint32_t channel_of(uint64_t addr) const { return m_mapper.channel_of(addr); }
  const View& view(size_t c) const { return m_views[c]; }
  /// Entries of each channel's write (or read) queue.
  uint32_t capacity(bool is_write) const {
    return is_write ? m_controller.write_queue : m_controller.read_queue;
  }
  bool can_accept(size_t c, bool is_write) const { return m_channels[c]->can_accept(is_write); }
  /// Brings channel `c` to `cycle` when it is behind; true when it moved (which may have
  /// freed queue entries).
  bool advance(size_t c, uint64_t cycle);
  /// Queues `r` in channel `c` at `cycle`, or at the channel's clock when that is later.
  void enqueue(size_t c, const DramRequest& r, uint64_t cycle);
  /// advance(c, cycle), then enqueue(c, r, cycle) when the queue has room (true), looking
  /// at the channel once; `advanced` tells whether the channel moved.
  bool advance_enqueue(size_t c, const DramRequest& r, uint64_t cycle, bool& advanced);
  /// One run of the controllers at `cycle`: every busy channel with something due advances
  /// to it; with `deliver` (requests answered ahead), requests whose RD/WR has issued are
  /// delivered too. True when any channel advanced.
  bool tick(uint64_t cycle, bool deliver);
  /// The cycle the loop must next run at for the busy channels: their next event when
  /// `exact` (requests wait for a queue entry), else their next completion; UINT64_MAX for
  /// none. Channels found idle stop being busy.
  uint64_t next_wake(bool exact);
  /// Fewest cycles from a request's RD/WR to the end of its data burst.
  uint64_t min_done_cycles() const { return m_min_done_cycles; }
  /// Advances idle channels, left behind, to the latest tick (their refreshes meanwhile).
  void settle() const;

  /// Every channel's counters summed.
  DramChannelStats sum() const;
  double read_latency_mean_ns() const;
  /// Share of `simulated_ps` the data buses were transferring.
  double utilization(uint64_t simulated_ps) const;
  /// What every channel's devices did up to `end_cycle` (or further, where a channel ran on).
  DramActivity activity(uint64_t end_cycle) const;
  /// The same as it stands mid-run: each channel as far as it has run, the time after
  /// counted as precharged standby (no more than activity() gives later).
  DramActivity activity_so_far(uint64_t end_cycle) const;

private:
  void look(size_t c);

  DramClock m_clock;
  DramControllerConfig m_controller;
  const AddressMapper& m_mapper;
  std::vector<std::unique_ptr<DramChannel>> m_channels;
  std::vector<View> m_views;
  /// Channels that may have work: those given a request since they were last found idle.
  /// The loop visits only these, in channel order, so a run costs what the busy channels
  /// need rather than the channel count.
  IndexBits m_busy;
  uint64_t m_min_done_cycles = 0;
  uint64_t m_last_cycle = 0; ///< cycle of the latest tick
};

} // namespace npu
