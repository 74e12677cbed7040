#include "models/ddr/ddr_transaction.h"

#include <algorithm>

namespace npu {

DdrTransactionLevel::DdrTransactionLevel(sc_core::sc_module_name name, const DdrConfig& config,
                                         const AddressMapper& mapper, const SparseMemory& memory,
                                         MoveData move, Answer answer)
    : sc_module(name), m_config(config), m_tck_ps(config.spec.tck_ps), m_mapper(mapper),
      m_memory(memory), m_move(std::move(move)), m_answer(std::move(answer)),
      m_dram(config.spec, config.controller, mapper) {}

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

void DdrTransactionLevel::serve(std::vector<Held>& held, const tlm::tlm_generic_payload* in_call,
                                sc_core::sc_time& in_call_delay) {
  m_transactions.clear();
  std::vector<size_t> index; // held request of each transaction
  for (size_t i = 0; i < held.size(); ++i) {
    DramTransaction t;
    if (transaction_of(*held[i].payload, held[i].at_ps, t)) {
      m_transactions.push_back(t);
      index.push_back(i);
    }
  }
  m_dram.serve_batch(m_transactions, m_done);
  for (size_t k = 0; k < index.size(); ++k) {
    Held& h = held[index[k]];
    answer(*h.payload, h.at_ps, m_done[k], h.delay);
  }
  // Answers last: they may bring new requests.
  for (Held& h : held) {
    if (h.payload == in_call)
      in_call_delay = h.delay;
    else
      m_answer(*h.payload, h.delay);
  }
}

void DdrTransactionLevel::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  const uint64_t at = to_ps(sc_core::sc_time_stamp() + delay);
  DramTransaction t;
  if (transaction_of(payload, at, t))
    answer(payload, at, m_dram.serve(t), delay);
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
  std::vector<Held> batch;
  batch.swap(m_batch);
  serve(batch, &payload, delay);
  phase = tlm::BEGIN_RESP;
  return tlm::TLM_COMPLETED;
}

} // namespace npu
