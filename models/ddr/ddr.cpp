#include "models/ddr/ddr.h"

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

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config, Granularity granularity)
    : sc_module(name), socket("socket"), m_config(config), m_tck_ps(config.spec.tck_ps),
      m_tck_whole_ps(whole_ps(config.spec.tck_ps)), m_memory(config.size_bytes),
      m_mapper(config.spec, config.mapping_fields, config.hash) {
  SC_HAS_PROCESS(Ddr);
  for (uint32_t c = 0; c < config.spec.channels; ++c) {
    m_channels.push_back(std::make_unique<DramChannel>(config.spec, config.controller, m_mapper));
    m_channels.back()->on_done = [this](uint64_t id, uint64_t done) { request_done(id, done); };
  }
  m_reserved.resize(m_channels.size());
  m_busy.resize(m_channels.size());
  m_views.resize(m_channels.size());
  for (size_t c = 0; c < m_channels.size(); ++c)
    look(c);
  m_blocked.resize(m_channels.size() * 2);
  m_blocked_lines.resize(m_blocked.size());
  m_min_done_cycles = m_channels.front()->min_done_cycles();
  socket.register_b_transport(this, &Ddr::b_transport);
  socket.register_transport_dbg(this, &Ddr::transport_dbg);
  if (granularity == Granularity::Burst) {
    m_nonblocking = true;
    socket.register_nb_transport_fw(this, &Ddr::nb_transport_fw);
  }
  SC_METHOD(run_controllers);
  sensitive << m_kick;
  dont_initialize();
}

uint64_t Ddr::cycle_now() const {
  return cycle_of(to_ps(time_now(*this)));
}

uint64_t Ddr::cycle_of(uint64_t at_ps) const {
  if (m_tck_whole_ps > 0)
    return at_ps / m_tck_whole_ps; // the same cycle, without floating point
  return static_cast<uint64_t>(std::floor(static_cast<double>(at_ps) / m_tck_ps + 1e-9));
}

uint64_t Ddr::deadline_ps(uint64_t arrival_ps) const {
  // The first command issues a cycle after acceptance at the earliest.
  return cycle_ps(cycle_of(arrival_ps) + 1 + m_min_done_cycles);
}

uint64_t Ddr::cycle_ps(uint64_t cycle) const {
  if (m_tck_whole_ps > 0 && cycle < (uint64_t{1} << 53) / m_tck_whole_ps)
    return cycle * m_tck_whole_ps;
  return static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * m_tck_ps));
}

sc_core::sc_time Ddr::until_cycle(uint64_t cycle) const {
  const uint64_t at = cycle_ps(cycle);
  const uint64_t now = to_ps(time_now(*this));
  return at > now ? ps(at - now) : sc_core::SC_ZERO_TIME;
}

void Ddr::request_done(uint64_t id, uint64_t done_cycle) {
  auto* w = reinterpret_cast<Waiter*>(static_cast<uintptr_t>(id));
  w->done_cycle = std::max(w->done_cycle, done_cycle);
  if (--w->remaining == 0)
    finished(w);
}

void Ddr::finished(Waiter* w) {
  if (w->payload) {
    // Answered by the controllers' method, after this run of the channels; a request that
    // finished while a thread advanced its channel needs the method to run.
    m_responses.push_back(w);
    if (!m_in_controllers)
      m_kick.notify(sc_core::SC_ZERO_TIME);
  } else {
    // On the burst path the last data burst may still be ahead (run_controllers).
    w->done.notify(until_cycle(w->done_cycle));
  }
}

void Ddr::look(size_t c) {
  const DramChannel& ch = *m_channels[c];
  View& v = m_views[c];
  v.next_event = ch.due(0) ? 0 : ch.next_event(); // 0: a rescan is pending
  v.next_bound = ch.next_completion_bound();
  v.issued = ch.issued_pending();
  v.idle = ch.idle() && !ch.due(UINT64_MAX - 1); // nothing to replay either
  v.queued = {ch.queued(false), ch.queued(true)};
}

