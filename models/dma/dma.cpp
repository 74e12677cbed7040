#include "models/dma/dma.h"

#include "common/error.h"
#include "config/units.h"

#include <algorithm>
#include <queue>
#include <sstream>

namespace npu {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const DmaConfig& config, Granularity granularity,
                     TimeOrder* order)
    : sc_module(name), socket("socket"), m_config(config), m_granularity(granularity),
      m_period_ps(static_cast<uint64_t>(1e12 / config.frequency_hz + 0.5)) {
  for (uint32_t i = 0; i < config.channels; ++i)
    m_channels.emplace_back(m_stats, "channel" + std::to_string(i));
  SC_HAS_PROCESS(DmaEngine);
  SC_METHOD(grant);
  sensitive << m_grant;
  dont_initialize();
  if (granularity != Granularity::Access64) {
    socket.register_nb_transport_bw(this, &DmaEngine::nb_transport_bw);
    SC_THREAD(pump);
    return;
  }
  if (!order) {
    m_own_order = std::make_unique<TimeOrder>("order");
    order = m_own_order.get();
  }
  m_order = order;
  for (size_t i = 0; i < m_channels.size(); ++i)
    m_channels[i].workers =
        std::make_unique<WorkerPool>(("channel" + std::to_string(i)).c_str(), config.outstanding);
}

DmaEngine::Channel::Channel(StatList& stats, const std::string& name)
    : bytes(stats, name + "_bytes", "bytes", "bytes moved by " + name),
      gbps(stats, name + "_gbps", "GB/s", "achieved bandwidth of " + name + " while busy",
           [this](uint64_t) { return busy_gbps(bytes.count(), busy_ps); }) {}

uint32_t DmaEngine::acquire(const DmaTransfer& t, const NpuExtension& tag) {
  Claim claim;
  claim.key = {
      to_ps(time_now(*this)), static_cast<int>(tag.who), tag.unit, tag.launch_id, t.src, t.dst,
      m_claim_seq++};
  m_claims.push_back(&claim);
  m_grant.notify(sc_core::SC_ZERO_TIME); // once every claim of this time is in
  sc_core::wait(claim.granted);
  return claim.channel;
}

void DmaEngine::grant() {
  std::sort(m_claims.begin(), m_claims.end(),
            [](const Claim* a, const Claim* b) { return a->key < b->key; });
  size_t granted = 0;
  const uint32_t first = m_next_channel; // each free channel is looked at once from here
  for (uint32_t i = 0; i < m_channels.size() && granted < m_claims.size(); ++i) {
    const uint32_t ch = (first + i) % m_channels.size();
    if (m_channels[ch].busy)
      continue;
    m_channels[ch].busy = true;
    Claim& claim = *m_claims[granted++];
    claim.channel = ch;
    claim.granted.notify(); // immediate: the claimant runs in this evaluation phase
    m_next_channel = (ch + 1) % m_channels.size();
  }
  m_claims.erase(m_claims.begin(), m_claims.begin() + static_cast<std::ptrdiff_t>(granted));
}

static std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

DmaEngine::BurstSpan DmaEngine::span(const DmaTransfer& t, uint64_t index) const {
  const uint64_t per_row = (t.row_bytes + m_config.burst_bytes - 1) / m_config.burst_bytes;
  const uint64_t row = index / per_row;
  const uint64_t offset = (index % per_row) * m_config.burst_bytes;
  const auto len = static_cast<uint32_t>(std::min(m_config.burst_bytes, t.row_bytes - offset));
  return {t.src + row * t.src_stride + offset, t.dst + row * t.dst_stride + offset,
          row * t.row_bytes + offset, len};
}

void DmaEngine::fail(const DmaTransfer& t, const BurstSpan& at, tlm::tlm_response_status status,
                     const std::string& what) const {
  throw SimulationError(
      "DMA transfer '" + what + "' (" + units::format_bytes(t.bytes()) + " from " + hex(t.src) +
      " to " + hex(t.dst) + ") failed at offset " + std::to_string(at.offset) + ": " +
      (status == tlm::TLM_ADDRESS_ERROR_RESPONSE ? "address not mapped" : "bus error"));
}

