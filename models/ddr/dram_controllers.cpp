#include "models/ddr/dram_controllers.h"

#include <algorithm>
#include <cmath>

namespace npu {
namespace {

/// `tck_ps` as an integer when it is a whole number of picoseconds (most presets), else 0.
uint64_t whole_ps(double tck_ps) {
  const double whole = std::round(tck_ps);
  return whole >= 1 && whole < 1e9 && whole == tck_ps ? static_cast<uint64_t>(whole) : 0;
}

} // namespace

DramClock::DramClock(double tck_ps) : m_tck_ps(tck_ps), m_tck_whole_ps(whole_ps(tck_ps)) {}

uint64_t DramClock::cycle_of(uint64_t at_ps) const {
  if (m_tck_whole_ps > 0)
    return at_ps / m_tck_whole_ps; // the same cycle, without floating point
  return static_cast<uint64_t>(std::floor(static_cast<double>(at_ps) / m_tck_ps + 1e-9));
}

uint64_t DramClock::cycle_ps(uint64_t cycle) const {
  if (m_tck_whole_ps > 0 && cycle < (uint64_t{1} << 53) / m_tck_whole_ps)
    return cycle * m_tck_whole_ps;
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * m_tck_ps));
}

DramControllers::DramControllers(const DramSpec& spec, const DramControllerConfig& controller,
                                 const AddressMapper& mapper, DoneFn on_done)
    : m_clock(spec.tck_ps), m_controller(controller), m_mapper(mapper) {
  for (uint32_t c = 0; c < spec.channels; ++c) {
    m_channels.push_back(std::make_unique<DramChannel>(spec, controller, mapper));
    m_channels.back()->on_done = on_done;
  }
  m_busy.resize(m_channels.size());
  m_views.resize(m_channels.size());
  for (size_t c = 0; c < m_channels.size(); ++c)
    look(c);
  m_min_done_cycles = m_channels.front()->min_done_cycles();
}

void DramControllers::look(size_t c) {
  const DramChannel& ch = *m_channels[c];
  View& v = m_views[c];
  v.next_event = ch.due(0) ? 0 : ch.next_event(); // 0: a rescan is pending
  v.next_bound = ch.next_completion_bound();
  v.issued = ch.issued_pending();
  v.idle = ch.idle() && !ch.due(UINT64_MAX - 1); // nothing to replay either
  v.queued = {ch.queued(false), ch.queued(true)};
}

bool DramControllers::advance(size_t c, uint64_t cycle) {
  DramChannel& ch = *m_channels[c];
  if (cycle <= ch.now())
    return false;
  ch.advance_to(cycle);
  look(c);
  return true;
}

void DramControllers::enqueue(size_t c, const DramRequest& r, uint64_t cycle) {
  DramChannel& ch = *m_channels[c];
  ch.enqueue(r, std::max(cycle, ch.now()));
  m_busy.set(c);
  look(c);
}

bool DramControllers::advance_enqueue(size_t c, const DramRequest& r, uint64_t cycle,
                                      bool& advanced) {
  DramChannel& ch = *m_channels[c];
  advanced = cycle > ch.now();
  if (advanced)
    ch.advance_to(cycle);
  if (!ch.can_accept(r.is_write)) {
    if (advanced)
      look(c);
    return false;
  }
  enqueue(c, r, cycle);
  return true;
}

bool DramControllers::tick(uint64_t cycle, bool deliver) {
  m_last_cycle = cycle;
  bool advanced = false;
  // Channels not marked busy have nothing queued or in flight and nothing to replay: the
  // loop would neither advance them nor wake for them. It looks at each busy channel's
  // view, not the channel: a channel is several cache lines, and a run advances a few of
  // the busy channels.
  m_busy.for_each([&](size_t c) {
    const View& v = m_views[c];
    // Requests answered ahead (the burst path): every request whose RD/WR has issued is
    // done at a known cycle, so the loop runs once per batch of column commands rather
    // than once per data burst.
    if (v.next_event > cycle && !(deliver && v.issued))
      return;
    DramChannel& ch = *m_channels[c];
    if (ch.due(cycle)) {
      ch.advance_to(cycle);
      advanced = true;
    }
    if (deliver)
      ch.deliver_issued();
    look(c);
  });
  return advanced;
}

uint64_t DramControllers::next_wake(bool exact) {
  uint64_t next = UINT64_MAX;
  m_busy.for_each([&](size_t c) {
    const View& v = m_views[c];
    next = std::min(next, exact ? v.next_event : v.next_bound);
    if (v.idle)
      m_busy.clear(c);
  });
  return next;
}

void DramControllers::settle() const {
  for (const auto& ch : m_channels)
    if (ch->now() < m_last_cycle)
      ch->advance_to(m_last_cycle);
}

DramChannelStats DramControllers::sum() const {
  DramChannelStats sum;
  for (const auto& ch : m_channels)
    sum += ch->stats();
  return sum;
}

double DramControllers::read_latency_mean_ns() const {
  const DramChannelStats s = sum();
  return s.reads
             ? static_cast<double>(s.read_latency_sum_cycles) / s.reads * m_clock.tck_ps() / 1000.0
             : 0;
}

double DramControllers::utilization(uint64_t simulated_ps) const {
  const double capacity = static_cast<double>(simulated_ps) * m_channels.size();
  return capacity > 0
             ? static_cast<double>(sum().data_bus_busy_cycles) * m_clock.tck_ps() / capacity
             : 0;
}

DramActivity DramControllers::activity(uint64_t end_cycle) const {
  DramActivity sum;
  for (const auto& ch : m_channels)
    sum += ch->activity(std::max(end_cycle, ch->now()));
  return sum;
}

DramActivity DramControllers::activity_so_far(uint64_t end_cycle) const {
  // Each channel as far as it has run. Its state beyond is not known yet (a refresh may
  // close the banks left open), so the time up to `end_cycle` counts at the lowest
  // background, precharged standby: later looks only add.
  DramActivity sum;
  for (const auto& ch : m_channels) {
    DramActivity a = ch->activity(ch->now());
    if (end_cycle > ch->now())
      a.precharged_cycles += (end_cycle - ch->now()) * ch->timing().rank_count();
    sum += a;
  }
  return sum;
}

} // namespace npu