void Ddr::run_controllers() {
  m_in_controllers = true;
  const uint64_t now_ps = to_ps(time_now(*this));
  take_arrivals(now_ps);
  const uint64_t now = cycle_now();
  m_last_cycle = now;
  uint64_t next = UINT64_MAX;
  // Channels not marked busy have nothing queued or in flight and nothing to replay: the
  // loops below would neither advance them nor wake for them.
  // The loops look at each busy channel's view, not the channel: a channel is several
  // cache lines, and a run advances a few of the busy channels.
  m_busy.for_each([&](size_t c) {
    const View& v = m_views[c];
    // On the burst path every request whose RD/WR has issued is done at a known cycle: its
    // transaction is answered now with the rest as annotated delay, so the method wakes
    // once per batch of column commands rather than once per data burst.
    if (v.next_event > now && !(m_nonblocking && v.issued))
      return;
    DramChannel& ch = *m_channels[c];
    if (ch.due(now)) {
      ch.advance_to(now);
      m_passed_cycle = UINT64_MAX; // it may have freed queue entries
    }
    if (m_nonblocking)
      ch.deliver_issued();
    look(c);
  });
  // Requests waiting for a queue entry take the ones freed up to now, in order of arrival.
  admit_blocked(now);
  // Wake for the next completion only; the commands before it are replayed by the next
  // advance (an arrival advances its channel first). Requests waiting for a queue entry
  // need the exact cycle a command frees one.
  const bool exact = m_blocked_count > 0;
  m_busy.for_each([&](size_t c) {
    const View& v = m_views[c];
    next = std::min(next, exact ? v.next_event : v.next_bound);
    if (v.idle)
      m_busy.clear(c);
  });
  m_answering.swap(m_responses);
  m_in_controllers = false;
  for (Waiter* w : m_answering)
    respond(w); // may bring new arrivals
  m_answering.clear();
  uint64_t at = next == UINT64_MAX ? UINT64_MAX : std::max(cycle_ps(next), now_ps + 1);
  // Arrivals that surely find room are taken late, together, each at its own cycle.
  if (!m_arrivals.empty())
    at = std::min(at, std::max(deadline_ps(m_arrivals.top().at), now_ps + 1));
  if (!m_exact_arrivals.empty())
    at = std::min(at, std::max(m_exact_arrivals.top(), now_ps + 1));
  if (at == UINT64_MAX)
    next_trigger(m_kick);
  else
    next_trigger(ps(at) - time_now(*this), m_kick);
}

tlm::tlm_response_status Ddr::check(const tlm::tlm_generic_payload& payload) const {
  const uint64_t len = payload.get_data_length();
  if (len == 0 || !m_memory.contains(payload.get_address(), len))
    return tlm::TLM_ADDRESS_ERROR_RESPONSE;
  if (payload.get_byte_enable_ptr())
    return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
  return tlm::TLM_OK_RESPONSE;
}

Ddr::Waiter* Ddr::take_waiter() {
  if (m_spare_waiters.empty()) {
    m_waiter_pool.push_back(std::make_unique<Waiter>());
    return m_waiter_pool.back().get();
  }
  Waiter* w = m_spare_waiters.back();
  m_spare_waiters.pop_back();
  w->done_cycle = 0;
  return w;
}

uint64_t Ddr::new_id(Waiter* waiter) {
  ++waiter->remaining;
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(waiter));
}

