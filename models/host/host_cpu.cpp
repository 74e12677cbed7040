#include "models/host/host_cpu.h"

#include <algorithm>

namespace npu {

HostCpu::HostCpu(sc_core::sc_module_name name, const HostConfig& config)
    : sc_module(name), socket("socket"), handler("handler"), m_config(config) {
  SC_HAS_PROCESS(HostCpu);
  SC_THREAD(run);
  // The interrupt routine only updates host state: a method, woken by each interrupt.
  SC_METHOD(isr);
  sensitive << m_irq;
  dont_initialize();
}

void HostCpu::run() {
  guarded([this] {
    if (m_program)
      m_program();
    m_finished = true;
    m_end_ps = to_ps(time_now(*this));
  });
}

void HostCpu::isr() {
  guarded([this] {
    const uint64_t now = to_ps(time_now(*this));
    bool any = false;
    while (!m_irq_pending.empty() && m_irq_pending.front().first <= now) {
      if (handler.size() > 0)
        handler->on_interrupt(m_irq_pending.front().second);
      m_irq_pending.pop_front();
      any = true;
    }
    // Interrupts are pending in time order: the event is armed for the next one.
    if (!m_irq_pending.empty())
      m_irq.notify(ps(m_irq_pending.front().first - now));
    if (any)
      m_woken.notify(sc_core::SC_ZERO_TIME);
  });
}

void HostCpu::interrupt(uint64_t in_ps, uint64_t token) {
  // Interrupts follow the records landing, which land in order.
  const uint64_t after = in_ps + m_config.interrupt_latency_ps;
  m_irq_pending.emplace_back(to_ps(time_now(*this)) + after, token);
  m_irq.notify(ps(after));
}

HostActivity HostCpu::set_activity(HostActivity activity) {
  return std::exchange(m_activity, activity);
}

void HostCpu::busy(uint64_t duration_ps) {
  m_open = {to_ps(time_now(*this) + m_ahead), duration_ps, m_activity, OpenSpan::Kind::Busy};
  sc_core::wait(m_ahead + ps(duration_ps));
  m_open = {};
  m_ahead = sc_core::SC_ZERO_TIME;
  count_busy(duration_ps);
}

void HostCpu::run_ahead(uint64_t duration_ps) {
  m_ahead += ps(duration_ps);
  count_busy(duration_ps);
}

void HostCpu::catch_up() {
  if (m_ahead == sc_core::SC_ZERO_TIME)
    return;
  sc_core::wait(m_ahead);
  m_ahead = sc_core::SC_ZERO_TIME;
}

void HostCpu::sleep_until(const std::function<bool()>& ready) {
  const uint64_t start = to_ps(time_now(*this));
  m_open = {start, 0, m_activity, OpenSpan::Kind::Sleeping};
  while (!ready())
    sc_core::wait(m_woken);
  m_open = {};
  m_blocked_ps += to_ps(time_now(*this)) - start;
}

void HostCpu::halt() {
  // Paused, not stopped, so that the threads left waiting can still be unwound.
  sc_core::sc_pause();
  sc_core::wait(m_never);
}

bool HostCpu::store(uint64_t addr, const uint8_t* data, uint32_t len) {
  NpuExtension tag;
  tag.who = Initiator::Host;
  tag.posted = true; // posted stores: a PCIe link need not wait for them
  // Shared ports along the way take requests in time order: issue at the host's time.
  catch_up();
  const uint64_t before = to_ps(time_now(*this));
  if (transact(socket, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), len, tag,
               m_ahead) != tlm::TLM_OK_RESPONSE)
    return false;
  // The host runs on once the response is back (the returned delay, left in m_ahead).
  count_busy(to_ps(time_now(*this) + m_ahead) - before);
  return true;
}

bool HostCpu::mmio_write(uint64_t addr, const uint8_t* data, uint32_t len, uint64_t cost_ps) {
  NpuExtension tag;
  tag.who = Initiator::Host;
  const sc_core::sc_time before = time_now(*this) + m_ahead;
  m_ahead += ps(cost_ps);
  if (transact(socket, tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(data), len, tag,
               m_ahead) != tlm::TLM_OK_RESPONSE)
    return false;
  count_busy(to_ps(time_now(*this) + m_ahead - before));
  return true;
}

BlockEnergy HostCpu::energy(uint64_t simulated_ps) const {
  BlockEnergy e{"host", {}};
  const HostEnergy& w = m_config.energy;
  // The span under way, up to `simulated_ps`.
  const uint64_t past = simulated_ps - std::min(simulated_ps, m_open.start_ps);
  std::array<uint64_t, kHostActivities> busy_by = m_busy_by;
  uint64_t busy = m_busy_ps, blocked = m_blocked_ps;
  if (m_open.kind == OpenSpan::Kind::Busy) {
    const uint64_t part = std::min(past, m_open.duration_ps);
    busy_by[static_cast<size_t>(m_open.activity)] += part;
    busy += part;
  } else if (m_open.kind == OpenSpan::Kind::Sleeping) {
    blocked += past;
  }
  const auto busy_pj = [&](HostActivity a) {
    return static_cast<double>(busy_by[static_cast<size_t>(a)]) * w.busy_w; // W x ps = pJ
  };
  e.add("prepare", busy_pj(HostActivity::Prepare));
  e.add("submit", busy_pj(HostActivity::Submit));
  e.add("busy_other", busy_pj(HostActivity::Other));
  e.add("polling",
        static_cast<double>(busy_by[static_cast<size_t>(HostActivity::Poll)]) * w.polling_w);
  e.add("sleeping", static_cast<double>(blocked) * w.sleeping_w);
  const uint64_t awake = busy + blocked;
  e.add("idle", static_cast<double>(simulated_ps - std::min(simulated_ps, awake)) * w.idle_w);
  return e;
}

void HostCpu::report_energy(EnergySink& sink, uint64_t simulated_ps, bool /*settled*/) const {
  sink.add(energy(simulated_ps));
}

} // namespace npu
