#include "models/ddr/ddr_transaction.h"

#include <algorithm>
#include <cmath>

namespace npu {

DdrTransactionLevel::DdrTransactionLevel(sc_core::sc_module_name name, const DdrConfig& config,
                                         const AddressMapper& mapper, const SparseMemory& memory,
                                         MoveData move, Answer answer)
    : sc_module(name), m_config(config), m_tck_ps(config.spec.tck_ps), m_mapper(mapper),
      m_memory(memory), m_move(std::move(move)), m_answer(std::move(answer)),
      m_dram(config.spec, config.controller, mapper) {
  SC_HAS_PROCESS(DdrTransactionLevel);
  const DramControllerConfig& c = config.controller;
  m_write_high = std::clamp<uint32_t>(
      static_cast<uint32_t>(std::ceil(c.write_high * c.write_queue - 1e-9)), 1, c.write_queue);
  m_write_lines.assign(m_dram.channels(), 0);
  SC_METHOD(on_drain);
  sensitive << m_drain;
  dont_initialize();
}

bool DdrTransactionLevel::transaction_of(tlm::tlm_generic_payload& payload, uint64_t at_ps,
                                         DramTransaction& t) {
  const PayloadRows rows = payload_rows(payload);
  const uint64_t addr = payload.get_address();
  if (payload.get_data_length() == 0 || rows.row_bytes == 0 ||
      !m_memory.contains(addr, rows.extent())) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (payload.get_byte_enable_ptr()) {
    payload.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  t = DramTransaction{};
  t.addr = addr;
  t.row_bytes = rows.row_bytes;
  t.rows = rows.rows;
  t.stride = rows.stride;
  t.is_write = payload.is_write();
  t.arrival = cycle_of(at_ps);
  if (const auto* span = payload.get_extension<SpanExtension>()) {
    t.spread = cycle_of(at_ps + span->spread_ps) - t.arrival;
    t.unit_bytes = span->unit_bytes;
  }
  return true;
}

void DdrTransactionLevel::answer(tlm::tlm_generic_payload& payload, uint64_t at_ps,
                                 const DramTransactionDone& done, sc_core::sc_time& delay) {
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  m_move(payload);
  // The controller front end and PHY sit outside the DRAM timing.
  const uint64_t latency = m_config.controller_latency_ps;
  const uint64_t last = std::max(cycle_ps(done.last), at_ps);
  if (auto* span = payload.get_extension<SpanExtension>())
    span->first_done_ps = std::max(cycle_ps(done.first), at_ps) + latency;
  delay = ps(std::max(last + latency, now) - now);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool DdrTransactionLevel::serve_now(std::vector<Held>& held, std::vector<DramTransaction>& ts,
                                    const tlm::tlm_generic_payload* in_call,
                                    sc_core::sc_time& in_call_delay) {
  m_dram.serve_batch(ts, m_done);
  for (size_t k = 0; k < held.size(); ++k)
    answer(*held[k].payload, held[k].at_ps, m_done[k], held[k].delay);
  // Answers last: they may bring new requests.
  bool answered = false;
  for (Held& h : held) {
    if (h.payload == in_call) {
      in_call_delay = h.delay;
      answered = true;
    } else if (h.caller) {
      h.caller->delay = h.delay;
      h.caller->answered = true;
      h.caller->served.notify(sc_core::SC_ZERO_TIME);
    } else {
      m_answer(*h.payload, h.delay);
    }
  }
  return answered;
}

bool DdrTransactionLevel::serve(std::vector<Held>& held, const tlm::tlm_generic_payload* in_call,
                                sc_core::sc_time& in_call_delay) {
  std::vector<Held> now = spare_held(), errors = spare_held();
  // Transactions go to m_transactions, which serve_now() has read before it answers (an answer
  // may bring a request, and with it another serve()).
  std::vector<DramTransaction>& ts = m_transactions;
  ts.clear();
  uint64_t full = 0; // channels whose write queue reached its high watermark
  bool answered = false;
  for (Held& h : held) {
    DramTransaction t;
    if (!transaction_of(*h.payload, h.at_ps, t)) {
      errors.push_back(h);
    } else if (t.is_write) {
      full |= hold_write(h, t);
    } else {
      now.push_back(h);
      ts.push_back(t);
    }
  }
  answered = serve_now(now, ts, in_call, in_call_delay) || answered;
  if (full != 0)
    answered = drain_writes([&](const HeldWrite& w) { return (w.channels & full) != 0; }, in_call,
                            in_call_delay) ||
               answered;
  schedule_drain();
  for (Held& h : errors) { // answered at once, with their error status
    if (h.payload == in_call)
      answered = true;
    else
      m_answer(*h.payload, h.delay);
  }
  keep_held(std::move(now));
  keep_held(std::move(errors));
  return answered;
}

uint64_t DdrTransactionLevel::hold_write(const Held& h, const DramTransaction& t) {
  const size_t channels = m_write_lines.size();
  HeldWrite w{h, t, 0, 0};
  if (m_free_slots.empty()) {
    w.slot = static_cast<uint32_t>(m_slot_lines.size() / channels);
    m_slot_lines.resize(m_slot_lines.size() + channels, 0);
  } else {
    w.slot = m_free_slots.back();
    m_free_slots.pop_back();
  }
  uint32_t* lines = &m_slot_lines[w.slot * channels];
  m_dram.count_lines(t, lines);
  uint64_t full = 0;
  for (size_t c = 0; c < channels; ++c) {
    if (lines[c] == 0)
      continue;
    w.channels |= uint64_t{1} << (c % 64);
    m_write_lines[c] += lines[c];
    if (m_write_lines[c] >= m_write_high)
      full |= uint64_t{1} << (c % 64);
  }
  m_writes.push_back(w);
  return full;
}

uint64_t DdrTransactionLevel::write_ready(const HeldWrite& w) const {
  uint64_t at = w.t.arrival;
  for (uint32_t c = 0; c < m_write_lines.size(); ++c)
    if (w.channels >> (c % 64) & 1)
      at = std::max(at, m_dram.read_queue_empty_from(c, w.t.arrival));
  return at;
}

template <typename Pick>
bool DdrTransactionLevel::drain_writes(Pick pick, const tlm::tlm_generic_payload* in_call,
                                       sc_core::sc_time& in_call_delay) {
  const uint64_t now = cycle_of(to_ps(sc_core::sc_time_stamp()));
  std::vector<Held> held = spare_held();
  std::vector<DramTransaction>& ts = m_transactions;
  ts.clear();
  size_t kept = 0;
  for (HeldWrite& w : m_writes) {
    if (!pick(w)) {
      m_writes[kept++] = w;
      continue;
    }
    uint32_t* lines = &m_slot_lines[w.slot * m_write_lines.size()];
    for (size_t c = 0; c < m_write_lines.size(); ++c) {
      m_write_lines[c] -= lines[c];
      lines[c] = 0;
    }
    m_free_slots.push_back(w.slot);
    // Its lines are queued by now: those that had not arrived yet come as they would have.
    DramTransaction t = w.t;
    const uint64_t last = t.arrival + t.spread;
    t.arrival = std::max(t.arrival, now);
    t.spread = last > t.arrival ? last - t.arrival : 0;
    held.push_back(w.held);
    ts.push_back(t);
  }
  m_writes.resize(kept);
  const bool answered = !held.empty() && serve_now(held, ts, in_call, in_call_delay);
  keep_held(std::move(held));
  return answered;
}

void DdrTransactionLevel::on_drain() {
  const uint64_t now = cycle_of(to_ps(sc_core::sc_time_stamp()));
  sc_core::sc_time unused;
  drain_writes([&](const HeldWrite& w) { return write_ready(w) <= now; }, nullptr, unused);
  schedule_drain();
}

void DdrTransactionLevel::schedule_drain() {
  m_drain.cancel();
  if (m_writes.empty())
    return;
  uint64_t next = UINT64_MAX;
  for (const HeldWrite& w : m_writes)
    next = std::min(next, write_ready(w));
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  const uint64_t at = std::max(cycle_ps(next), now);
  m_drain.notify(ps(at - now));
}

void DdrTransactionLevel::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t at = to_ps(sc_core::sc_time_stamp() + delay);
  DramTransaction t;
  if (!transaction_of(payload, at, t))
    return;
  if (!t.is_write) {
    answer(payload, at, m_dram.serve(t), delay);
    return;
  }
  // A write waits in the write queue as a non-blocking one does; this thread sleeps until
  // it is served.
  Caller caller;
  const uint64_t full = hold_write(Held{&payload, at, sc_core::SC_ZERO_TIME, &caller}, t);
  const auto mine = [&](const HeldWrite& w) { return w.held.caller == &caller; };
  if (full == 0 && write_ready(m_writes.back()) <= t.arrival) {
    // No read waits on its channels: served as it arrives.
    drain_writes(mine, &payload, delay);
    return;
  }
  sc_core::sc_time unused;
  if (full != 0)
    drain_writes([&](const HeldWrite& w) { return (w.channels & full) != 0; }, nullptr, unused);
  schedule_drain();
  while (!caller.answered)
    sc_core::wait(caller.served);
  delay = caller.delay;
}

tlm::tlm_sync_enum DdrTransactionLevel::nb_transport_fw(tlm::tlm_generic_payload& payload,
                                                        tlm::tlm_phase& phase,
                                                        sc_core::sc_time& delay) {
  if (phase != tlm::BEGIN_REQ)
    return tlm::TLM_ACCEPTED; // END_RESP: nothing left to do
  const uint64_t at = to_ps(sc_core::sc_time_stamp() + delay);
  DramTransaction t;
  if (!transaction_of(payload, at, t)) {
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  }
  m_batch.push_back(Held{&payload, at, sc_core::SC_ZERO_TIME});
  const auto* span = payload.get_extension<SpanExtension>();
  if (span && span->more) {
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  // The batch is complete: serve it together; the others' answers go back over the backward
  // path, this one's in the call.
  std::vector<Held> batch = spare_held();
  batch.swap(m_batch);
  const bool answered = serve(batch, &payload, delay);
  keep_held(std::move(batch));
  if (!answered) {
    phase = tlm::END_REQ; // a write waiting in the write queue: answered later
    return tlm::TLM_UPDATED;
  }
  phase = tlm::BEGIN_RESP;
  return tlm::TLM_COMPLETED;
}

} // namespace npu