void Ddr::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (const auto status = check(payload); status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    return;
  }
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  // The controller queues requests at the time they arrive.
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  const bool is_write = payload.is_write();
  const uint64_t access = m_config.spec.access_bytes;
  if (m_nonblocking)
    take_arrivals(to_ps(time_now(*this))); // earlier arrivals enter first
  Waiter& waiter = *take_waiter();
  admit_blocked(cycle_now()); // those waiting in line take the entries free by now first
  for (uint64_t a = addr / access * access; a < addr + len; a += access) {
    const uint32_t c = m_mapper.channel_of(a);
    DramChannel& ch = *m_channels[c];
    // The controller sleeps between completions: replay the commands up to now first
    // (they may have freed a queue entry).
    if (const uint64_t cycle = cycle_now(); cycle > ch.now()) {
      ch.advance_to(cycle);
      m_passed_cycle = UINT64_MAX; // it may have freed queue entries
      look(c);
    }
    if (!ch.can_accept(is_write)) {
      // Queue full: wait in line, in order of arrival, with every other blocked request
      // (admit_blocked queues the rest as entries free up).
      ++waiter.remaining;
      block(Blocked{&waiter, a, addr + len, is_write, c});
      break;
    }
    const uint64_t id = new_id(&waiter);
    ch.enqueue(DramRequest{id, a, is_write}, std::max(cycle_now(), ch.now()));
    m_busy.set(c);
    look(c);
  }
  // The controllers look at the new requests one delta later, once every request
  // arriving at this time is in (write draining decides on the queues' fill).
  m_kick.notify(sc_core::SC_ZERO_TIME);
  while (waiter.remaining > 0)
    sc_core::wait(waiter.done);
  m_spare_waiters.push_back(&waiter);
  move_data(payload);
  if (m_trace)
    m_trace->ddr_bytes(to_ps(time_now(*this)), len);
  // The controller front end and PHY sit outside the DRAM timing.
  delay = ps(m_config.controller_latency_ps);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

tlm::tlm_sync_enum Ddr::nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ)
    return tlm::TLM_ACCEPTED; // END_RESP: nothing left to do
  if (const auto status = check(payload); status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  }
  const uint64_t arrival = to_ps(time_now(*this) + delay);
  // An arrival that may find a full queue is taken at its time, so that it waits in line
  // from the right cycle; one that surely finds room may be taken late.
  const bool exact = !reserve(payload) || m_blocked_count > 0;
  m_arrivals.push(Arrival{arrival, m_arrival_seq++, &payload});
  if (exact)
    m_exact_arrivals.push(arrival);
  m_kick.notify(exact ? delay : ps(deadline_ps(arrival)) - time_now(*this));
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

bool Ddr::reserve(const tlm::tlm_generic_payload& payload) {
  const uint64_t access = m_config.spec.access_bytes;
  const uint64_t end = payload.get_address() + payload.get_data_length();
  const size_t dir = payload.is_write() ? 1 : 0;
  const uint32_t capacity = queue_capacity(payload.is_write());
  bool room = true;
  for (uint64_t a = payload.get_address() / access * access; a < end; a += access) {
    const uint32_t c = m_mapper.channel_of(a);
    uint32_t& n = m_reserved[c][dir];
    ++n;
    room = room && m_views[c].queued[dir] + n <= capacity;
  }
  return room;
}

void Ddr::block(Blocked b) {
  b.seq = m_blocked_seq++;
  wait_in_line(b);
}

void Ddr::wait_in_line(const Blocked& b) {
  const size_t line = b.channel * 2 + b.is_write;
  m_blocked[line].insert(b);
  m_blocked_lines.set(line);
  ++m_blocked_count;
}

void Ddr::admit_blocked(uint64_t cycle) {
  if (m_blocked_count == 0 || cycle == m_passed_cycle)
    return;
  // Queues only fill during the pass, so a line whose queue is full at its start waits it
  // out; the others are served oldest request first across lines.
  auto room = [&](size_t line) {
    const View& v = m_views[line / 2];
    const size_t dir = line % 2;
    if (v.next_event > cycle && v.queued[dir] >= queue_capacity(dir == 1))
      return false; // full, and nothing frees an entry by `cycle`
    DramChannel& ch = *m_channels[line / 2];
    if (cycle > ch.now()) {
      ch.advance_to(cycle);
      look(line / 2);
    }
    return ch.can_accept(line % 2 == 1);
  };
  auto& heads = m_heads; // empty between passes; kept for its storage
  // The lines that have held a request since last seen empty, in line order.
  m_blocked_lines.for_each([&](size_t line) {
    if (m_blocked[line].empty())
      m_blocked_lines.clear(line);
    else if (room(line))
      heads.emplace(m_blocked[line].front().seq, line);
  });
  while (!heads.empty()) {
    const size_t line = heads.top().second;
    heads.pop();
    auto& waiting = m_blocked[line];
    Blocked b = waiting.front();
    waiting.pop_front();
    --m_blocked_count;
    if (!admit(b, cycle)) {
      // Stopped by another full queue (or this one, now full): it keeps its place in line.
      wait_in_line(b);
    }
    if (!waiting.empty() && room(line))
      heads.emplace(waiting.front().seq, line);
  }
  m_passed_cycle = cycle;
}

