#include "models/ddr/ddr_admission.h"

namespace npu {

void DdrAdmission::Line::pop_front() {
  if (++m_head == m_items.size()) {
    m_items.clear();
    m_head = 0;
  }
}

void DdrAdmission::Line::insert(const Blocked& b) {
  if (m_head > 64 && m_head * 2 > m_items.size()) { // drop the consumed front
    m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
    m_head = 0;
  }
  auto at = m_items.end();
  if (!empty() && m_items.back().seq > b.seq)
    at = std::upper_bound(m_items.begin() + static_cast<std::ptrdiff_t>(m_head), m_items.end(),
                          b.seq, [](uint64_t seq, const Blocked& x) { return seq < x.seq; });
  m_items.insert(at, b);
}

DdrAdmission::DdrAdmission(DramControllers& controllers, uint64_t access_bytes,
                           std::function<void(DdrTransaction&)> finished)
    : m_controllers(controllers), m_access_bytes(access_bytes), m_finished(std::move(finished)) {
  m_reserved.resize(controllers.size());
  m_lines.resize(controllers.size() * 2);
  m_waiting_lines.resize(m_lines.size());
}

DdrTransaction& DdrAdmission::take() {
  if (m_spare.empty()) {
    m_pool.push_back(std::make_unique<DdrTransaction>());
    m_pool.back()->index = static_cast<uint32_t>(m_pool.size() - 1);
    return *m_pool.back();
  }
  DdrTransaction* t = m_spare.back();
  m_spare.pop_back();
  t->done_cycle = 0;
  return *t;
}

void DdrAdmission::request_done(uint64_t id, uint64_t done_cycle) {
  DdrTransaction& t = *m_pool[id];
  t.done_cycle = std::max(t.done_cycle, done_cycle);
  if (--t.remaining == 0)
    m_finished(t);
}

void DdrAdmission::admit_blocking(DdrTransaction& t, uint64_t addr, uint64_t len, bool is_write,
                                  uint64_t cycle) {
  admit_waiting(cycle); // those waiting in line take the entries free by now first
  for (uint64_t a = addr / m_access_bytes * m_access_bytes; a < addr + len; a += m_access_bytes) {
    const uint32_t c = m_controllers.channel_of(a);
    // The controller sleeps between completions: replay the commands up to now first
    // (they may have freed a queue entry).
    bool advanced = false;
    const bool queued =
        m_controllers.advance_enqueue(c, DramRequest{t.index, a, is_write}, cycle, advanced);
    if (advanced)
      channel_advanced();
    ++t.remaining; // a request queued, or the rest held open while they wait
    if (!queued) {
      // Queue full: wait in line, in order of arrival, with every other blocked request
      // (admit_waiting queues the rest as entries free up).
      block(Blocked{&t, a, addr + len, is_write, c});
      break;
    }
  }
}

bool DdrAdmission::arrive(tlm::tlm_generic_payload& payload, uint64_t arrival_ps) {
  // An arrival that may find a full queue is taken at its time, so that it waits in line
  // from the right cycle; one that surely finds room may be taken late.
  const bool exact = !reserve(payload) || m_waiting_count > 0;
  m_arrivals.push(Arrival{arrival_ps, m_arrival_seq++, &payload});
  if (exact)
    m_exact_arrivals.push(arrival_ps);
  return exact;
}

bool DdrAdmission::reserve(const tlm::tlm_generic_payload& payload) {
  const uint64_t end = payload.get_address() + payload.get_data_length();
  const size_t dir = payload.is_write() ? 1 : 0;
  const uint32_t capacity = m_controllers.capacity(payload.is_write());
  bool room = true;
  for (uint64_t a = payload.get_address() / m_access_bytes * m_access_bytes; a < end;
       a += m_access_bytes) {
    const uint32_t c = m_controllers.channel_of(a);
    uint32_t& n = m_reserved[c][dir];
    ++n;
    room = room && m_controllers.view(c).queued[dir] + n <= capacity;
  }
  return room;
}

uint64_t DdrAdmission::deadline_ps(uint64_t arrival_ps) const {
  // The first command issues a cycle after acceptance at the earliest.
  const DramClock& clock = m_controllers.clock();
  return clock.cycle_ps(clock.cycle_of(arrival_ps) + 1 + m_controllers.min_done_cycles());
}

uint64_t DdrAdmission::next_due_arrival_ps(uint64_t after_ps) const {
  uint64_t at = UINT64_MAX;
  // Arrivals that surely find room are taken late, together, each at its own cycle.
  if (!m_arrivals.empty())
    at = std::max(deadline_ps(m_arrivals.top().at), after_ps);
  if (!m_exact_arrivals.empty())
    at = std::min(at, std::max(m_exact_arrivals.top(), after_ps));
  return at;
}

void DdrAdmission::block(Blocked b) {
  b.seq = m_blocked_seq++;
  wait_in_line(b);
}

void DdrAdmission::wait_in_line(const Blocked& b) {
  const size_t line = b.channel * 2 + b.is_write;
  m_lines[line].insert(b);
  m_waiting_lines.set(line);
  ++m_waiting_count;
}

bool DdrAdmission::room(size_t line, uint64_t cycle) {
  const size_t c = line / 2;
  const bool is_write = line % 2 == 1;
  const DramControllers::View& v = m_controllers.view(c);
  if (v.next_event > cycle && v.queued[line % 2] >= m_controllers.capacity(is_write))
    return false; // full, and nothing frees an entry by `cycle`
  m_controllers.advance(c, cycle);
  return m_controllers.can_accept(c, is_write);
}

void DdrAdmission::serve_waiting(uint64_t cycle) {
  // Queues only fill during the pass, so a line whose queue is full at its start waits it
  // out; the others are served oldest request first across lines.
  auto& heads = m_heads; // empty between passes; kept for its storage
  // The lines that have held a request since last seen empty, in line order.
  m_waiting_lines.for_each([&](size_t line) {
    if (m_lines[line].empty())
      m_waiting_lines.clear(line);
    else if (room(line, cycle))
      heads.emplace(m_lines[line].front().seq, line);
  });
  while (!heads.empty()) {
    const size_t line = heads.top().second;
    heads.pop();
    Line& waiting = m_lines[line];
    Blocked b = waiting.front();
    waiting.pop_front();
    --m_waiting_count;
    if (!admit(b, cycle)) {
      // Stopped by another full queue (or this one, now full): it keeps its place in line.
      wait_in_line(b);
    }
    if (!waiting.empty() && room(line, cycle))
      heads.emplace(waiting.front().seq, line);
  }
  m_passed_cycle = cycle;
}

void DdrAdmission::take_due_arrivals(uint64_t until_ps) {
  const DramClock& clock = m_controllers.clock();
  while (!m_arrivals.empty() && m_arrivals.top().at <= until_ps) {
    const auto [at, seq, payload] = m_arrivals.top();
    m_arrivals.pop();
    admit_waiting(clock.cycle_of(at)); // those waiting in line take the entries free by then
    accept(*payload, clock.cycle_of(at));
  }
  while (!m_exact_arrivals.empty() && m_exact_arrivals.top() <= until_ps)
    m_exact_arrivals.pop();
}

void DdrAdmission::accept(tlm::tlm_generic_payload& payload, uint64_t cycle) {
  DdrTransaction& t = take();
  t.payload = &payload;
  // Held open until every request is queued: the first ones may finish before the last
  // one finds room.
  ++t.remaining;
  Blocked b{&t, payload.get_address() / m_access_bytes * m_access_bytes,
            payload.get_address() + payload.get_data_length(), payload.is_write()};
  b.reserved = true; // counted when it came (arrive)
  if (admit(b, cycle))
    return;
  // Its requests not queued now wait in line: no longer counted as bound for their queues.
  for (uint64_t a = b.next; a < b.end; a += m_access_bytes)
    --m_reserved[m_controllers.channel_of(a)][b.is_write ? 1 : 0];
  b.reserved = false;
  block(b);
}

bool DdrAdmission::admit(Blocked& b, uint64_t cycle) {
  const uint64_t end = b.end;
  const bool is_write = b.is_write;
  for (; b.next < end; b.next += m_access_bytes) {
    const uint32_t c = m_controllers.channel_of(b.next);
    bool advanced = false;
    if (!m_controllers.advance_enqueue(c, DramRequest{b.transaction->index, b.next, is_write},
                                       cycle, advanced)) {
      b.channel = c;
      return false;
    }
    ++b.transaction->remaining;
    if (b.reserved)
      --m_reserved[c][is_write ? 1 : 0];
  }
  if (--b.transaction->remaining == 0)
    m_finished(*b.transaction);
  return true;
}

} // namespace npu
