#include "models/ddr/ddr.h"

#include <algorithm>

namespace npu {

Ddr::Ddr(sc_core::sc_module_name name, const DdrConfig& config, Granularity granularity)
    : sc_module(name), socket("socket"), m_config(config), m_memory(config.size_bytes),
      m_mapper(config.spec, config.mapping_fields, config.hash),
      m_controllers(config.spec, config.controller, m_mapper,
                    [this](uint64_t id, uint64_t done) { m_admission.request_done(id, done); }),
      m_admission(m_controllers, config.spec.access_bytes,
                  [this](DdrTransaction& t) { finished(t); }) {
  SC_HAS_PROCESS(Ddr);
  socket.register_b_transport(this, &Ddr::b_transport);
  socket.register_transport_dbg(this, &Ddr::transport_dbg);
  if (config.model == DdrModel::Transaction) {
    m_transaction = std::make_unique<DdrTransactionLevel>(
        "transaction", config, m_mapper, m_memory,
        [this](tlm::tlm_generic_payload& p) {
          move_data(p);
          if (m_trace)
            m_trace->ddr_bytes(to_ps(time_now(*this)), p.get_data_length());
        },
        [this](tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
          tlm::tlm_phase phase = tlm::BEGIN_RESP;
          socket->nb_transport_bw(p, phase, delay);
        });
    socket.register_nb_transport_fw(this, &Ddr::nb_transport_fw);
    return; // served in closed form: no controllers' clock
  }
  if (granularity == Granularity::Burst) {
    m_nonblocking = true;
    socket.register_nb_transport_fw(this, &Ddr::nb_transport_fw);
  }
  SC_METHOD(run_controllers);
  sensitive << m_kick;
  dont_initialize();
}

uint64_t Ddr::cycle_now() const {
  return m_controllers.clock().cycle_of(to_ps(time_now(*this)));
}

sc_core::sc_time Ddr::until_cycle(uint64_t cycle) const {
  const uint64_t at = m_controllers.clock().cycle_ps(cycle);
  const uint64_t now = to_ps(time_now(*this));
  return at > now ? ps(at - now) : sc_core::SC_ZERO_TIME;
}

void Ddr::finished(DdrTransaction& t) {
  if (t.payload) {
    // Answered by the controllers' method, after this run of the channels; a request that
    // finished while a thread advanced its channel needs the method to run.
    m_responses.push_back(&t);
    if (!m_in_controllers)
      m_kick.notify(sc_core::SC_ZERO_TIME);
  } else {
    // On the burst path the last data burst may still be ahead (run_controllers).
    t.done.notify(until_cycle(t.done_cycle));
  }
}

void Ddr::run_controllers() {
  m_in_controllers = true;
  const uint64_t now_ps = to_ps(time_now(*this));
  m_admission.take_arrivals(now_ps);
  const uint64_t now = cycle_now();
  // On the burst path every request whose RD/WR has issued is done at a known cycle: its
  // transaction is answered now with the rest as annotated delay.
  if (m_controllers.tick(now, m_nonblocking))
    m_admission.channel_advanced(); // it may have freed queue entries
  // Requests waiting for a queue entry take the ones freed up to now, in order of arrival.
  m_admission.admit_waiting(now);
  // Wake for the next completion only; the commands before it are replayed by the next
  // advance (an arrival advances its channel first). Requests waiting for a queue entry
  // need the exact cycle a command frees one.
  const uint64_t next = m_controllers.next_wake(m_admission.anyone_waiting());
  m_answering.swap(m_responses);
  m_in_controllers = false;
  for (DdrTransaction* t : m_answering)
    respond(*t); // may bring new arrivals
  m_answering.clear();
  uint64_t at =
      next == UINT64_MAX ? UINT64_MAX : std::max(m_controllers.clock().cycle_ps(next), now_ps + 1);
  at = std::min(at, m_admission.next_arrival_ps(now_ps + 1));
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

void Ddr::b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (m_transaction) {
    m_transaction->b_transport(payload, delay);
    return;
  }
  if (const auto status = check(payload); status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    return;
  }
  // The controller queues requests at the time they arrive.
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  if (m_nonblocking)
    m_admission.take_arrivals(to_ps(time_now(*this))); // earlier arrivals enter first
  DdrTransaction& t = m_admission.take();
  m_admission.admit_blocking(t, payload.get_address(), payload.get_data_length(),
                             payload.is_write(), cycle_now());
  // The controllers look at the new requests one delta later, once every request
  // arriving at this time is in (write draining decides on the queues' fill).
  m_kick.notify(sc_core::SC_ZERO_TIME);
  while (t.remaining > 0)
    sc_core::wait(t.done);
  m_admission.give_back(t);
  move_data(payload);
  if (m_trace)
    m_trace->ddr_bytes(to_ps(time_now(*this)), payload.get_data_length());
  // The controller front end and PHY sit outside the DRAM timing.
  delay = ps(m_config.controller_latency_ps);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

tlm::tlm_sync_enum Ddr::nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  if (m_transaction)
    return m_transaction->nb_transport_fw(payload, phase, delay);
  if (phase != tlm::BEGIN_REQ)
    return tlm::TLM_ACCEPTED; // END_RESP: nothing left to do
  if (const auto status = check(payload); status != tlm::TLM_OK_RESPONSE) {
    payload.set_response_status(status);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  }
  const uint64_t arrival = to_ps(time_now(*this) + delay);
  const bool exact = m_admission.arrive(payload, arrival);
  m_kick.notify(exact ? delay : ps(m_admission.deadline_ps(arrival)) - time_now(*this));
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void Ddr::respond(DdrTransaction& t) {
  tlm::tlm_generic_payload& payload = *t.payload;
  t.payload = nullptr;
  m_admission.give_back(t);
  const sc_core::sc_time done = until_cycle(t.done_cycle);
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
  if (payload.get_extension<SpanExtension>())
    copy_payload_rows(m_memory, payload);
  else if (payload.is_write())
    m_memory.write(addr, payload.get_data_ptr(), len);
  else
    m_memory.read(addr, payload.get_data_ptr(), len);
}

unsigned Ddr::transport_dbg(tlm::tlm_generic_payload& payload) {
  return debug_access(m_memory, payload);
}

StatGroup Ddr::stats(uint64_t simulated_ps) const {
  if (!m_transaction)
    m_controllers.settle();
  const DramChannelStats sum = m_transaction ? m_transaction->dram().stats() : m_controllers.sum();
  uint64_t read_bytes = 0, write_bytes = 0;
  for (const auto& [rd, wr] : m_bytes_by_initiator) {
    read_bytes += rd;
    write_bytes += wr;
  }
  const double accesses = static_cast<double>(sum.row_hits + sum.row_misses + sum.row_conflicts);
  const double seconds = static_cast<double>(simulated_ps) * 1e-12;
  StatGroup g{"ddr", {}};
  g.add("reads", static_cast<double>(sum.reads), "count", "64-byte read requests");
  g.add("writes", static_cast<double>(sum.writes), "count", "64-byte write requests");
  g.add("read_bytes", static_cast<double>(read_bytes), "bytes", "bytes read");
  g.add("write_bytes", static_cast<double>(write_bytes), "bytes", "bytes written");
  g.add("row_hit_rate", accesses > 0 ? sum.row_hits / accesses : 0, "ratio",
        "requests that found their row open");
  g.add("row_conflicts", static_cast<double>(sum.row_conflicts), "count",
        "requests that had to close another row first");
  g.add("activates", static_cast<double>(sum.activates), "count", "ACT commands");
  g.add("refreshes", static_cast<double>(sum.refreshes), "count", "all-bank refreshes");
  const double tck_ns = m_config.spec.tck_ps / 1000.0;
  g.add("read_latency_mean_ns",
        !m_transaction ? m_controllers.read_latency_mean_ns()
        : sum.reads    ? static_cast<double>(sum.read_latency_sum_cycles) / sum.reads * tck_ns
                       : 0,
        "ns", "queue acceptance to end of data burst, mean over reads");
  const double capacity = static_cast<double>(simulated_ps) / 1000.0 * m_config.spec.channels;
  g.add("utilization",
        !m_transaction ? m_controllers.utilization(simulated_ps)
        : capacity > 0 ? static_cast<double>(sum.data_bus_busy_cycles) * tck_ns / capacity
                       : 0,
        "ratio", "fraction of time the data buses were transferring");
  g.add("bandwidth_gbps", seconds > 0 ? (read_bytes + write_bytes) / seconds / 1e9 : 0, "GB/s",
        "bytes moved over simulated time");
  g.add("peak_gbps", m_config.spec.channel_bytes_per_s() * m_controllers.size() / 1e9, "GB/s",
        "peak bandwidth of all channels");
  return g;
}

BlockEnergy Ddr::energy(uint64_t simulated_ps) const {
  if (m_transaction) {
    // Refreshes up to the last access, as the cycle controllers are brought up to date.
    const TransactionDram& dram = m_transaction->dram();
    return dram_energy(m_config.spec, dram.activity(m_controllers.clock().cycle_of(simulated_ps),
                                                    dram.last_arrival()));
  }
  m_controllers.settle();
  return dram_energy(m_config.spec,
                     m_controllers.activity(m_controllers.clock().cycle_of(simulated_ps)));
}

BlockEnergy Ddr::energy_so_far(uint64_t simulated_ps) const {
  if (m_transaction) {
    const TransactionDram& dram = m_transaction->dram();
    return dram_energy(m_config.spec, dram.activity(m_controllers.clock().cycle_of(simulated_ps),
                                                    dram.last_arrival()));
  }
  return dram_energy(m_config.spec,
                     m_controllers.activity_so_far(m_controllers.clock().cycle_of(simulated_ps)));
}

} // namespace npu