void Ddr::take_arrivals(uint64_t until_ps) {
  while (!m_arrivals.empty() && m_arrivals.top().at <= until_ps) {
    const auto [at, seq, payload] = m_arrivals.top();
    m_arrivals.pop();
    admit_blocked(cycle_of(at)); // those waiting in line take the entries free by then first
    accept(*payload, cycle_of(at));
  }
  while (!m_exact_arrivals.empty() && m_exact_arrivals.top() <= until_ps)
    m_exact_arrivals.pop();
}

void Ddr::accept(tlm::tlm_generic_payload& payload, uint64_t cycle) {
  Waiter* waiter = take_waiter();
  waiter->payload = &payload;
  const uint64_t access = m_config.spec.access_bytes;
  // Held open until every request is queued: the first ones may finish before the last
  // one finds room.
  ++waiter->remaining;
  Blocked b{waiter, payload.get_address() / access * access,
            payload.get_address() + payload.get_data_length(), payload.is_write()};
  b.reserved = true; // counted when it came (nb_transport_fw)
  if (admit(b, cycle))
    return;
  // Its requests not queued now wait in line: no longer counted as bound for their queues.
  for (uint64_t a = b.next; a < b.end; a += access)
    --m_reserved[m_mapper.channel_of(a)][b.is_write ? 1 : 0];
  b.reserved = false;
  block(b);
}

bool Ddr::admit(Blocked& b, uint64_t cycle) {
  const uint64_t end = b.end;
  const bool is_write = b.is_write;
  for (; b.next < end; b.next += m_config.spec.access_bytes) {
    const uint32_t c = m_mapper.channel_of(b.next);
    DramChannel& ch = *m_channels[c];
    if (cycle > ch.now()) {
      ch.advance_to(cycle);
      look(c);
    }
    if (!ch.can_accept(is_write)) {
      b.channel = c;
      return false;
    }
    ch.enqueue(DramRequest{new_id(b.waiter), b.next, is_write}, std::max(cycle, ch.now()));
    if (b.reserved)
      --m_reserved[c][is_write ? 1 : 0];
    m_busy.set(c);
    look(c);
  }
  if (--b.waiter->remaining == 0)
    finished(b.waiter);
  return true;
}

void Ddr::respond(Waiter* waiter) {
  tlm::tlm_generic_payload& payload = *waiter->payload;
  waiter->payload = nullptr;
  m_spare_waiters.push_back(waiter);
  const sc_core::sc_time done = until_cycle(waiter->done_cycle);
  move_data(payload);
  if (m_trace)
    m_trace->ddr_bytes(to_ps(time_now(*this)), payload.get_data_length()); // monotonic
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  // The controller front end and PHY sit outside the DRAM timing.
  sc_core::sc_time delay = done + ps(m_config.controller_latency_ps);
  socket->nb_transport_bw(payload, phase, delay);
}

void Ddr::move_data(tlm::tlm_generic_payload& payload) {
  const uint64_t addr = payload.get_address();
  const uint64_t len = payload.get_data_length();
  const auto* ext = payload.get_extension<NpuExtension>();
  m_bytes_by_initiator[static_cast<size_t>(ext ? ext->who : Initiator::Unknown)]
                      [payload.is_write() ? 1 : 0] += len;
  if (payload.is_write()) {
    m_memory.write(addr, payload.get_data_ptr(), len);
    m_write_bytes += len;
  } else {
    m_memory.read(addr, payload.get_data_ptr(), len);
    m_read_bytes += len;
  }
}

unsigned Ddr::transport_dbg(tlm::tlm_generic_payload& payload) {
  return debug_access(m_memory, payload);
}

