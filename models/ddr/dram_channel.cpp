#include "models/ddr/dram_channel.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace npu {
namespace {

const DramSpec& checked(const DramSpec& spec, const DramControllerConfig& config) {
  const std::string error = check_dram_spec(spec);
  if (!error.empty())
    throw std::invalid_argument("DRAM spec: " + error);
  if (config.read_queue == 0 || config.write_queue == 0)
    throw std::invalid_argument("DRAM controller: queues need at least one entry");
  return spec;
}

} // namespace

DramChannelStats& DramChannelStats::operator+=(const DramChannelStats& o) {
  reads += o.reads;
  writes += o.writes;
  row_hits += o.row_hits;
  row_misses += o.row_misses;
  row_conflicts += o.row_conflicts;
  activates += o.activates;
  precharges += o.precharges;
  refreshes += o.refreshes;
  data_bus_busy_cycles += o.data_bus_busy_cycles;
  read_latency_sum_cycles += o.read_latency_sum_cycles;
  read_latency_max_cycles = std::max(read_latency_max_cycles, o.read_latency_max_cycles);
  return *this;
}

DramChannel::DramChannel(const DramSpec& spec, const DramControllerConfig& config,
                         const AddressMapper& mapper)
    : m_spec(checked(spec, config)), m_config(config), m_mapper(mapper), m_timing(spec),
      m_queues(config.read_queue, config.write_queue, spec.ranks * spec.banks()),
      m_scheduler(make_dram_scheduler(config.scheduler, m_timing, m_queues)),
      m_page_policy(make_page_policy(config.page_policy)),
      m_refresh(make_refresh_policy(config, spec)) {
  m_high = static_cast<uint32_t>(std::ceil(config.write_high * config.write_queue - 1e-9));
  m_low = static_cast<uint32_t>(std::floor(config.write_low * config.write_queue + 1e-9));
  m_high = std::clamp<uint32_t>(m_high, 1, config.write_queue);
  m_low = std::min(m_low, m_high - 1);
  m_dirty = true;
  rescan();
}

void DramChannel::enqueue(const DramRequest& r, uint64_t cycle) {
  if (cycle < m_now)
    throw std::logic_error("DramChannel::enqueue: cycle " + std::to_string(cycle) +
                           " is before now " + std::to_string(m_now));
  if (cycle > m_now)
    advance_to(cycle);
  if (!can_accept(r.is_write))
    throw std::logic_error("DramChannel::enqueue: queue full");
  const DramAddress a = m_mapper.decode_in_channel(r.addr);
  DramEntry e;
  e.id = r.id;
  e.arrival = cycle;
  e.seq = m_seq++;
  e.row = a.row;
  e.bank = (a.rank * m_spec.bank_groups + a.bankgroup) * m_spec.banks_per_group + a.bank;
  e.column = a.column;
  e.is_write = r.is_write;
  const int32_t slot = m_queues.push(e);
  DramBankRequests& b = m_queues.banks[e.bank];
  if (m_timing.bank(e.bank).open_row == e.row)
    ++(e.is_write ? b.hits_wr : b.hits_rd);
  const bool offered =
      e.is_write == m_queues.write_mode && scheduler([&](auto& s) { return s.offer(slot); });
  if (m_dirty || next_write_mode() != m_queues.write_mode) {
    m_dirty = true;
    rescan(); // rebuilds every bank's choice if the mode changes
    return;
  }
  if (offered)
    reconsider_bank(e.bank);
}

void DramChannel::reconsider_bank(uint32_t bank) {
  // The bank's choice changed. If it was the chosen one, choose again; otherwise only the
  // new choice can beat the decision.
  if (m_best.slot >= 0 && m_best.bank == bank && m_best.prio > 0) {
    m_dirty = true;
    rescan();
    return;
  }
  DramCandidate c;
  if (scheduler([&](auto& s) { return s.bank_candidate(bank, limits(), c); }) &&
      DramCandidate::better(c, m_best)) {
    m_best = c;
    m_next_decision = std::min(m_next_decision, c.cycle);
  }
}

bool DramChannel::next_write_mode() const {
  const uint32_t rq = m_queues.rd.count;
  const uint32_t wq = m_queues.wr.count;
  if (!m_queues.write_mode)
    return wq >= m_high || (rq == 0 && wq > 0);
  return !(wq == 0 || (wq <= m_low && rq > 0));
}