void DmaEngine::burst(const DmaTransfer& t, uint64_t index, uint32_t ch, const std::string& what,
                      const NpuExtension& tag) {
  const BurstSpan b = span(t, index);
  std::vector<uint8_t> data(b.len);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  auto status = transact(socket, tlm::TLM_READ_COMMAND, b.src, data.data(), b.len, tag, delay);
  wait_until(to_ps(time_now(*this) + delay), ch, index);
  if (status == tlm::TLM_OK_RESPONSE) {
    delay = sc_core::SC_ZERO_TIME;
    status = transact(socket, tlm::TLM_WRITE_COMMAND, b.dst, data.data(), b.len, tag, delay);
    wait_until(to_ps(time_now(*this) + delay), ch, index);
  }
  if (status != tlm::TLM_OK_RESPONSE)
    fail(t, b, status, what);
}

void DmaEngine::run(const DmaTransfer& t, const std::string& what, const NpuExtension& tag) {
  if (t.bytes() == 0)
    return;
  const uint32_t ch = acquire(t, tag);
  Channel& channel = m_channels[ch];
  const uint64_t begin = to_ps(time_now(*this));
  NpuExtension ext = tag;
  ext.who = Initiator::Dma;
  uint64_t issued = 0;
  try {
    issued = m_granularity == Granularity::Access64 ? run_waited(t, ch, begin, what, ext)
                                                    : run_decoupled(t, ch, begin, what, ext);
  } catch (...) {
    channel.busy = false;
    m_grant.notify(sc_core::SC_ZERO_TIME);
    throw;
  }
  m_bursts += issued;
  channel.bytes += t.bytes();
  if (tag.who == Initiator::Compute)
    m_kernel_bytes += t.bytes();
  ++channel.transfers;
  channel.busy_ps += to_ps(time_now(*this)) - begin;
  if (m_trace)
    m_trace->slice(TraceTrack::DmaChannel, ch, what, begin, to_ps(time_now(*this)),
                   tag.who == Initiator::Compute ? static_cast<int64_t>(tag.launch_id)
                                                 : Tracer::kNoLaunch);
  channel.busy = false;
  m_grant.notify(sc_core::SC_ZERO_TIME);
}

uint32_t DmaEngine::in_flight(const DmaTransfer& t) const {
  // Short rows make short bursts: more of them fit in the channel's read buffer.
  return bursts_in_flight(m_config, std::min<uint64_t>(t.row_bytes, m_config.burst_bytes));
}

uint64_t DmaEngine::bursts(const DmaTransfer& t) const {
  return (t.row_bytes + m_config.burst_bytes - 1) / m_config.burst_bytes * t.rows;
}

uint64_t DmaEngine::run_waited(const DmaTransfer& t, uint32_t ch, uint64_t begin,
                               const std::string& what, const NpuExtension& tag) {
  uint64_t issued = 0;
  // The workers start now and wait out the setup latency with their first bursts' slots.
  m_channels[ch].workers->run(
      bursts(t),
      [&](uint64_t index) {
        // The channel issues at most one burst per cycle.
        wait_until(begin + m_config.setup_latency_ps + index * m_period_ps, ch, index);
        burst(t, index, ch, what, tag);
        ++issued;
      },
      in_flight(t));
  return issued;
}

uint64_t DmaEngine::run_decoupled(const DmaTransfer& t, uint32_t ch, uint64_t begin,
                                  const std::string& what, const NpuExtension& tag) {
  Flow flow;
  flow.transfer = &t;
  flow.what = &what;
  flow.tag = tag;
  flow.channel = ch;
  flow.begin = begin + m_config.setup_latency_ps;
  flow.count = bursts(t);
  flow.window = in_flight(t);
  flow.spans = m_granularity == Granularity::Transaction;
  flow.freed.assign(flow.window); // free from the start: the first bursts go at their slots
  ready(flow);
  sc_core::wait(flow.done);
  if (flow.error)
    std::rethrow_exception(flow.error);
  return flow.count;
}

