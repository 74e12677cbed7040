#pragma once

#include <systemc>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace npu {

/// Stops a run whose simulated time stands still while the kernel keeps running processes:
/// a loop of zero-time waits or notifications that --max-sim-time can never reach. While a
/// run lasts (start() to stop()), a background thread asks for a look every few hundred
/// milliseconds of wall time (async_request_update, the kernel's thread-safe entry); the
/// look itself runs in the simulation, between two delta cycles. When `max_deltas` delta
/// cycles have passed without simulated time advancing, it ends the run the way a failed
/// process does (guarded(): a SimulationError, then sc_pause) with a message that says where
/// time stopped and, from `describe`, what the platform was doing.
class ProgressMonitor : public sc_core::sc_prim_channel {
public:
  /// More delta cycles at one instant than any real workload needs (a launch takes a few).
  static constexpr uint64_t kMaxDeltas = 1'000'000;

  explicit ProgressMonitor(std::function<std::string()> describe, uint64_t max_deltas = kMaxDeltas);
  ~ProgressMonitor() override;
  ProgressMonitor(const ProgressMonitor&) = delete;
  ProgressMonitor& operator=(const ProgressMonitor&) = delete;

  /// Calls `look` at each look, in the simulation (between two delta cycles): a progress
  /// line reads the simulated time and the launches there.
  void set_on_look(std::function<void()> look) { m_on_look = std::move(look); }

  /// Starts and stops the background thread (around sc_start).
  void start();
  void stop();
  /// Asked at every look (in the simulation): a non-empty answer ends the run the way a
  /// standstill does, with that message. For an embedding program's own limits (a wall-clock
  /// limit, an interrupt) where ending the process is not an option.
  void set_watch(std::function<std::string()> watch) { m_watch = std::move(watch); }

private:
  void update() override;
  void tick();

  std::function<std::string()> m_describe;
  std::function<void()> m_on_look;
  std::function<std::string()> m_watch;
  uint64_t m_max_deltas;
  uint64_t m_time_ps = ~uint64_t{0}; ///< simulated time at the last look
  uint64_t m_deltas = 0;             ///< delta count when time last moved
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

} // namespace npu