void DramChannel::rescan() {
  m_dirty = false;
  const bool mode = next_write_mode();
  if (mode != m_queues.write_mode) {
    m_queues.write_mode = mode;
    scheduler([](auto& s) { s.rebuild(); });
  }
  m_best = DramCandidate{};
  if (refresh_state().any_held())
    refresh([&](const auto& r) { r.propose(m_timing, m_floor, m_best); });
  scheduler([&](auto& s) { s.choose(m_best, limits()); });
  m_next_decision = std::min(m_best.cycle, refresh_state().next_due());
}

void DramChannel::decide(uint64_t cycle) {
  m_now = cycle;
  m_floor = std::max(m_floor, cycle);
  if (cycle >= refresh_state().next_due()) {
    refresh([&](auto& r) { r.poll(cycle); });
    m_dirty = true;
  }
  if (m_dirty)
    rescan();
  if (m_best.cycle == cycle) {
    issue(m_best, cycle);
    m_floor = cycle + 1;
    m_dirty = true;
  }
}

void DramChannel::skip_idle_refreshes(uint64_t cycle) {
  if (refresh_state().any_held())
    return;
  for (;;) {
    if (issue_refresh_runs(cycle))
      return;
    uint32_t r = 0;
    uint64_t due = 0, others = 0;
    // A tie between ranks goes to decide(), which orders them, and so does a refresh that
    // another rank's falling due could reorder.
    if (!refresh([&](const auto& p) { return p.first_due(r, due, others); }) || due > cycle ||
        due < m_floor)
      return;
    // As decide() would: held from `due`, the rank closes its open banks with a PREA as soon
    // as they allow, then issues REF as soon as every bank allows.
    const bool open = m_timing.rank(r).open_banks > 0;
    if (open) {
      const uint64_t tp = std::max(m_timing.precharge_all_ready(r), due);
      if (tp > cycle || tp >= others)
        return;
      issue_prea(r, tp);
      m_now = tp;
      m_floor = tp + 1;
      m_dirty = true;
    }
    const uint64_t tr = std::max(m_timing.refresh_ready(r), m_floor > due ? m_floor : due);
    if (tr > cycle || tr >= others) {
      if (open) // the PREA issued: the rank waits for its REF, held, as decide() leaves it
        refresh([&](auto& p) { p.poll(due); });
      return;
    }
    issue_ref(r, tr);
    m_now = tr;
    m_floor = tr + 1;
    m_dirty = true;
  }
}

bool DramChannel::issue_refresh_runs(uint64_t cycle) {
  auto* p = std::get_if<AllBankRefresh>(&m_refresh);
  if (p == nullptr) // no refresh
    return true;
  if (m_log_on) // the log records every command in order
    return false;
  const uint64_t interval = p->interval();
  const uint32_t ranks = m_timing.rank_count();
  uint64_t first = kNever;
  bool open = false;
  for (uint32_t r = 0; r < ranks; ++r) {
    const uint64_t due = p->due(r);
    if (due > cycle)
      continue;
    if (m_timing.rank(r).open_banks > 0 ? ranks > 1 : m_timing.refresh_ready(r) > due)
      return false;
    open = m_timing.rank(r).open_banks > 0;
    for (uint32_t o = 0; o < r; ++o) // the ranks keep their offsets: a tie now or later
      if (p->due(o) <= cycle && p->due(o) % interval == due % interval)
        return false;
    first = std::min(first, due);
  }
  if (first == kNever)
    return true;
  if (first < m_floor)
    return false;
  uint64_t last = 0;
  if (open) { // the only rank
    const uint64_t t0 = close_for_refresh(*p, first, cycle);
    if (t0 == kNever)
      return true;
    if (t0 + m_timing.refresh_cycles() > first + interval) // late: its next REF waits for it
      return false;
    last = issue_refresh_run(*p, 0, t0, cycle);
  } else {
    for (uint32_t r = 0; r < ranks; ++r)
      if (p->due(r) <= cycle)
        last = std::max(last, issue_refresh_run(*p, r, p->due(r), cycle));
  }
  m_now = last;
  m_floor = last + 1;
  m_dirty = true;
  return true;
}

uint64_t DramChannel::close_for_refresh(AllBankRefresh& p, uint64_t due, uint64_t cycle) {
  const uint64_t tp = std::max(m_timing.precharge_all_ready(0), due);
  if (tp > cycle)
    return kNever;
  issue_prea(0, tp);
  m_now = tp;
  m_floor = tp + 1;
  m_dirty = true;
  const uint64_t tr = std::max(m_timing.refresh_ready(0), m_floor);
  if (tr > cycle) {
    p.poll(due);
    return kNever;
  }
  return tr;
}