void DmaEngine::ready(Flow& f) {
  if (f.spans) {
    ready_span(f);
    return;
  }
  if (f.queued || f.error || f.next == f.count || f.freed.empty())
    return;
  // The next burst takes the place in the window that freed first; the channel issues at
  // most one burst per cycle.
  const uint64_t slot = f.begin + f.next * m_period_ps;
  f.queued_at = std::max(f.freed.top(), slot);
  // Access64: the worker whose burst freed the place at queued_at takes the next burst
  // then, after every worker already due at that time.
  f.queued_late = f.freed.top() >= slot ? 1 : 0;
  m_ready.add(queued_entry(f));
  f.queued = true;
  wake_pump(f.queued_at);
}

void DmaEngine::start_burst(Flow& f, uint64_t at) {
  f.queued = false;
  Slot* slot;
  if (m_free_slots.empty()) {
    m_slots.push_back(std::make_unique<Slot>());
    slot = m_slots.back().get();
    slot->data.resize(m_config.burst_bytes);
    m_slot_of.put(&slot->payload, slot);
  } else {
    slot = m_free_slots.back();
    m_free_slots.pop_back();
  }
  slot->flow = &f;
  slot->index = f.next;
  slot->tag = f.tag;
  if (f.spans) {
    start_span(f, *slot, at);
    return;
  }
  slot->span = span(*f.transfer, f.next);
  slot->writing = false;
  ++f.next;
  f.freed.pop();
  ready(f); // while the window has room, the next burst follows at its slot
  send(*slot, at);
}

