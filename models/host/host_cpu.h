#pragma once

#include "models/common/block.h"
#include "models/common/energy.h"
#include "models/common/tlm_util.h"
#include "models/host/host_config.h"
#include "models/host/host_cpu_if.h"

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <array>
#include <deque>
#include <functional>
#include <utility>

namespace npu {

/// The host CPU: one thread runs the host program (and the driver it calls) in simulated
/// host time; the CPU keeps that time busy, run ahead, sleeping or idle, with its energy;
/// it issues the thread's stores to the device through its socket and takes interrupts,
/// whose routine (a method) hands each one to the handler bound to `handler` (the driver).
class HostCpu : public sc_core::sc_module, public HostCpuIf, public Block {
public:
  tlm_utils::simple_initiator_socket<HostCpu> socket;
  /// Takes each interrupt in the interrupt routine.
  sc_core::sc_port<InterruptHandlerIf, 1, sc_core::SC_ZERO_OR_MORE_BOUND> handler;

  HostCpu(sc_core::sc_module_name name, const HostConfig& config);

  /// The host program; runs once in the host thread at time zero.
  void set_program(std::function<void()> program) { m_program = std::move(program); }
  bool finished() const { return m_finished; }
  uint64_t end_ps() const { return m_end_ps; }
  uint64_t busy_ps() const { return m_busy_ps; }
  uint64_t blocked_ps() const { return m_blocked_ps; }

  uint64_t now_ps() const override { return to_ps(time_now(*this) + m_ahead); }
  HostActivity set_activity(HostActivity activity) override;
  void busy(uint64_t duration_ps) override;
  void run_ahead(uint64_t duration_ps) override;
  void catch_up() override;
  bool store(uint64_t addr, const uint8_t* data, uint32_t len) override;
  bool mmio_write(uint64_t addr, const uint8_t* data, uint32_t len, uint64_t cost_ps) override;
  void sleep_until(const std::function<bool()>& ready) override;
  void interrupt(uint64_t in_ps, uint64_t token) override;
  void halt() override;

  /// Busy time by what the thread did (preparing and submitting launches, polling, other
  /// driver and user work), sleeping waits and idle time up to `simulated_ps`, each at
  /// its power. Mid-run, a busy span or sleeping wait under way counts up to
  /// `simulated_ps`; time the thread ran ahead counts already.
  BlockEnergy energy(uint64_t simulated_ps) const;
  void report_energy(EnergySink& sink, uint64_t simulated_ps, bool settled) const override;

private:
  void run();
  void isr();
  /// Counts `duration_ps` of busy time toward the current activity.
  void count_busy(uint64_t duration_ps) {
    m_busy_ps += duration_ps;
    m_busy_by[static_cast<size_t>(m_activity)] += duration_ps;
  }

  HostConfig m_config;
  std::function<void()> m_program;
  std::deque<std::pair<uint64_t, uint64_t>> m_irq_pending; ///< (time ps, token), in time order
  sc_core::sc_event m_irq;                                 ///< armed for the earliest pending
  sc_core::sc_event m_woken;                               ///< an interrupt was taken
  sc_core::sc_event m_never; ///< never notified: where a halted thread parks
  sc_core::sc_time m_ahead;  ///< how far the host thread has run ahead of sc_time_stamp()
  bool m_finished = false;
  uint64_t m_end_ps = 0;
  uint64_t m_busy_ps = 0;
  uint64_t m_blocked_ps = 0;
  HostActivity m_activity = HostActivity::Other;
  std::array<uint64_t, kHostActivities> m_busy_by{}; ///< busy time per HostActivity
  /// The span the thread is in now, counted only at its end; energy() before then (a
  /// trace's power track) counts the part already past.
  struct OpenSpan {
    uint64_t start_ps = 0;
    uint64_t duration_ps = 0; ///< busy: its length; sleeping: unknown (0)
    HostActivity activity = HostActivity::Other;
    enum class Kind : uint8_t { None, Busy, Sleeping } kind = Kind::None;
  } m_open;
};

} // namespace npu