uint64_t DramChannel::issue_refresh_run(AllBankRefresh& p, uint32_t rank, uint64_t t0,
                                        uint64_t cycle) {
  const uint64_t due = p.due(rank);
  const uint64_t interval = p.interval();
  const uint64_t n = (cycle - due) / interval + 1;
  m_timing.refresh_run(rank, t0, due + interval, interval, n);
  p.skip(rank, n);
  m_stats.refreshes += n;
  return n > 1 ? due + (n - 1) * interval : t0;
}

void DramChannel::advance_to(uint64_t cycle) {
  if (idle()) // a busy channel replays its refreshes with its requests
    skip_idle_refreshes(cycle);
  for (;;) {
    if (m_dirty)
      rescan();
    const uint64_t td = m_next_decision;
    const uint64_t tc = next_completion();
    if (td <= cycle && td <= tc) {
      decide(td);
    } else if (tc <= cycle) {
      m_now = std::max(m_now, tc);
      m_floor = std::max(m_floor, m_now + 1);
      deliver_one();
    } else {
      break;
    }
  }
  if (cycle > m_now) {
    m_now = cycle;
    m_floor = std::max(m_floor, cycle + 1);
  }
}

void DramChannel::deliver_one() {
  const bool rd =
      !m_rd_done.empty() && (m_wr_done.empty() || m_rd_done.front().done <= m_wr_done.front().done);
  auto& fifo = rd ? m_rd_done : m_wr_done;
  const Completion c = fifo.front();
  fifo.pop_front();
  if (on_done)
    on_done(c.id, c.done);
}

void DramChannel::issue(const DramCandidate& c, uint64_t t) {
  switch (c.command) {
  case DramCommand::PREA:
    issue_prea(c.rank, t);
    return;
  case DramCommand::REF:
    issue_ref(c.rank, t);
    return;
  case DramCommand::RD: // may serve the other queue (DramBankRequests::opener)
  case DramCommand::WR:
    issue_cas(c.command == DramCommand::WR, c.slot, t);
    return;
  default:
    break;
  }
  // ACT and PRE serve the active queue.
  DramEntry& e = m_queues.queue(m_queues.write_mode).at(c.slot);
  if (c.command == DramCommand::ACT) {
    if (e.outcome == DramOutcome::Unknown)
      e.outcome = DramOutcome::Miss;
    issue_act(e, c.slot, t);
  } else {
    if (e.outcome == DramOutcome::Unknown)
      e.outcome = DramOutcome::Conflict;
    log(DramCommand::PRE, t, e.bank, m_timing.bank(e.bank).open_row, e.column);
    issue_pre(e.bank, t);
  }
}

void DramChannel::issue_act(const DramEntry& e, int32_t slot, uint64_t t) {
  DramBankRequests& b = m_queues.banks[e.bank];
  b.opener = slot;
  b.opener_write = e.is_write;
  m_timing.activate(e.bank, e.row, t);
  // Requests already queued for this row are now row hits.
  b.hits_rd = m_queues.count_row(e.bank, false, e.row);
  b.hits_wr = m_queues.count_row(e.bank, true, e.row);
  ++m_stats.activates;
  log(DramCommand::ACT, t, e.bank, e.row, e.column);
  scheduler([&](auto& s) { s.update_bank(e.bank); });
}

void DramChannel::forget_row(uint32_t bank) {
  DramBankRequests& b = m_queues.banks[bank];
  b.opener = -1;
  b.hits_rd = 0;
  b.hits_wr = 0;
  ++m_stats.precharges;
}

void DramChannel::issue_pre(uint32_t bank, uint64_t t) {
  if (m_timing.precharge(bank, t))
    forget_row(bank);
  scheduler([&](auto& s) { s.update_bank(bank); });
}

void DramChannel::issue_prea(uint32_t rank, uint64_t t) {
  const uint32_t first = rank * m_timing.banks_per_rank();
  log(DramCommand::PREA, t, first, 0, 0);
  // Only queued requests have candidates to update (an idle channel's refreshes have none).
  const bool queued = m_queues.rd.count > 0 || m_queues.wr.count > 0;
  for (uint32_t i = first; i < first + m_timing.banks_per_rank(); ++i) {
    if (m_timing.precharge(i, t)) {
      forget_row(i);
      if (queued)
        scheduler([&](auto& s) { s.update_bank(i); });
    } else if (queued) {
      scheduler([&](auto& s) { s.retime_bank(i); });
    }
  }
}

