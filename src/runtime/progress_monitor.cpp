#include "runtime/progress_monitor.h"

#include "common/error.h"
#include "models/common/tlm_util.h"

#include <chrono>

namespace npu {

ProgressMonitor::ProgressMonitor(std::function<std::string()> describe, uint64_t max_deltas)
    : sc_prim_channel(sc_core::sc_gen_unique_name("progress_monitor")),
      m_describe(std::move(describe)), m_max_deltas(max_deltas) {}

ProgressMonitor::~ProgressMonitor() {
  stop();
}

void ProgressMonitor::start() {
  stop();
  m_stop = false;
  m_stop_message.clear();
  m_look_asked = false;
  m_time_ps = ~uint64_t{0};
  m_thread = std::thread([this] { tick(); });
}

void ProgressMonitor::stop() {
  if (!m_thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void ProgressMonitor::tick() {
  // Often enough that a spinning run stops within a second or two.
  constexpr auto kPeriod = std::chrono::milliseconds(250);
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_wake.wait_for(lock, kPeriod, [this] { return m_stop; })) {
    // Two kernel counters read while the simulation runs (aligned 64-bit words, written
    // only by the kernel): a stale value delays a look by one period at worst, and the
    // look checks again inside the simulation.
    const uint64_t now = to_ps(sc_core::sc_time_stamp());
    const uint64_t deltas = sc_core::sc_delta_count();
    if (m_on_look)
      m_on_look(now);
    if (m_watch && m_stop_message.empty())
      m_stop_message = m_watch();
    bool ask = !m_stop_message.empty();
    if (now != m_time_ps) {
      m_time_ps = now;
      m_deltas = deltas;
    } else if (deltas - m_deltas >= m_max_deltas) {
      ask = true;
    }
    if (ask && !m_look_asked) {
      m_look_asked = true;
      async_request_update();
    }
  }
}

void ProgressMonitor::update() {
  const uint64_t now = to_ps(sc_core::sc_time_stamp());
  const uint64_t deltas = sc_core::sc_delta_count();
  std::string stop;
  bool standstill = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_look_asked = false;
    stop = m_stop_message;
    standstill = now == m_time_ps && deltas - m_deltas >= m_max_deltas;
    if (standstill)
      m_deltas = deltas; // one report per standstill
  }
  if (!stop.empty()) {
    guarded([&stop] { throw SimulationError(stop); });
    return;
  }
  if (!standstill)
    return;
  const std::string message =
      "simulation stuck at " + std::to_string(now / 1000) + " ns: over " +
      std::to_string(m_max_deltas) +
      " delta cycles without simulated time advancing, so --max-sim-time could never end it; " +
      m_describe();
  guarded([&message] { throw SimulationError(message); });
}

} // namespace npu
