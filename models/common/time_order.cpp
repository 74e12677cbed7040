#include "models/common/time_order.h"

#include "models/common/tlm_util.h"

#include <algorithm>

namespace npu {

TimeOrder::TimeOrder(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(TimeOrder);
  SC_THREAD(run);
}

void TimeOrder::wait_until(uint64_t at, const Key& key) {
  at = std::max(at, to_ps(time_now(*this)));
  sc_core::sc_event* wake;
  if (m_free.empty()) {
    m_events.push_back(std::make_unique<sc_core::sc_event>());
    wake = m_events.back().get();
  } else {
    wake = m_free.back();
    m_free.pop_back();
  }
  m_sleepers.emplace(at, key, m_seq++, wake);
  if (at < m_wake_at) {
    m_wake_at = at;
    m_added.notify(sc_core::SC_ZERO_TIME);
  }
  sc_core::wait(*wake);
  m_free.push_back(wake);
}

void TimeOrder::run() {
  guarded([this] {
    while (true) {
      const uint64_t now = to_ps(time_now(*this));
      // Immediate notification: the threads run in this evaluation phase, in the order
      // they are notified. Those that call again for now wait for the next pass.
      while (!m_sleepers.empty() && std::get<0>(m_sleepers.top()) <= now) {
        std::get<3>(m_sleepers.top())->notify();
        m_sleepers.pop();
      }
      m_wake_at = m_sleepers.empty() ? UINT64_MAX : std::get<0>(m_sleepers.top());
      if (m_wake_at == UINT64_MAX)
        sc_core::wait(m_added);
      else
        sc_core::wait(ps(m_wake_at - now), m_added);
    }
  });
}

} // namespace npu
