#pragma once

#include <systemc>

#include <cstdint>
#include <functional>

namespace npu {

/// What busy host time is spent on, for energy by launch phase.
enum class HostActivity : uint8_t { Prepare, Submit, Poll, Other };
inline constexpr size_t kHostActivities = 4;

/// The host CPU as the driver running on it sees it: the host thread's time, busy or run
/// ahead of the simulation clock (TLM-2.0 loosely timed style), its sleeping waits, its
/// stores to the device, and its interrupt line. Host thread only, but for interrupt().
class HostCpuIf : public virtual sc_core::sc_interface {
public:
  /// The host thread's own time (ps): the simulation time plus what it ran ahead.
  virtual uint64_t now_ps() const = 0;
  /// Sets what busy time counts toward from now on; returns what it counted toward.
  virtual HostActivity set_activity(HostActivity activity) = 0;
  /// Busy for `duration_ps`: the thread waits it out, with any time it ran ahead.
  virtual void busy(uint64_t duration_ps) = 0;
  /// Busy on host state only: the thread runs ahead of the clock by it until it next
  /// catches up (a store, a wait, catch_up()).
  virtual void run_ahead(uint64_t duration_ps) = 0;
  /// Waits out the time run ahead, so the thread's time is the simulation time again.
  virtual void catch_up() = 0;
  /// A posted store of `len` bytes to device address `addr` at the host's time (shared
  /// ports along the way take requests in time order); busy until its response is back.
  /// False when the target refused it.
  virtual bool store(uint64_t addr, const uint8_t* data, uint32_t len) = 0;
  /// A posted MMIO write issued ahead of the clock after `cost_ps` of busy time (only the
  /// host uses the register port); the thread runs on from its acceptance.
  virtual bool mmio_write(uint64_t addr, const uint8_t* data, uint32_t len, uint64_t cost_ps) = 0;
  /// Sleeps (blocked, not busy) until `ready()` holds, looking again after each interrupt.
  virtual void sleep_until(const std::function<bool()>& ready) = 0;
  /// Raises an interrupt that reaches the host thread `in_ps` from now plus the CPU's
  /// interrupt latency; its routine hands `token` to the handler (InterruptHandlerIf).
  virtual void interrupt(uint64_t in_ps, uint64_t token) = 0;
  /// Stops the run here, for good: the host can make no more progress (a deadlock).
  virtual void halt() = 0;
};

/// The interrupt routine's handler (the driver): takes one interrupt, in the CPU's
/// interrupt method.
class InterruptHandlerIf : public virtual sc_core::sc_interface {
public:
  virtual void on_interrupt(uint64_t token) = 0;
};

/// Sets what the host's busy time counts toward for a scope; the activity before comes
/// back at its end (a poll for ring space inside a submission returns to Submit).
class ActivityScope {
public:
  ActivityScope(HostCpuIf& cpu, HostActivity now) : m_cpu(cpu), m_was(cpu.set_activity(now)) {}
  ~ActivityScope() { m_cpu.set_activity(m_was); }
  ActivityScope(const ActivityScope&) = delete;
  ActivityScope& operator=(const ActivityScope&) = delete;

private:
  HostCpuIf& m_cpu;
  HostActivity m_was;
};

} // namespace npu