void DramChannel::issue_ref(uint32_t rank, uint64_t t) {
  const uint32_t first = rank * m_timing.banks_per_rank();
  m_timing.refresh(rank, t);
  // Only queued requests have candidates to retime (an idle channel's refreshes have none).
  if (m_queues.rd.count > 0 || m_queues.wr.count > 0)
    for (uint32_t i = first; i < first + m_timing.banks_per_rank(); ++i)
      scheduler([&](auto& s) { s.retime_bank(i); });
  refresh([&](auto& p) { p.on_refresh(rank); });
  ++m_stats.refreshes;
  log(DramCommand::REF, t, first, 0, 0);
}

void DramChannel::count_outcome(DramOutcome outcome) {
  switch (outcome) {
  case DramOutcome::Unknown:
  case DramOutcome::Hit:
    ++m_stats.row_hits;
    break;
  case DramOutcome::Miss:
    ++m_stats.row_misses;
    break;
  case DramOutcome::Conflict:
    ++m_stats.row_conflicts;
    break;
  }
}

inline void DramChannel::record_read(const DramEntry& e, uint64_t done) {
  m_rd_done.push_back({e.id, done});
  ++m_stats.reads;
  const uint64_t latency = done - e.arrival;
  m_stats.read_latency_sum_cycles += latency;
  m_stats.read_latency_max_cycles = std::max(m_stats.read_latency_max_cycles, latency);
  if (latency >= m_latency_hist.size())
    m_latency_hist.resize(std::max<size_t>(latency + 1, m_latency_hist.size() * 2), 0);
  ++m_latency_hist[latency];
}

void DramChannel::issue_cas(bool is_write, int32_t slot, uint64_t t) {
  // The slot stays intact until the next enqueue, which only on_dequeue may do.
  const DramEntry& e = m_queues.queue(is_write).at(slot);
  m_queues.remove(is_write, slot);
  DramBankRequests& b = m_queues.banks[e.bank];
  if (b.opener == slot && b.opener_write == is_write)
    b.opener = -1;
  count_outcome(e.outcome);
  m_timing.column(e.bank, is_write, t);
  if (is_write) {
    --b.hits_wr;
    m_wr_done.push_back({e.id, t + m_timing.write_done_cycles()});
    ++m_stats.writes;
  } else {
    --b.hits_rd;
    record_read(e, t + m_timing.read_done_cycles());
  }
  m_stats.data_bus_busy_cycles += m_timing.burst_cycles();
  const bool auto_pre =
      std::visit([&](const auto& p) { return p.auto_precharge(b.hits_rd > 0 || b.hits_wr > 0); },
                 m_page_policy);
  log(auto_pre ? (is_write ? DramCommand::WRA : DramCommand::RDA)
               : (is_write ? DramCommand::WR : DramCommand::RD),
      t, e.bank, e.row, e.column);
  if (auto_pre) {
    m_timing.auto_precharge(e.bank);
    forget_row(e.bank);
  }
  scheduler([&](auto& s) { s.update_bank(e.bank); });
  if (on_dequeue) {
    // The callback may enqueue: leave the scheduler consistent first.
    m_floor = t + 1;
    m_dirty = true;
    on_dequeue(is_write, t);
  }
}

void DramChannel::log(DramCommand c, uint64_t t, uint32_t bank_flat, uint64_t row,
                      uint32_t column) {
  if (!m_log_on)
    return;
  const uint32_t in_rank = bank_flat % m_spec.banks();
  m_log.push_back({t, c, bank_flat / m_spec.banks(), in_rank / m_spec.banks_per_group,
                   in_rank % m_spec.banks_per_group, row, column});
}

uint64_t DramChannel::read_latency_percentile_cycles(double p) const {
  if (m_stats.reads == 0)
    return 0;
  const auto rank = static_cast<uint64_t>(std::ceil(p * static_cast<double>(m_stats.reads)));
  const uint64_t target = std::max<uint64_t>(rank, 1);
  uint64_t seen = 0;
  for (size_t i = 0; i < m_latency_hist.size(); ++i) {
    seen += m_latency_hist[i];
    if (seen >= target)
      return i;
  }
  return m_latency_hist.empty() ? 0 : m_latency_hist.size() - 1;
}

double DramChannel::read_latency_mean_cycles() const {
  return m_stats.reads ? static_cast<double>(m_stats.read_latency_sum_cycles) /
                             static_cast<double>(m_stats.reads)
                       : 0.0;
}

} // namespace npu