void Ddr::catch_up() const {
  // Idle channels were left behind; bring their refreshes up to the latest run.
  for (const auto& ch : m_channels)
    if (ch->now() < m_last_cycle)
      ch->advance_to(m_last_cycle);
}

StatGroup Ddr::stats(uint64_t simulated_ps) const {
  catch_up();
  return m_stats.collect(simulated_ps);
}

BlockEnergy Ddr::energy(uint64_t simulated_ps) const {
  catch_up();
  DramActivity sum;
  for (const auto& ch : m_channels)
    sum += ch->activity(std::max(cycle_of(simulated_ps), ch->now()));
  return dram_energy(m_config.spec, sum);
}

BlockEnergy Ddr::energy_so_far(uint64_t simulated_ps) const {
  // Each channel as far as it has run. Its state beyond is not known yet (a refresh may
  // close the banks left open), so the time up to `simulated_ps` counts at the lowest
  // background, precharged standby: later looks only add.
  const uint64_t end = cycle_of(simulated_ps);
  DramActivity sum;
  for (const auto& ch : m_channels) {
    DramActivity a = ch->activity(ch->now());
    if (end > ch->now())
      a.precharged_cycles += (end - ch->now()) * ch->timing().rank_count();
    sum += a;
  }
  return dram_energy(m_config.spec, sum);
}

BlockEnergy Ddr::energy_by_initiator(uint64_t simulated_ps) const {
  const BlockEnergy whole = energy(simulated_ps);
  BlockEnergy out{whole.block, {}};
  for (const EnergyPart& part : whole.parts) {
    // The bytes that share an access part: reads, writes, or both; refresh and background
    // belong to no initiator.
    const bool read = part.name == "read", write = part.name == "write";
    if (!read && !write && part.name != "activate" && part.name != "precharge" &&
        part.name != "io") {
      out.parts.push_back(part);
      continue;
    }
    std::array<uint64_t, kInitiators> bytes{};
    uint64_t total = 0;
    size_t last = 0; // the last initiator with bytes takes the remainder: exact sums
    for (size_t who = 0; who < kInitiators; ++who) {
      const auto& [rd, wr] = m_bytes_by_initiator[who];
      bytes[who] = read ? rd : write ? wr : rd + wr;
      total += bytes[who];
      last = bytes[who] > 0 ? who : last;
    }
    if (total == 0) {
      out.parts.push_back(part);
      continue;
    }
    double given = 0;
    for (size_t who = 0; who <= last; ++who) {
      if (bytes[who] == 0)
        continue;
      const double pj =
          who == last ? part.pj - given : part.pj * static_cast<double>(bytes[who]) / total;
      given += pj;
      out.add(std::string(initiator_name(static_cast<Initiator>(who))) + "_" + part.name, pj);
    }
  }
  return out;
}

DramChannelStats Ddr::channel_sum() const {
  DramChannelStats sum;
  for (const auto& ch : m_channels) {
    const DramChannelStats& s = ch->stats();
    sum.reads += s.reads;
    sum.writes += s.writes;
    sum.row_hits += s.row_hits;
    sum.row_misses += s.row_misses;
    sum.row_conflicts += s.row_conflicts;
    sum.activates += s.activates;
    sum.refreshes += s.refreshes;
    sum.data_bus_busy_cycles += s.data_bus_busy_cycles;
  }
  return sum;
}

double Ddr::read_latency_mean_ns() const {
  double latency_sum = 0;
  for (const auto& ch : m_channels)
    latency_sum += static_cast<double>(ch->stats().read_latency_sum_cycles);
  const uint64_t reads = channel_sum().reads;
  return reads ? latency_sum / reads * m_tck_ps / 1000.0 : 0;
}

double Ddr::utilization(uint64_t simulated_ps) const {
  const double capacity = static_cast<double>(simulated_ps) * m_channels.size();
  return capacity > 0
             ? static_cast<double>(channel_sum().data_bus_busy_cycles) * m_tck_ps / capacity
             : 0;
}

} // namespace npu