void DmaEngine::send(Slot& slot, uint64_t at) {
  tlm::tlm_generic_payload& p = slot.payload;
  p.set_command(slot.writing ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(slot.writing ? slot.span.dst : slot.span.src);
  p.set_data_ptr(slot.data.data());
  p.set_data_length(slot.span.len);
  p.set_streaming_width(slot.span.len);
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (batched(slot)) {
    if (m_batch.empty())
      m_batch_start = at;
    m_batch.emplace_back(&slot, at);
    return;
  }
  transmit(slot, at);
}

void DmaEngine::transmit(Slot& slot, uint64_t at) {
  const uint64_t now = to_ps(time_now(*this));
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = ps(at > now ? at - now : 0);
  if (socket->nb_transport_fw(slot.payload, phase, delay) == tlm::TLM_COMPLETED)
    stage_done(slot, now + to_ps(delay));
}

tlm::tlm_sync_enum DmaEngine::nb_transport_bw(tlm::tlm_generic_payload& payload,
                                              tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  Slot* const* slot = m_slot_of.find(&payload);
  sc_assert(slot);
  stage_done(**slot, to_ps(time_now(*this) + delay));
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void DmaEngine::keep_failure(Slot& slot) const {
  Flow& f = *slot.flow;
  try {
    fail(*f.transfer, slot.span, slot.payload.get_response_status(), *f.what);
  } catch (...) {
    if (!f.error)
      f.error = std::current_exception();
  }
}

void DmaEngine::stage_done(Slot& slot, uint64_t at) {
  Flow& f = *slot.flow;
  if (f.spans) {
    span_done(slot, at);
    return;
  }
  if (!slot.payload.is_response_ok()) {
    keep_failure(slot);
  } else if (!slot.writing) {
    slot.writing = true; // the write leaves when the read data is in
    if (at > current_ps()) {
      m_stages.push(Stage{Due(at, 0, f.channel, slot.index), &slot});
      wake_pump(at);
    } else {
      send(slot, at);
    }
    return;
  }
  m_free_slots.push_back(&slot);
  f.freed.push(at);
  f.end = std::max(f.end, at);
  if (f.freed.size() == f.window && (f.next == f.count || f.error)) { // none in flight
    f.done.notify(ps(f.end) - time_now(*this));
    return;
  }
  if (f.queued && at < f.queued_at) {
    // The place that freed now is earlier than the one the queued burst waits for.
    m_ready.remove(queued_entry(f));
    f.queued = false;
  }
  ready(f);
}

void DmaEngine::wake_pump(uint64_t at) {
  if (at >= m_pump_at)
    return; // the loop is awake, or wakes by then
  m_pump_at = at;
  // One pending notification per event: an earlier one replaces a later one.
  const uint64_t now = to_ps(time_now(*this));
  m_pump_wake.notify(at > now ? ps(at - now) : sc_core::SC_ZERO_TIME);
}

bool DmaEngine::batched(const Slot& slot) const {
  const uint64_t at = slot.payload.get_address();
  return m_batch_window_ps > 0 && slot.flow->spans && at >= m_batch_ddr_base &&
         at - m_batch_ddr_base < m_batch_ddr_bytes;
}

void DmaEngine::flush_batch() {
  m_flushing.clear();
  m_flushing.swap(m_batch);
  for (size_t i = 0; i < m_flushing.size(); ++i) {
    Slot& slot = *m_flushing[i].first;
    slot.rows.more = i + 1 < m_flushing.size();
    transmit(slot, m_flushing[i].second);
  }
}

uint64_t DmaEngine::issue_due(uint64_t now) {
  // What is due goes in the order of Due: (time, late, channel, burst).
  uint64_t at = now;
  for (;;) {
    m_loop_ps = at;
    while (true) {
      const bool burst = !m_ready.empty() && m_ready.next().due.at <= at;
      const bool write = !m_stages.empty() && m_stages.top().due.at <= at;
      if (write && (!burst || m_stages.top().due < m_ready.next().due)) {
        Slot* slot = m_stages.top().slot;
        m_stages.pop();
        send(*slot, at);
      } else if (burst) {
        const Ready r = m_ready.next();
        m_ready.pop();
        start_burst(*r.flow, std::max(r.due.at, at));
      } else {
        break;
      }
    }
    uint64_t next = m_ready.empty() ? UINT64_MAX : m_ready.next().due.at;
    if (!m_stages.empty())
      next = std::min(next, m_stages.top().due.at);
    // Anything else due by `next` (a memory's answer, a thread, a delta at this time) goes
    // first: the loop waits for `next`.
    const bool waits =
        next == UINT64_MAX || now + to_ps(sc_core::sc_time_to_pending_activity()) <= next;
    // A batch of spans goes out before the loop waits or passes its window; the answers
    // may queue more (none due before the window ends).
    if (!m_batch.empty() && (waits || next > m_batch_start + m_batch_window_ps)) {
      flush_batch();
      continue;
    }
    if (waits) {
      m_loop_ps = 0;
      return next;
    }
    at = next;
  }
}

void DmaEngine::pump() {
  guarded([&] {
    while (true) {
      const uint64_t now = to_ps(time_now(*this));
      m_pump_at = 0; // awake: what is queued meanwhile is seen below
      const uint64_t next = issue_due(now);
      m_pump_at = next;
      if (next != UINT64_MAX)
        m_pump_wake.notify(ps(next - now));
      sc_core::wait(m_pump_wake);
    }
  });
}

StatGroup DmaEngine::stats(uint64_t simulated_ps) const {
  return m_stats.collect(simulated_ps);
}

DmaEngine::Totals DmaEngine::totals() const {
  Totals t;
  for (const auto& c : m_channels) {
    t.bytes += c.bytes.count();
    t.transfers += c.transfers;
    t.busy_ps += c.busy_ps;
  }
  return t;
}

double DmaEngine::utilization(uint64_t simulated_ps) const {
  return simulated_ps ? static_cast<double>(totals().busy_ps) /
                            (static_cast<double>(simulated_ps) * m_channels.size())
                      : 0;
}

double DmaEngine::bandwidth_gbps(uint64_t simulated_ps) const {
  return simulated_ps ? static_cast<double>(totals().bytes) /
                            (static_cast<double>(simulated_ps) * 1e-12) / 1e9
                      : 0;
}

double DmaEngine::busy_gbps(uint64_t bytes, uint64_t busy_ps) {
  return busy_ps ? bytes / (static_cast<double>(busy_ps) * 1e-12) / 1e9 : 0;
}

BlockEnergy DmaEngine::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"dma", {}};
  const uint64_t bytes = totals().bytes;
  e.add("kernel_bytes", static_cast<double>(m_kernel_bytes) * m_config.energy.per_byte_pj);
  e.add("copy_bytes", static_cast<double>(bytes - m_kernel_bytes) * m_config.energy.per_byte_pj);
  e.add("static", static_pj(m_config.energy.static_mw, simulated_ps));
  return e;
}

} // namespace npu
